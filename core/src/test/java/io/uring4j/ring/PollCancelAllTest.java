package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.reapResults;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing poll-cancel-all.c: ASYNC_CANCEL with {@code IORING_ASYNC_CANCEL_ALL} and a wider key — FD, FD_FIXED
 * (a registered file index), ANY, OP — cancels every match and reports how many; the other requests stay
 * pending. Polls and reads are armed inline at submit (no IOSQE_ASYNC), so every count is exact.
 */
@Timeout(30)
@BothEngines
class PollCancelAllTest {
    private static final long CANCEL = 100;

    @Test
    void cancelAllByFdCancelsEveryPollOnThatFd() throws Exception {
        try (IoUring ring = IoUring.open(16); Pipe pipe = Pipe.open()) {
            for (int i = 1; i <= 8; i++) {
                ring.sq().next().prepPollAdd(pipe.readFd(), OpFlags.Poll.POLLIN).userData(i);
            }
            assertThat(ring.submit()).isEqualTo(8);

            assertCancelsAllEight(ring, ring.sq().next().prepCancelFd(pipe.readFd(), OpFlags.Cancel.ALL));
        }
    }

    @Test
    void cancelAllByFixedFdMatchesTheRegisteredIndex() throws Exception {
        try (IoUring ring = IoUring.open(16); Pipe pipe = Pipe.open()) {
            ring.register().files(pipe.readFd());
            for (int i = 1; i <= 8; i++) {
                ring.sq().next().prepPollAdd(0, OpFlags.Poll.POLLIN).userData(i).addFlags(SqeFlags.FIXED_FILE);
            }
            assertThat(ring.submit()).isEqualTo(8);

            assertCancelsAllEight(ring, ring.sq().next().prepCancelFd(0, OpFlags.Cancel.ALL | OpFlags.Cancel.FD_FIXED));
        }
    }

    /** Polls alternate between two pipes (user_data 0 for the first, 1 for the second); each cancel takes 4. */
    @Test
    void cancelAllByFdLeavesPollsOnOtherFdsPending() throws Exception {
        try (IoUring ring = IoUring.open(16); Pipe first = Pipe.open(); Pipe second = Pipe.open()) {
            for (int i = 0; i < 8; i++) {
                int fd = (i & 1) == 0 ? first.readFd() : second.readFd();
                ring.sq().next().prepPollAdd(fd, OpFlags.Poll.POLLIN).userData(i & 1);
            }
            assertThat(ring.submit()).isEqualTo(8);

            assertCancelsFour(ring, ring.sq().next().prepCancelFd(first.readFd(), OpFlags.Cancel.ALL), 0);
            // The four polls on the second pipe are untouched: nothing more is posted, even after an enter.
            assertThat(ring.submitAndGetEvents()).isZero();
            assertThat(ring.peekCqe()).isNull();

            assertCancelsFour(ring, ring.sq().next().prepCancelFd(second.readFd(), OpFlags.Cancel.ALL), 1);
        }
    }

    @Test
    void cancelAllAnyCancelsPollsOnEveryFd() throws Exception {
        try (IoUring ring = IoUring.open(16); Pipe first = Pipe.open(); Pipe second = Pipe.open()) {
            for (int i = 1; i <= 8; i++) {
                int fd = (i & 1) == 0 ? first.readFd() : second.readFd();
                ring.sq().next().prepPollAdd(fd, OpFlags.Poll.POLLIN).userData(i);
            }
            assertThat(ring.submit()).isEqualTo(8);

            assertCancelsAllEight(ring, ring.sq().next().prepCancel(0, OpFlags.Cancel.ALL | OpFlags.Cancel.ANY));
        }
    }

    @Test
    void cancelAllAnyCancelsPendingReadsToo() throws Exception {
        Rings.kernelOnly("a cancel racing a read that a worker has just picked up may count it as -EALREADY");
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(16); Pipe pipe = Pipe.open()) {
            MemorySegment bufs = arena.allocate(8 * 32);
            for (int i = 1; i <= 8; i++) {
                ring.sq().next().prepRead(pipe.readFd(), bufs.asSlice(32L * (i - 1), 32), 0).userData(i);
            }
            assertThat(ring.submit()).isEqualTo(8);

            assertCancelsAllEight(ring, ring.sq().next().prepCancel(0, OpFlags.Cancel.ALL | OpFlags.Cancel.ANY));
        }
    }

    /** Without ALL a cancel takes the first match only; with ALL it takes every request sharing the user_data. */
    @Test
    void cancelByUserDataTakesOneMatchOrAllWithAll() throws Exception {
        try (IoUring ring = IoUring.open(16); Pipe pipe = Pipe.open()) {
            for (int i = 0; i < 4; i++) {
                ring.sq().next().prepPollAdd(pipe.readFd(), OpFlags.Poll.POLLIN).userData(7);
            }
            ring.submit();

            ring.sq().next().prepCancel(7, 0).userData(CANCEL);
            ring.submit();
            List<Completion> one = reap(ring, 2);
            assertThat(one).extracting(Completion::userData).containsExactlyInAnyOrder(7L, CANCEL);
            assertThat(one).allSatisfy(c -> assertThat(c.res()).isEqualTo(c.userData() == CANCEL ? 0 : -Errno.ECANCELED));
            assertThat(ring.peekCqe()).isNull();

            ring.sq().next().prepCancel(7, OpFlags.Cancel.ALL).userData(CANCEL);
            ring.submit();
            List<Completion> rest = reap(ring, 4);
            assertThat(rest).filteredOn(c -> c.userData() == CANCEL).singleElement()
                    .satisfies(c -> assertThat(c.res()).isEqualTo(3));
            assertThat(rest).filteredOn(c -> c.userData() == 7).hasSize(3)
                    .allSatisfy(c -> assertThat(c.res()).isEqualTo(-Errno.ECANCELED));
        }
    }

    /** CANCEL_OP (6.6) matches by opcode: the polls go, the reads on the same pipe stay. */
    @Test
    void cancelAllByOpcodeTakesOnlyThatOpcode() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(16); Pipe pipe = Pipe.open()) {
            MemorySegment buf = arena.allocate(4);
            for (int i = 1; i <= 3; i++) {
                ring.sq().next().prepPollAdd(pipe.readFd(), OpFlags.Poll.POLLIN).userData(i);
            }
            ring.sq().next().prepRead(pipe.readFd(), buf, 0).userData(50);
            ring.submit();

            ring.sq().next().prepCancelOpcode(Opcode.POLL_ADD, OpFlags.Cancel.ALL).userData(CANCEL);
            ring.submit();
            Map<Long, Integer> results = reapResults(ring, 4);
            assertThat(results).containsOnlyKeys(1L, 2L, 3L, CANCEL).containsEntry(CANCEL, 3);

            pipe.write((byte) 1, (byte) 2);
            assertThat(reapResults(ring, 1)).containsExactlyEntriesOf(Map.of(50L, 2));
        }
    }

    /** Submits {@code cancel}: it reports 8 matches, and requests 1..8 each end with -ECANCELED. */
    private static void assertCancelsAllEight(IoUring ring, Sqe cancel) throws ErrnoException {
        cancel.userData(CANCEL);
        assertThat(ring.submit()).isEqualTo(1);
        Map<Long, Integer> results = reapResults(ring, 9);
        assertThat(results).containsEntry(CANCEL, 8).hasSize(9);
        for (long i = 1; i <= 8; i++) {
            assertThat(results).containsEntry(i, -Errno.ECANCELED);
        }
    }

    /** Submits {@code cancel}: it reports 4 matches, and 4 polls with {@code pollUserData} end with -ECANCELED. */
    private static void assertCancelsFour(IoUring ring, Sqe cancel, long pollUserData) throws ErrnoException {
        cancel.userData(CANCEL);
        assertThat(ring.submit()).isEqualTo(1);
        List<Completion> cqes = reap(ring, 5);
        assertThat(cqes).filteredOn(c -> c.userData() == CANCEL).singleElement()
                .satisfies(c -> assertThat(c.res()).isEqualTo(4));
        assertThat(cqes).filteredOn(c -> c.userData() != CANCEL).hasSize(4)
                .allSatisfy(c -> {
                    assertThat(c.userData()).isEqualTo(pollUserData);
                    assertThat(c.res()).isEqualTo(-Errno.ECANCELED);
                });
    }
}
