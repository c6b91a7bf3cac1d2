package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.reapResults;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.onPlatformThread;
import static io.uring4j.ring.abi.OpFlags.Poll.POLLIN;
import static io.uring4j.ring.abi.OpFlags.Poll.POLLOUT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing poll-cancel.c, poll.c and poll-mshot-update.c: POLL_ADD / POLL_REMOVE by user_data, a pipe write
 * firing POLLIN, multishot polls (F_MORE on every CQE but the last), and updating a pending poll in place.
 */
@Timeout(30)
@BothEngines
class PollTest {
    @Test
    void pollRemoveCancelsThePollByUserData() throws Exception {
        try (IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            ring.sq().next().prepPollAdd(pipe.readFd(), POLLIN).userData(1);
            assertThat(ring.submit()).isEqualTo(1);
            ring.sq().next().prepPollRemove(1).userData(2);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reapResults(ring, 2)).containsEntry(1L, -Errno.ECANCELED).containsEntry(2L, 0);
        }
    }

    @Test
    void pollRemoveOfAnUnknownUserDataIsENOENT() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepPollRemove(77).userData(2);
            assertThat(submitAndReap(ring)).isEqualTo(cqe(2, -Errno.ENOENT));
        }
    }

    /** poll.c: the poll waits in this thread while another thread writes the pipe. */
    @Test
    void aWriteFromAnotherThreadFiresPollin() throws Exception {
        try (IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            ring.sq().next().prepPollAdd(pipe.readFd(), POLLIN).userData(1);
            ring.submit();
            assertThat(ring.peekCqe()).as("nothing to read yet").isNull();

            Thread writer = Thread.ofPlatform().start(() -> pipe.write((byte) 1));
            Completion cqe = reap(ring);
            writer.join();

            assertPollin(cqe, 1, false);        // a one-shot poll has no F_MORE
        }
    }

    @Test
    void aPollOnAnAlreadyReadyFdCompletesAtOnce() throws Exception {
        try (IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            pipe.write((byte) 1);
            ring.sq().next().prepPollAdd(pipe.readFd(), POLLIN | POLLOUT).userData(1);
            ring.submitAndWait(1);
            // The read end is readable and never writable: the mask reports exactly what is ready.
            assertThat(reapResults(ring, 1).get(1L) & (POLLIN | POLLOUT)).isEqualTo(POLLIN);
        }
    }

    @Test
    void aMultishotPollPostsOneCqeWithMorePerWakeUpAndAFinalOneWhenRemoved() throws Exception {
        try (IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            ring.sq().next().prepPollMultishot(pipe.readFd(), POLLIN).userData(1);
            ring.submit();

            for (int round = 0; round < 3; round++) {
                pipe.write((byte) round);
                assertPollin(reap(ring), 1, true);
                assertThat(pipe.read(1)).containsExactly(round);    // empty again: the next write is a new wake-up
            }
            assertThat(ring.peekCqe()).isNull();

            ring.sq().next().prepPollRemove(1).userData(2);
            ring.submit();
            List<Completion> last = reap(ring, 2);
            assertThat(last).filteredOn(c -> c.userData() == 2).singleElement()
                    .satisfies(c -> assertThat(c.res()).isZero());
            assertThat(last).filteredOn(c -> c.userData() == 1).singleElement().satisfies(c -> {
                assertThat(c.res()).isEqualTo(-Errno.ECANCELED);
                assertThat(c.hasMore()).as("the terminating CQE has no F_MORE").isFalse();
            });
        }
    }

    /** The read end of a pipe is never POLLOUT: the original poll cannot fire until the update makes it POLLIN. */
    @Test
    void pollUpdateReplacesEventsAndUserData() throws Exception {
        Rings.kernelOnly("poll updates are not implemented");
        try (IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            ring.sq().next().prepPollAdd(pipe.readFd(), POLLOUT).userData(1);
            ring.submit();
            ring.sq().next().prepPollUpdate(1, 2, POLLIN,
                    OpFlags.Poll.UPDATE_EVENTS | OpFlags.Poll.UPDATE_USER_DATA).userData(3);
            assertThat(submitAndReap(ring)).isEqualTo(cqe(3, 0));
            assertThat(ring.peekCqe()).isNull();

            pipe.write((byte) 1);
            assertPollin(reap(ring), 2, false);     // the poll now answers to its new user_data
        }
    }

    @Test
    void pollUpdateWithANewUserDataButNoUpdateUserDataFlagIsEINVAL() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepPollUpdate(41, 42, POLLIN, OpFlags.Poll.UPDATE_EVENTS).userData(3);
            assertThat(submitAndReap(ring)).isEqualTo(cqe(3, -Errno.EINVAL));
        }
    }

    @Test
    void pollUpdateOfAnUnknownUserDataIsENOENT() throws Exception {
        Rings.kernelOnly("poll updates are not implemented");
        try (IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepPollUpdate(41, 0, POLLIN, OpFlags.Poll.UPDATE_EVENTS).userData(3);
            assertThat(submitAndReap(ring)).isEqualTo(cqe(3, -Errno.ENOENT));
        }
    }

    /**
     * poll-mshot-update.c: an events update of a multishot poll keeps it multishot. POLLOUT never fires on a
     * pipe's read end, so the CQEs below come from the updated mask.
     */
    @Test
    void anEventsUpdateKeepsAMultishotPollMultishot() throws Exception {
        Rings.kernelOnly("poll updates are not implemented");
        try (IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            ring.sq().next().prepPollMultishot(pipe.readFd(), POLLOUT).userData(1);
            ring.submit();
            // newUserData must stay 0 without UPDATE_USER_DATA: the kernel refuses it with EINVAL.
            ring.sq().next().prepPollUpdate(1, 0, POLLIN, OpFlags.Poll.UPDATE_EVENTS).userData(3);
            assertThat(submitAndReap(ring)).isEqualTo(cqe(3, 0));

            for (int round = 0; round < 2; round++) {
                pipe.write((byte) round);
                assertPollin(reap(ring), 1, true);
                assertThat(pipe.read(1)).containsExactly(round);
            }
            ring.sq().next().prepPollRemove(1).userData(2);
            ring.submit();
            assertThat(reapResults(ring, 2)).containsEntry(1L, -Errno.ECANCELED).containsEntry(2L, 0);
        }
    }

    /**
     * The kernel replaces only the event bits on update and keeps the one-shot/multishot behaviour (checked on
     * 6.18): ADD_MULTI in an update is accepted but does not turn a one-shot poll into a multishot one.
     */
    @Test
    void anEventsUpdateKeepsAOneShotPollOneShotEvenWithAddMulti() throws Exception {
        Rings.kernelOnly("poll updates are not implemented");
        try (IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            ring.sq().next().prepPollAdd(pipe.readFd(), POLLOUT).userData(1);
            ring.submit();
            ring.sq().next().prepPollUpdate(1, 0, POLLIN, OpFlags.Poll.UPDATE_EVENTS | OpFlags.Poll.ADD_MULTI)
                    .userData(3);
            assertThat(submitAndReap(ring)).isEqualTo(cqe(3, 0));

            pipe.write((byte) 1);
            assertPollin(reap(ring), 1, false);
        }
    }

    /** A poll armed by one thread fires for a write while the ring is reaped by another: the CQE is the ring's. */
    @Test
    void aPollArmedOnAnotherThreadCompletesIntoTheSameRing() throws Exception {
        try (IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            int submitted = onPlatformThread(() -> {
                ring.sq().next().prepPollAdd(pipe.readFd(), POLLIN).userData(9);
                return ring.submit();
            });
            assertThat(submitted).isEqualTo(1);
            pipe.write((byte) 1);
            assertThat(reapResults(ring, 1).get(9L) & POLLIN).isEqualTo(POLLIN);
        }
    }

    /** The CQE of a poll that fired for POLLIN: its user_data, POLLIN in the mask, and F_MORE or not. */
    private static void assertPollin(Completion cqe, long userData, boolean more) {
        assertThat(cqe.userData()).as("%s", cqe).isEqualTo(userData);
        assertThat(cqe.res() & POLLIN).as("POLLIN in %s", cqe).isEqualTo(POLLIN);
        assertThat(cqe.hasMore()).as("F_MORE on %s", cqe).isEqualTo(more);
    }
}
