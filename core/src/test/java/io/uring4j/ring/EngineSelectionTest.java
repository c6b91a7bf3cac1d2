package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterArgLayout;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.ForwardingEngine;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Engine#auto()}: each setup refusal the portable engine removes is injected through a fake kernel engine;
 * the ring must come from the portable engine, work, and leave exactly one log line naming cause and fix.
 */
class EngineSelectionTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource({"EPERM, 1, seccomp", "ENOSYS, 38, CONFIG_IO_URING", "ENOMEM, 12, RLIMIT_MEMLOCK"})
    void aRefusedSetupFallsBackToThePortableEngineWithOneLine(String name, int errno, String fix) throws Exception {
        List<String> log = new ArrayList<>();
        Engine auto = new AutoEngine(Engine.refusing(errno), FallbackLookup::engine, log::add, new int[0]);
        try (IoUring ring = IoUring.builder().entries(8).engine(auto).build()) {
            assertThat(ring.engineUsed()).isSameAs(Engine.portable());
            ring.sq().next().prepNop().userData(7);
            ring.submitAndWait(1);
            assertThat(ring.cq().peek().userData()).isEqualTo(7);
        }
        assertThat(log).hasSize(1);
        assertThat(log.get(0)).contains("io_uring_setup failed with " + name, "using the portable engine", fix,
                "-During4j.engine=");
    }

    @Test
    void otherSetupErrorsAreTheCallersAndChooseNothing() {
        List<String> log = new ArrayList<>();
        Engine auto = new AutoEngine(Engine.refusing(Errno.EINVAL), FallbackLookup::engine, log::add, new int[0]);
        int errno = Rings.errnoOf(() -> IoUring.builder().entries(8).engine(auto).build());
        assertThat(errno).isEqualTo(Errno.EINVAL);
        assertThat(log).isEmpty();
    }

    @Test
    void aKernelThatAcceptsKeepsTheKernelEngineSilently() throws ErrnoException {
        List<String> log = new ArrayList<>();
        AtomicInteger lookups = new AtomicInteger();
        Engine auto = new AutoEngine(Engine.kernel(), () -> {
            lookups.incrementAndGet();
            return FallbackLookup.engine();
        }, log::add, new int[0]);
        try (IoUring ring = IoUring.builder().entries(8).engine(auto).build()) {
            assertThat(ring.engineUsed()).isSameAs(Engine.kernel());
        }
        assertThat(log).isEmpty();
        assertThat(lookups).as("the portable engine is not even looked up").hasValue(0);
    }

    /** The real kernel, except that its probe hides {@code hidden}; records the rings it closes. */
    private static Engine kernelWithout(int hidden, List<Integer> closed) {
        return new ForwardingEngine(Engine.kernel()) {
            @Override
            public int register(int ringFd, int opcode, long arg, int nrArgs) {
                int ret = real.register(ringFd, opcode, arg, nrArgs);
                if (opcode == RegisterOpcode.REGISTER_PROBE && ret >= 0) {
                    MemorySegment ops = MemorySegment.ofAddress(arg)
                            .reinterpret(RegisterArgLayout.PROBE_HEADER + RegisterArgLayout.PROBE_OP_SIZE * nrArgs);
                    ops.set(java.lang.foreign.ValueLayout.JAVA_SHORT, RegisterArgLayout.PROBE_HEADER
                            + RegisterArgLayout.PROBE_OP_SIZE * hidden + RegisterArgLayout.PROBE_OP_FLAGS, (short) 0);
                }
                return ret;
            }

            @Override
            public int close(int ringFd) {
                closed.add(ringFd);
                return real.close(ringFd);
            }
        };
    }

    @Test
    void aKernelLackingARequiredOpcodeThePortableEngineHasGivesWayWithOneLine() throws Exception {
        List<String> log = new ArrayList<>();
        List<Integer> closed = new ArrayList<>();
        Engine auto = new AutoEngine(kernelWithout(Opcode.STATX, closed), FallbackLookup::engine, log::add,
                new int[] {Opcode.READ, Opcode.STATX});
        try (IoUring ring = IoUring.builder().entries(8).engine(auto).build()) {
            assertThat(ring.engineUsed()).isSameAs(Engine.portable());
            assertThat(ring.register().probe().isSupported(Opcode.STATX)).isTrue();
            ring.sq().next().prepNop().userData(9);
            ring.submitAndWait(1);
            assertThat(ring.cq().peek().userData()).isEqualTo(9);
        }
        assertThat(closed).as("the kernel ring was closed again").hasSize(1);
        assertThat(log).hasSize(1);
        assertThat(log.get(0)).contains("lacks STATX", "using the portable engine", "-During4j.engine=");
    }

    @Test
    void anOpcodeNeitherEngineHasKeepsTheKernelSilently() throws Exception {
        List<String> log = new ArrayList<>();
        List<Integer> closed = new ArrayList<>();
        Engine auto = new AutoEngine(kernelWithout(Opcode.URING_CMD, closed), FallbackLookup::engine, log::add,
                new int[] {Opcode.URING_CMD});
        try (IoUring ring = IoUring.builder().entries(8).engine(auto).build()) {
            assertThat(ring.engineUsed().name()).isEqualTo("kernel");
            assertThat(closed).isEmpty();
        }
        assertThat(log).isEmpty();
    }

    @Test
    void aKernelWithEveryRequiredOpcodeIsKept() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).engine(Engine.auto(Opcode.READ, Opcode.STATX)).build()) {
            assertThat(ring.engineUsed()).isSameAs(Engine.kernel());
        }
    }
}
