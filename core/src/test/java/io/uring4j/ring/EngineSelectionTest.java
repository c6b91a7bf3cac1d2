package io.uring4j.ring;

import io.uring4j.portable.PortableEngine;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Engine#auto()}: each setup refusal the portable engine removes is injected through a fake kernel engine;
 * the ring must come from the portable engine, work, and leave exactly one log line naming cause and fix.
 */
class EngineSelectionTest {
    /** A kernel that refuses io_uring_setup with {@code errno}; nothing else may be called on it. */
    private static Engine refusingKernel(int errno) {
        return new Engine() {
            @Override
            public String name() {
                return "kernel";
            }

            @Override
            public int setup(int entries, MemorySegment params) {
                return -errno;
            }

            @Override
            public MemorySegment map(int ringFd, long offset, long size, Arena arena) {
                throw new AssertionError("map on a refused ring");
            }

            @Override
            public int enter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
                throw new AssertionError("enter on a refused ring");
            }

            @Override
            public int register(int ringFd, int opcode, long arg, int nrArgs) {
                throw new AssertionError("register on a refused ring");
            }

            @Override
            public int close(int ringFd) {
                throw new AssertionError("close on a refused ring");
            }
        };
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"EPERM, 1, seccomp", "ENOSYS, 38, CONFIG_IO_URING", "ENOMEM, 12, RLIMIT_MEMLOCK"})
    void aRefusedSetupFallsBackToThePortableEngineWithOneLine(String name, int errno, String fix) throws Exception {
        List<String> log = new ArrayList<>();
        Engine auto = new AutoEngine(refusingKernel(errno), PortableEngine.instance(), log::add);
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
        Engine auto = new AutoEngine(refusingKernel(Errno.EINVAL), PortableEngine.instance(), log::add);
        int errno = Rings.errnoOf(() -> IoUring.builder().entries(8).engine(auto).build());
        assertThat(errno).isEqualTo(Errno.EINVAL);
        assertThat(log).isEmpty();
    }

    @Test
    void aKernelThatAcceptsKeepsTheKernelEngineSilently() throws ErrnoException {
        List<String> log = new ArrayList<>();
        Engine auto = new AutoEngine(Engine.kernel(), PortableEngine.instance(), log::add);
        try (IoUring ring = IoUring.builder().entries(8).engine(auto).build()) {
            assertThat(ring.engineUsed()).isSameAs(Engine.kernel());
        }
        assertThat(log).isEmpty();
    }
}
