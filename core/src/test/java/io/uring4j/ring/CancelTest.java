package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.uring4j.ring.Reap.reapResults;
import static io.uring4j.ring.Rings.onPlatformThread;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing io-cancel.c: IORING_OP_ASYNC_CANCEL by user_data, of pipe reads (poll-armed inline, or punted to
 * io-wq with IOSQE_ASYNC) and of polls; a cancel from another thread of the same ring; a cancel on another ring;
 * requests left behind by a thread that exits.
 *
 * <p>A cancelled read ends with -ECANCELED, or -EINTR when an io-wq worker was already running it; the cancel
 * itself ends with 0, or -EALREADY in that running case.
 */
@Timeout(30)
@BothEngines
class CancelTest {
    @ParameterizedTest(name = "IOSQE_ASYNC read: {0}")
    @ValueSource(booleans = {false, true})
    void cancelsAPendingPipeReadByUserData(boolean asyncRead) throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            MemorySegment buf = arena.allocate(16);
            ring.sq().next().prepRead(pipe.readFd(), buf, 0).userData(1).addFlags(asyncRead ? SqeFlags.ASYNC : 0);
            assertThat(ring.submit()).isEqualTo(1);

            ring.sq().next().prepCancel(1, 0).userData(2);
            assertThat(ring.submit()).isEqualTo(1);
            Map<Long, Integer> results = reapResults(ring, 2);

            if (asyncRead) {
                // An io-wq worker may be mid-attempt when the cancel arrives: it is interrupted instead.
                assertThat(results.get(1L)).isIn(-Errno.ECANCELED, -Errno.EINTR);
                assertThat(results.get(2L)).isIn(0, -Errno.EALREADY);
            } else {
                // Armed as an internal poll during submit: found and cancelled at once.
                assertThat(results).containsEntry(1L, -Errno.ECANCELED).containsEntry(2L, 0);
            }
            // The cancelled read consumed nothing: bytes written now stay in the pipe for us.
            pipe.write((byte) 'x');
            assertThat(pipe.read(16)).containsExactly('x');
            assertThat(ring.peekCqe()).isNull();
        }
    }

    @Test
    void cancelsAPendingPollByUserData() throws Exception {
        try (IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            ring.sq().next().prepPollAdd(pipe.readFd(), OpFlags.Poll.POLLIN).userData(1);
            ring.sq().next().prepCancel(1, 0).userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            Map<Long, Integer> results = reapResults(ring, 2);
            assertThat(results).containsEntry(1L, -Errno.ECANCELED).containsEntry(2L, 0);
        }
    }

    @Test
    void cancellingAnUnknownUserDataIsENOENT() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepCancel(12345, 0).userData(2);
            ring.submitAndWait(1);
            assertThat(reapResults(ring, 1)).containsExactlyEntriesOf(Map.of(2L, -Errno.ENOENT));
        }
    }

    @Test
    void cancellingByAClosedFdIsEbadf() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            int fd;
            try (Pipe pipe = Pipe.open()) {
                fd = pipe.readFd();
            }
            ring.sq().next().prepCancelFd(fd, OpFlags.Cancel.ALL).userData(2);
            ring.submitAndWait(1);
            assertThat(reapResults(ring, 1)).containsExactlyEntriesOf(Map.of(2L, -Errno.EBADF));
        }
    }

    /** With ALL or ANY the result is the number cancelled: 0, not -ENOENT, when nothing matched. */
    @Test
    void cancellingAllOfNothingCountsZero() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepCancel(12345, OpFlags.Cancel.ALL).userData(2);
            ring.sq().next().prepCancel(0, OpFlags.Cancel.ANY).userData(3);
            ring.submitAndWait(2);
            assertThat(reapResults(ring, 2)).containsExactlyInAnyOrderEntriesOf(Map.of(2L, 0, 3L, 0));
        }
    }

    /**
     * Eight reads, one per pipe; the even ones are cancelled, then every odd pipe gets 8 bytes: the survivors
     * must return exactly those 8 bytes (liburing's do_partial variant: cancellation is per request).
     */
    @ParameterizedTest(name = "IOSQE_ASYNC on the cancels: {0}")
    @ValueSource(booleans = {false, true})
    void cancellingEvenReadsLeavesTheOddOnesToCompleteInFull(boolean asyncCancel) throws Exception {
        int n = 8;
        List<Pipe> pipes = new ArrayList<>();
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(32)) {
            MemorySegment bufs = arena.allocate(8L * n);
            for (int i = 0; i < n; i++) {
                pipes.add(Pipe.open());
                ring.sq().next().prepRead(pipes.get(i).readFd(), bufs.asSlice(8L * i, 8), 0).userData(i + 1);
            }
            assertThat(ring.submit()).isEqualTo(n);

            for (int i = 2; i <= n; i += 2) {
                ring.sq().next().prepCancel(i, 0).userData(100 + i).addFlags(asyncCancel ? SqeFlags.ASYNC : 0);
            }
            assertThat(ring.submit()).isEqualTo(n / 2);
            Map<Long, Integer> cancelled = reapResults(ring, n);       // 4 cancels + 4 cancelled reads
            for (long i = 2; i <= n; i += 2) {
                // The reads were armed as internal polls during submit, so each cancel finds its read waiting.
                assertThat(cancelled).containsEntry(i, -Errno.ECANCELED).containsEntry(100 + i, 0);
            }
            assertThat(ring.cq().ready()).isZero();

            for (int i = 1; i <= n; i += 2) {
                pipes.get(i - 1).write(new byte[] {(byte) i, 1, 2, 3, 4, 5, 6, 7});
            }
            Map<Long, Integer> completed = reapResults(ring, n / 2);
            for (long i = 1; i <= n; i += 2) {
                assertThat(completed).containsEntry(i, 8);
                assertThat(bufs.get(JAVA_BYTE, 8 * (i - 1))).isEqualTo((byte) i);
            }
        } finally {
            pipes.forEach(Pipe::close);
        }
    }

    /** liburing's cancel "across fork": the read belongs to this thread, the cancel is submitted by another. */
    @Test
    void anotherThreadCanCancelThisThreadsRead() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            MemorySegment buf = arena.allocate(10);
            ring.sq().next().prepRead(pipe.readFd(), buf, 0).userData(1).addFlags(SqeFlags.ASYNC);
            ring.submit();

            // Handing the ring to the other thread and back (start/join) orders every access to it.
            int submitted = onPlatformThread(() -> {
                ring.sq().next().prepCancel(1, 0).userData(2);
                return ring.submit();
            });
            assertThat(submitted).isEqualTo(1);

            Map<Long, Integer> results = reapResults(ring, 2);
            assertThat(results.get(1L)).isIn(-Errno.ECANCELED, -Errno.EINTR);
            assertThat(results.get(2L)).isIn(0, -Errno.EALREADY);
        }
    }

    @Test
    void aCancelOnAnotherRingIsENOENTAndLeavesTheRequestAlone() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring1 = IoUring.open(8); IoUring ring2 = IoUring.open(8);
             Pipe pipe = Pipe.open()) {
            MemorySegment buf = arena.allocate(10);
            ring1.sq().next().prepRead(pipe.readFd(), buf, 0).userData(1).addFlags(SqeFlags.ASYNC);
            ring1.submit();

            ring2.sq().next().prepCancel(1, 0).userData(2);
            ring2.submitAndWait(1);
            assertThat(reapResults(ring2, 1)).containsExactlyEntriesOf(Map.of(2L, -Errno.ENOENT));

            // ring1's read is still pending, and still works: it gets the byte written now.
            assertThat(ring1.peekCqe()).isNull();
            pipe.write((byte) 'y');
            assertThat(reapResults(ring1, 1)).containsExactlyEntriesOf(Map.of(1L, 1));
            assertThat(buf.get(JAVA_BYTE, 0)).isEqualTo((byte) 'y');
        }
    }

    /**
     * liburing test_cancel_inflight_exit: when a task exits, the kernel cancels its requests that pin an
     * io_uring file (a poll on the ring's own fd) together with their links; its other requests live on. In
     * Java the exiting task is a platform thread.
     */
    @Test
    void aThreadsExitCancelsItsRingFdPollAndLinkButNotItsTimeout() throws Exception {
        Rings.kernelOnly("cancelling a thread's requests when it exits, and polling a ring fd, are not implemented");
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment linkedTs = Timespec.allocate(arena, 10_000_000_000L);
            MemorySegment loneTs = Timespec.allocate(arena, 100_000_000L);
            long start = System.nanoTime();
            int submitted = onPlatformThread(() -> {
                ring.sq().next().prepPollAdd(ring.fd(), OpFlags.Poll.POLLIN).userData(1).link();
                ring.sq().next().prepTimeout(linkedTs, 0, 0).userData(2);
                ring.sq().next().prepTimeout(loneTs, 0, 0).userData(3);
                return ring.submit();
            });
            assertThat(submitted).isEqualTo(3);

            Map<Long, Integer> results = reapResults(ring, 3);
            assertThat(results).containsEntry(1L, -Errno.ECANCELED)
                    .containsEntry(2L, -Errno.ECANCELED)
                    .containsEntry(3L, -Errno.ETIME);
            assertThat(System.nanoTime() - start).as("the lone timeout ran its course").isGreaterThanOrEqualTo(100_000_000L);
        }
    }
}
