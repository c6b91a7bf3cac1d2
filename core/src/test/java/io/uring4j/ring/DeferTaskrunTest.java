package io.uring4j.ring;

import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;

import static io.uring4j.ring.Reap.reapResults;
import static io.uring4j.ring.Rings.onPlatformThread;
import static io.uring4j.ring.Rings.openOrSkip;
import static io.uring4j.ring.abi.OpFlags.Poll.POLLIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * liburing defer-taskrun.c: on a SINGLE_ISSUER|DEFER_TASKRUN ring, completions that need task work (a poll that
 * fires) are queued for the issuer and stay out of the CQ until the issuer enters with GETEVENTS. A wake-up
 * queues the work synchronously in the waker's context, so "not in the CQ yet" is deterministic here.
 */
@Timeout(30)
@BothEngines
class DeferTaskrunTest {
    @BeforeAll
    static void kernelHasDeferTaskrun() throws ErrnoException {
        try (IoUring ring = openOrSkip(2, SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN)) {
            assertThat(ring.setupFlags() & SetupFlags.DEFER_TASKRUN).isNotZero();
        }
    }

    @Test
    void aFiredPollIsInvisibleUntilGetEvents() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).deferTaskrun().build(); Pipe pipe = Pipe.open()) {
            ring.sq().next().prepPollAdd(pipe.readFd(), POLLIN).userData(1);
            ring.submit();
            pipe.write((byte) 1);

            assertThat(ring.cq().ready()).as("task work queued, not run").isZero();
            assertThat(ring.getEvents()).isZero();
            assertThat(ring.cq().ready()).isEqualTo(1);
            assertThat(reapResults(ring, 1).get(1L) & POLLIN).isEqualTo(POLLIN);
        }
    }

    /**
     * A registered eventfd: a pending poll does not signal it, an inline NOP completion does, and a fired poll
     * signals "work pending" although its CQE is not in the CQ until getEvents.
     */
    @Test
    void theRegisteredEventfdSignalsPendingWorkBeforeTheCqeIsPosted() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).deferTaskrun().build();
             EventFd notify = EventFd.open(LibC.EFD_NONBLOCK); EventFd target = EventFd.open(LibC.EFD_NONBLOCK)) {
            ring.register().eventfd(notify.fd());

            ring.sq().next().prepPollAdd(target.fd(), POLLIN).userData(1);
            ring.submit();
            assertThat(notify.read()).as("a pending poll posts nothing").isEqualTo(-Errno.EAGAIN);

            ring.sq().next().prepNop().userData(2);
            ring.submit();
            assertThat(notify.read()).as("the NOP completed inline and signalled").isPositive();
            assertThat(reapResults(ring, 1)).containsExactlyEntriesOf(Map.of(2L, 0));

            target.add(1);
            assertThat(notify.awaitSignal()).isPositive();
            assertThat(ring.cq().ready()).isZero();
            ring.getEvents();
            assertThat(ring.cq().ready()).isEqualTo(1);
            assertThat(reapResults(ring, 1).get(1L) & POLLIN).isEqualTo(POLLIN);
        }
    }

    /** With TASKRUN_FLAG the kernel raises IORING_SQ_TASKRUN, so a plain peekCqe knows to enter. */
    @Test
    void theTaskrunFlagMakesPeekCqeEnterAndFindTheCqe() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).deferTaskrun().taskrunFlag().build();
             EventFd target = EventFd.open(LibC.EFD_NONBLOCK)) {
            ring.sq().next().prepPollAdd(target.fd(), POLLIN).userData(1);
            ring.submit();
            if (!Rings.portable()) {
                // Intended difference: the portable engine learns of readiness only when the issuer enters
                // (epoll_wait), so its flag is up while anything is armed — "enter to find out".
                assertThat(ring.sq().kernelFlags() & SqRingFlags.TASKRUN).isZero();
            }

            target.add(1);
            assertThat(ring.cq().ready()).isZero();
            assertThat(ring.sq().kernelFlags() & SqRingFlags.TASKRUN).isNotZero();

            Cqe cqe = ring.peekCqe();
            assertThat(cqe).isNotNull();
            assertThat(cqe.userData()).isEqualTo(1);
            assertThat(cqe.res() & POLLIN).isEqualTo(POLLIN);
            assertThat(ring.sq().kernelFlags() & SqRingFlags.TASKRUN).isZero();
        }
    }

    /**
     * test_thread_shutdown: a disabled ring refuses to run (EBADFD). The thread that enables it becomes its
     * issuer; after that thread is gone, the creator is still refused with EEXIST, for getEvents and for waits.
     */
    @Test
    void theThreadThatEnablesADisabledRingBecomesItsIssuer() throws Exception {
        try (Arena arena = Arena.ofConfined();
             IoUring ring = IoUring.builder().entries(8).deferTaskrun().disabled().build();
             EventFd efd = EventFd.open(0)) {
            assertThatThrownBy(ring::getEvents).isInstanceOfSatisfying(ErrnoException.class, e -> {
                assertThat(e.errno()).isEqualTo(Errno.EBADFD);
                assertThat(e.getMessage()).contains("io_uring_enter", "EBADFD", "enableRings");
            });

            MemorySegment value = arena.allocate(8);
            int submitted = onPlatformThread(() -> {
                ring.register().enableRings();
                ring.sq().next().prepRead(efd.fd(), value, 0).userData(1);
                return ring.submit();
            });
            assertThat(submitted).isEqualTo(1);

            assertThatThrownBy(ring::getEvents).isInstanceOfSatisfying(ErrnoException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EEXIST));
            efd.add(1);     // completes the read: its CQE now waits for an issuer that no longer exists
            assertThatThrownBy(ring::waitCqe).isInstanceOfSatisfying(ErrnoException.class, e -> {
                assertThat(e.errno()).isEqualTo(Errno.EEXIST);
                assertThat(e.getMessage()).contains("EEXIST", "SINGLE_ISSUER");
            });
        }
    }

    @Test
    void anotherThreadCannotRunTheIssuersTaskWork() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).deferTaskrun().build(); Pipe pipe = Pipe.open()) {
            ring.sq().next().prepPollAdd(pipe.readFd(), POLLIN).userData(1);
            ring.submit();
            pipe.write((byte) 1);

            assertThatThrownBy(() -> onPlatformThread(ring::getEvents)).isInstanceOfSatisfying(ErrnoException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EEXIST));
            assertThat(ring.cq().ready()).isZero();
            assertThat(reapResults(ring, 1).get(1L) & POLLIN).isEqualTo(POLLIN);
        }
    }

    /** test_ring_shutdown: closing a ring whose fired read still waits for task work must not hang. */
    @Test
    void closingWithPendingTaskWorkDoesNotHang() throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open()) {
            IoUring ring = IoUring.builder().entries(8).deferTaskrun().taskrunFlag().build();
            ring.sq().next().prepRead(pipe.readFd(), arena.allocate(1), 0).userData(1);
            ring.submit();
            pipe.write((byte) 'X');
            assertThat(ring.cq().ready()).isZero();
            assertThat(ring.sq().kernelFlags() & SqRingFlags.TASKRUN).isNotZero();

            ring.close();       // bounded by the class timeout
            assertThat(ring.isOpen()).isFalse();
        }
    }
}
