package io.uring4j.ring;

import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.testkit.BothEngines;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** liburing nop.c: single NOPs, a batch with a drain in the middle, injected results, under several ring configs. */
@BothEngines
class NopTest {
    @ParameterizedTest(name = "setup flags {0}")
    @ValueSource(ints = {0, SetupFlags.SQE128, SetupFlags.CQE32, SetupFlags.SQE128 | SetupFlags.CQE32,
        SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN})
    void nopsCompleteWithTheirUserData(int flags) throws Exception {
        Rings.kernelOnlyFlags(flags);
        try (IoUring ring = IoUring.builder().entries(8).flags(flags).build()) {
            for (int round = 0; round < 200; round++) {
                int async = (round & 1) == 0 ? 0 : SqeFlags.ASYNC;
                ring.sq().next().prepNop().userData(1).addFlags(async);
                assertThat(ring.submitAndWait(1)).isEqualTo(1);
                Cqe cqe = ring.waitCqe();
                assertThat(cqe.userData()).isEqualTo(1);
                assertThat(cqe.res()).isZero();
                if ((flags & SetupFlags.CQE32) != 0) {
                    assertThat(cqe.bigCqe(0)).isZero();
                    assertThat(cqe.bigCqe(1)).isZero();
                }
                ring.cq().seen(cqe);

                for (int i = 0; i < 8; i++) {
                    Sqe sqe = ring.sq().next().prepNop().userData(10 + i).addFlags(async);
                    if (i == 4) {
                        sqe.addFlags(SqeFlags.IO_DRAIN);
                    }
                }
                assertThat(ring.submitAndWait(8)).isEqualTo(8);
                List<Long> seen = new ArrayList<>();
                ring.cq().drain(c -> {
                    assertThat(c.res()).isZero();
                    seen.add(c.userData());
                });
                assertThat(seen).containsExactlyInAnyOrder(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L);

                ring.sq().next().prepNop(-io.uring4j.sys.Errno.EFAULT).userData(99);
                ring.submitAndWait(1);
                cqe = ring.waitCqe();
                assertThat(cqe.userData()).isEqualTo(99);
                assertThat(cqe.res()).isEqualTo(-io.uring4j.sys.Errno.EFAULT);
                ring.cq().seen(cqe);
            }
        }
    }
}
