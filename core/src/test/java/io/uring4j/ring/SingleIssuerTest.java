package io.uring4j.ring;

import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.reapResults;
import static io.uring4j.ring.Rings.onPlatformThread;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * liburing single-issuer.c: a SINGLE_ISSUER ring accepts submissions only from its issuer task — the creator,
 * or for an R_DISABLED ring the thread that enables it. The kernel tracks tasks, which in Java means OS threads:
 * liburing's forked child becomes a second platform thread here.
 */
@Timeout(30)
@BothEngines
class SingleIssuerTest {
    @Test
    void theCreatorSubmitsAndReaps() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).singleIssuer().build()) {
            assertThat(trySubmitNop(ring, 42)).isEqualTo(0);
        }
    }

    @Test
    void anotherThreadIsRefusedWithEEXISTNamingSingleIssuer() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).singleIssuer().build()) {
            assertThatThrownBy(() -> onPlatformThread(() -> trySubmitNop(ring, 43)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> {
                        assertThat(e.errno()).isEqualTo(Errno.EEXIST);
                        assertThat(e.errnoName()).isEqualTo("EEXIST");
                        assertThat(e.operation()).isEqualTo("io_uring_enter");
                        assertThat(e.getMessage()).contains("io_uring_enter", "EEXIST", "SINGLE_ISSUER");
                    });

            // The refused SQE was published but not consumed: the issuer's next submit sends it.
            assertThat(ring.sq().ready()).isEqualTo(1);
            assertThat(ring.submitAndWait(1)).isEqualTo(1);
            assertThat(reapResults(ring, 1)).containsExactlyEntriesOf(Map.of(43L, 0));
        }
    }

    @Test
    void aDisabledRingRefusesSubmissionsUntilEnabled() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).singleIssuer().disabled().build()) {
            assertThatThrownBy(() -> trySubmitNop(ring, 1)).isInstanceOfSatisfying(ErrnoException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EBADFD));
        }
    }

    @Test
    void theThreadThatEnablesADisabledRingIsItsIssuer() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).singleIssuer().disabled().build()) {
            int res = onPlatformThread(() -> {
                ring.register().enableRings();
                return trySubmitNop(ring, 44);
            });
            assertThat(res).isZero();

            assertThatThrownBy(() -> trySubmitNop(ring, 45)).isInstanceOfSatisfying(ErrnoException.class, e -> {
                assertThat(e.errno()).isEqualTo(Errno.EEXIST);
                // The message names the enabling thread as the issuer, not the creator.
                assertThat(e.getMessage()).contains("SINGLE_ISSUER", "issuer: Thread[#", "uring4j-other-issuer");
            });
        }
    }

    @Test
    void whenTheCreatorEnablesTheRingOtherThreadsAreRefused() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).singleIssuer().disabled().build()) {
            ring.register().enableRings();
            assertThatThrownBy(() -> onPlatformThread(() -> trySubmitNop(ring, 46)))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EEXIST));
            assertThat(ring.submitAndWait(1)).isEqualTo(1);
            assertThat(reapResults(ring, 1)).containsExactlyEntriesOf(Map.of(46L, 0));
        }
    }

    /** Under SQPOLL the kernel thread is the only real submitter, so any thread may queue work. */
    @Test
    void anyThreadMaySubmitToAnSqpollSingleIssuerRing() throws Exception {
        Rings.kernelOnlyFlags(SetupFlags.SQPOLL);
        try (IoUring ring = IoUring.builder().entries(8).singleIssuer().sqpoll(100).build()) {
            assertThat(trySubmitNop(ring, 47)).isZero();
            assertThat((int) onPlatformThread(() -> trySubmitNop(ring, 48))).isZero();
        }
    }

    /** The kernel applies the issuer rule to io_uring_register too (since 6.1). */
    @Test
    void registrationFromAnotherThreadIsRefusedWithEEXIST() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).singleIssuer().build();
             EventFd efd = EventFd.open(0)) {
            assertThatThrownBy(() -> onPlatformThread(() -> {
                ring.register().eventfd(efd.fd());
                return null;
            })).isInstanceOfSatisfying(ErrnoException.class, e -> {
                assertThat(e.errno()).isEqualTo(Errno.EEXIST);
                assertThat(e.getMessage()).contains("REGISTER_EVENTFD", "SINGLE_ISSUER");
            });
            ring.register().eventfd(efd.fd());
        }
    }

    /** Submits NOP {@code userData}, waits for its CQE and returns its result; enter failures throw. */
    private static int trySubmitNop(IoUring ring, long userData) throws Exception {
        ring.sq().next().prepNop().userData(userData);
        assertThat(ring.submit()).isEqualTo(1);
        Completion cqe = reap(ring);
        assertThat(cqe.userData()).isEqualTo(userData);
        return cqe.res();
    }
}
