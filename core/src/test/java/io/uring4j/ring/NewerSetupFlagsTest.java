package io.uring4j.ring;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.ParamsLayout;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Setup flags of 6.13 and later: CQE_MIXED (6.18), HYBRID_IOPOLL (6.13), and SQE_MIXED / SQ_REWIND, which
 * 6.18 refuses — each accepted where the kernel has it, or refused with EINVAL and the kernel that brings it.
 */
class NewerSetupFlagsTest {
    /** Whether the kernel accepts {@code flags} for a bare ring, asked without the builder's NO_SQARRAY retry. */
    private static int rawSetup(int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(ParamsLayout.SIZE, 8);
            params.set(JAVA_INT, ParamsLayout.FLAGS, flags);
            int fd = Engine.kernel().setup(4, params);
            if (fd >= 0) {
                Engine.kernel().close(fd);
                return 0;
            }
            return fd;
        }
    }

    @Test
    void aMixedCqCarriesSmallAndBigCqesAcrossItsWrap() throws Exception {
        try (IoUring ring = Rings.openOrSkip(4, SetupFlags.CQE_MIXED)) {
            assertThat(ring.setupFlags() & SetupFlags.CQE_MIXED).isNotZero();
            assertThat(ring.cqEntries()).isEqualTo(8);
            List<Long> seen = new ArrayList<>();
            long userData = 0;
            for (int round = 0; round < 8; round++) {   // 1 small + 1 big = 3 slots of 8: a big one lands on the wrap
                ring.sq().next().prepNop().userData(++userData);
                ring.sq().next().prepNop().opFlags(OpFlags.Nop.CQE32).userData(++userData);
                ring.submitAndWait(2);
                for (int i = 0; i < 2; i++) {
                    Cqe cqe = ring.waitCqe();
                    assertThat(cqe.res()).isZero();
                    assertThat((cqe.flags() & CqeFlags.F_32) != 0).as("CQE %d is big", cqe.userData())
                            .isEqualTo(cqe.userData() % 2 == 0);
                    seen.add(cqe.userData());
                    ring.cq().seen(cqe);
                }
            }
            assertThat(seen).as("every CQE once, in order; padding skipped").hasSize(16)
                    .isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
        }
    }

    @Test
    void hybridIopollIsAcceptedWhereTheKernelHasIt() throws Exception {
        int ret = rawSetup(SetupFlags.IOPOLL | SetupFlags.HYBRID_IOPOLL);
        assumeTrue(ret != -Errno.EINVAL, "kernel lacks HYBRID_IOPOLL (6.13)");
        assertThat(ret).isZero();
        try (IoUring ring = IoUring.builder().entries(4).hybridIopoll().build()) {
            assertThat(ring.setupFlags() & SetupFlags.HYBRID_IOPOLL).isNotZero();
        }
    }

    @Test
    void flagsNewerThanTheKernelAreRefusedNamingTheKernelThatBringsThem() {
        for (int flag : new int[] {SetupFlags.SQE_MIXED, SetupFlags.SQ_REWIND | SetupFlags.NO_SQARRAY}) {
            int ret = rawSetup(flag);
            if (ret == 0) {
                continue;       // a kernel newer than 6.18: the next test covers SQ_REWIND there
            }
            assertThat(ret).as(SetupFlags.toString(flag)).isEqualTo(-Errno.EINVAL);
            ErrnoException refused = catchThrowableOfType(ErrnoException.class,
                    () -> IoUring.builder().entries(4).flags(flag).build().close());
            assertThat(refused.errno()).isEqualTo(Errno.EINVAL);
            assertThat(refused.getMessage()).contains(SetupFlags.name(Integer.lowestOneBit(flag & ~SetupFlags.NO_SQARRAY)))
                    .containsPattern("needs (6\\.19|7\\.0)");
        }
    }

    @Test
    void sqRewindIsNeverHandedOutSinceOurSqDoesNotFollowIt() {
        ErrnoException refused = catchThrowableOfType(ErrnoException.class,
                () -> IoUring.builder().entries(4).flags(SetupFlags.SQ_REWIND | SetupFlags.NO_SQARRAY).build().close());
        assertThat(refused).isNotNull();
        assertThat(refused.errno()).isIn(Errno.EINVAL, Errno.EOPNOTSUPP);
    }
}
