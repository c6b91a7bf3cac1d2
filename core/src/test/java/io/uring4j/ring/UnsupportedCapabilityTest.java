package io.uring4j.ring;

import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;

import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.errnoOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What an engine lacks, it refuses exactly as a kernel that predates it: an unknown opcode completes with
 * -EINVAL and the probe says unsupported, an unknown register opcode, setup flag or enter flag is EINVAL. On
 * this kernel (6.18) that holds for what 6.19 brings (NOP128, URING_CMD128, ZCRX_CTRL, BPF_FILTER, SQE_MIXED,
 * SQ_REWIND); on the portable engine for everything after 6.11 it does not implement.
 */
@BothEngines
class UnsupportedCapabilityTest {
    /** The kernel's own account, or null: on the portable engine, or before 6.18. */
    private static Query kernelQuery() {
        if (Rings.portable()) {
            return null;
        }
        try {
            return Query.ofKernel();
        } catch (ErrnoException e) {
            return null;
        }
    }

    /** URING_CMD, opcodes 49..61 (6.7-6.15), and 63 NOP128 / 64 URING_CMD128 (6.19, newer than this kernel). */
    @ParameterizedTest(name = "opcode {0}")
    @ValueSource(ints = {46, 49, 50, 51, 52, 53, 58, 59, 60, 61, 63, 64})
    void anOpcodeTheEngineLacksCompletesWithEinval(int opcode) throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            Probe probe = ring.register().probe();
            assumeTrue(!probe.isSupported(opcode), () -> Opcode.name(opcode) + " is supported here: its own test covers it");
            ring.sq().next().prepRw((byte) opcode, -1, 0, 0, 0).userData(1);
            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, -Errno.EINVAL));
        }
    }

    /** NAPI (6.9) through QUERY (6.18), ZCRX_CTRL and BPF_FILTER (newer than 6.18). */
    @ParameterizedTest(name = "register opcode {0}")
    @ValueSource(ints = {27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37})
    void aRegisterOpcodeTheEngineLacksIsEinval(int opcode) throws Exception {
        Query query = kernelQuery();
        assumeTrue(Rings.portable() || (query != null && !query.hasRegisterOpcode(opcode)),
                "the kernel has this register opcode: its own test covers it");
        try (IoUring ring = IoUring.open(4)) {
            assertThat(ring.registerRaw(opcode, 0, 0)).isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void thePortableEngineRefusesTheTypedCallsByName() throws Exception {
        assumeTrue(Rings.portable(), "the kernel has them: ClockAndCloneTest, WaitRegionTest, QueryTest, ZeroCopyRecvTest");
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4); IoUring other = IoUring.open(4);
             IoUring disabled = IoUring.builder().entries(4).disabled().build()) {
            MemorySegment page = arena.allocate(4096, 4096);
            assertRefused(() -> ring.register().clock(1), "REGISTER_CLOCK");
            assertRefused(() -> ring.register().cloneBuffers(other, 0, 0, 0, 0), "REGISTER_CLONE_BUFFERS");
            assertRefused(() -> disabled.register().waitRegion(1), "REGISTER_MEM_REGION");
            assertRefused(() -> ring.register().query(), "REGISTER_QUERY");
            assertRefused(() -> ring.register().zcrxIfq(1, 0, 64, page, page), "REGISTER_ZCRX_IFQ");
            assertRefused(() -> ring.register().napi(10, false), "REGISTER_NAPI");
            BitSet cpu0 = new BitSet();
            cpu0.set(0);
            assertRefused(() -> ring.register().iowqAffinity(cpu0), "REGISTER_IOWQ_AFF");
            // Tags would be silently ignored (no CQE when a slot is replaced): refused instead.
            assertRefused(() -> ring.register().filesTagged(new int[] {-1}, new long[] {7}), "REGISTER_FILES2");
            ring.register().filesSparse(1);
            assertRefused(() -> ring.register().updateFilesTagged(0, new int[] {-1}, new long[] {7}),
                    "REGISTER_FILES_UPDATE2");

            ring.iowait(false);     // no FEAT_NO_IOWAIT here: a no-op, and waits still work
            assertThat(ring.waitCqes(1, TimeUnit.MILLISECONDS.toNanos(5))).isNull();
        }
    }

    /** 6.17's multishot recv total (optlen) would be ignored, and the request never end: refused instead. */
    @Test
    void thePortableEngineRefusesARecvTotalAsA616KernelWould() throws Exception {
        assumeTrue(Rings.portable(), "the kernel has it: NetLimitsAndVectorsTest");
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena); IoUring ring = IoUring.open(4);
             BufferRing br = ring.register().bufferRing(4, 9, 0)) {
            int[] pair = net.unixPair(Sockets.SOCK_STREAM);
            br.add(arena.allocate(64), 0, 0);
            br.advance(1);
            net.write(pair[0], "data");
            ring.sq().next().prepRecvMultishot(pair[1], 0, 0, 4096).bufferSelect(9).userData(1);
            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, -Errno.EINVAL));
        }
    }

    private static void assertRefused(ThrowingCallable call, String opcode) {
        ErrnoException refused = catchThrowableOfType(ErrnoException.class, call);
        assertThat(refused).as(opcode).isNotNull();
        assertThat(refused.errno()).isEqualTo(Errno.EINVAL);
        assertThat(refused.getMessage()).contains(opcode);
    }

    @ParameterizedTest(name = "setup flags {0}")
    @ValueSource(ints = {SetupFlags.CQE_MIXED, SetupFlags.IOPOLL | SetupFlags.HYBRID_IOPOLL, SetupFlags.SQE_MIXED,
        SetupFlags.SQ_REWIND | SetupFlags.NO_SQARRAY})
    void aSetupFlagTheEngineLacksIsEinval(int flags) {
        Query query = kernelQuery();
        assumeTrue(Rings.portable() || (query != null && !query.acceptsSetupFlags(flags)),
                () -> "the kernel accepts " + SetupFlags.toString(flags) + ": its own test covers it");
        assertThat(errnoOf(() -> IoUring.builder().entries(4).flags(flags).build().close())).isEqualTo(Errno.EINVAL);
    }

    @ParameterizedTest(name = "enter flag {0}")
    @ValueSource(ints = {EnterFlags.ABS_TIMER, EnterFlags.EXT_ARG_REG, EnterFlags.NO_IOWAIT})
    void anEnterFlagTheEngineLacksIsEinval(int flag) throws Exception {
        Query query = kernelQuery();
        assumeTrue(Rings.portable() || (query != null && !query.acceptsEnterFlags(flag)),
                "the kernel accepts this enter flag: its own test covers it");
        try (IoUring ring = IoUring.open(4)) {
            assertThat(ring.enter(0, 0, flag, 0, 0)).isEqualTo(-Errno.EINVAL);
        }
    }
}
