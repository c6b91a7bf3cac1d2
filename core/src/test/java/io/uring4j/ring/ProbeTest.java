package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterArgLayout;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/** liburing probe.c: IORING_REGISTER_PROBE reports the last opcode and which opcodes are supported. */
@BothEngines
class ProbeTest {
    @Test
    void coreOpcodesAreSupportedAndLastOpIsSane() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            Probe probe = ring.register().probe();
            assertThat(probe.isSupported(Opcode.NOP)).isTrue();
            assertThat(probe.isSupported(Opcode.READV)).isTrue();
            assertThat(probe.isSupported(Opcode.WRITE)).isTrue();

            assertThat(probe.lastOp()).isBetween((int) Opcode.WRITE, 254);
            assertThat(probe.isSupported(probe.lastOp() + 1)).isFalse();
            assertThat(probe.isSupported(0xfe)).isFalse();
            assertThat(probe.supportedNames()).startsWith("NOP", "READV", "WRITEV").contains("WRITE");
        }
    }

    @Test
    void probeOfKernelMatchesARingsProbe() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            Probe fromRing = ring.register().probe();
            Probe fromKernel = Probe.ofKernel();
            assertThat(fromKernel.lastOp()).isEqualTo(fromRing.lastOp());
            assertThat(fromKernel.supportedNames()).isEqualTo(fromRing.supportedNames());
        }
    }

    /** The raw call with room for no ops fills only the header: last_op set, ops_len 0. */
    @Test
    void aProbeWithNoOpsReportsOnlyLastOp() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment probe = Probe.allocate(arena);
            assertThat(ring.registerRaw(RegisterOpcode.REGISTER_PROBE, probe.address(), 0)).isZero();
            assertThat(probe.get(JAVA_BYTE, 0) & 0xff).as("last_op").isNotZero();
            assertThat(probe.get(JAVA_BYTE, 1)).as("ops_len").isZero();
        }
    }

    /** The kernel insists on a zeroed probe buffer. */
    @Test
    void aProbeBufferThatIsNotZeroedIsEINVAL() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment probe = Probe.allocate(arena);
            probe.set(JAVA_BYTE, RegisterArgLayout.PROBE_HEADER + 5, (byte) 1);
            assertThat(ring.registerRaw(RegisterOpcode.REGISTER_PROBE, probe.address(), Probe.OPS))
                    .isEqualTo(-Errno.EINVAL);
        }
    }
}
