package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.FileKit.iovecs;
import static io.uring4j.ring.Reap.byUserData;
import static io.uring4j.ring.Reap.reap;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing test/link-timeout.c: IORING_OP_LINK_TIMEOUT bounds the request linked just before it. If the request
 * finishes first the timeout is cancelled (-ECANCELED); if the timeout fires first it cancels the request
 * (-ECANCELED, or -EINTR when it was blocked in a worker) and posts -ETIME — or -EALREADY when the request was
 * already on its way to completing. Reads of an empty pipe serve as requests that never complete on their own.
 */
@BothEngines
class LinkTimeoutTest {
    private static final long ONE_MS = Duration.ofMillis(1).toNanos();
    private static final long ONE_S = Duration.ofSeconds(1).toNanos();
    /** For timers that must not fire during a test: far beyond {@link Reap#PATIENCE_NANOS}. */
    private static final long NEVER = Duration.ofSeconds(30).toNanos();

    @Test
    void loneLinkTimeoutIsInvalid() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, ONE_S), 0).userData(1).link();
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reap(ring)).isEqualTo(cqe(1, -Errno.EINVAL));
        }
    }

    @Test
    void nopCompletesAndCancelsItsLinkTimeout() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepNop().userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, ONE_S), 0).userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            assertThat(reap(ring, 2)).containsExactlyInAnyOrder(cqe(1, 0), cqe(2, -Errno.ECANCELED));
        }
    }

    @ParameterizedTest(name = "timeout {0} ns")
    @ValueSource(longs = {10, 100_000, 1_000_000})
    void linkTimeoutCancelsAReadThatNeverCompletes(long timeoutNanos) throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            MemorySegment iov = iovecs(arena, arena.allocate(128));
            ring.sq().next().prepReadv(pipe.readFd(), iov, 1, 0, 0).userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, timeoutNanos), 0).userData(2);
            long start = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(2);

            Map<Long, Completion> cqes = byUserData(reap(ring, 2));
            long elapsed = System.nanoTime() - start;
            assertThat(cqes.get(1L).res()).as("read %s", cqes).isIn(-Errno.EINTR, -Errno.ECANCELED);
            assertThat(cqes.get(2L).res()).as("link timeout %s", cqes).isIn(-Errno.ETIME, -Errno.EALREADY, 0);
            // Nothing but the timer can end an empty-pipe read, so the read cannot end before the timer runs out.
            assertThat(elapsed).isGreaterThanOrEqualTo(timeoutNanos);
        }
    }

    /**
     * The kernel starts a link timeout once the first issue of its request has returned (since 6.15, "always arm
     * linked timeouts prior to issue", backported to stable kernels). A SPLICE always runs on the io-wq, where a
     * splice from an empty pipe blocks inside that first issue: nothing bounds it, no CQE comes while it waits,
     * and once data lets it finish, the timeout, started only now, is cancelled — or, started and expired before
     * the splice's completion was flushed, reports its failed cancel: -ENOENT.
     */
    @Test
    void linkTimeoutStartsOnlyOnceABlockingSpliceHasReturned() throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe in = Pipe.open(); Pipe out = Pipe.open(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepSplice(in.readFd(), -1, out.writeFd(), -1, 16, 0).userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, Duration.ofMillis(20).toNanos()), 0).userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            assertThat(ring.waitCqes(1, Duration.ofMillis(200).toNanos())).as("a CQE while the splice waits").isNull();
            in.write(new byte[16]);
            Map<Long, Completion> cqes = byUserData(reap(ring, 2));
            assertThat(cqes.get(1L)).as("splice %s", cqes).isEqualTo(cqe(1, 16));
            assertThat(cqes.get(2L).res()).as("link timeout %s", cqes).isIn(-Errno.ECANCELED, -Errno.ENOENT);
        }
    }

    /**
     * As above for work done in one issue (STATX always runs on the io-wq): even a timeout of 1 ns starts only
     * after the statx, so it never cancels it.
     */
    @Test
    void linkTimeoutNeverCancelsWorkDoneInItsFirstIssue() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            for (int i = 0; i < 20; i++) {
                ring.sq().next().prepStatx(LibC.AT_FDCWD, arena.allocateFrom("/"), 0, 0xfff, arena.allocate(256))
                        .userData(1).link();
                ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, 1), 0).userData(2);
                assertThat(ring.submit()).isEqualTo(2);

                Map<Long, Completion> cqes = byUserData(reap(ring, 2));
                assertThat(cqes.get(1L)).as("statx %s", cqes).isEqualTo(cqe(1, 0));
                assertThat(cqes.get(2L).res()).as("link timeout %s", cqes).isIn(-Errno.ECANCELED, -Errno.ENOENT);
            }
        }
    }

    @Test
    void readThatCompletesCancelsItsLinkTimeout() throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            MemorySegment in = arena.allocate(128);
            MemorySegment out = arena.allocate(128);
            for (int i = 0; i < 128; i++) {
                out.set(JAVA_BYTE, i, (byte) i);
            }
            ring.sq().next().prepReadv(pipe.readFd(), iovecs(arena, in), 1, 0, 0).userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, NEVER), 0).userData(2);
            // Not linked: the write runs right away and feeds the pending read.
            ring.sq().next().prepWritev(pipe.writeFd(), iovecs(arena, out), 1, 0, 0).userData(3);
            assertThat(ring.submit()).isEqualTo(3);

            assertThat(reap(ring, 3))
                    .containsExactlyInAnyOrder(cqe(1, 128), cqe(2, -Errno.ECANCELED), cqe(3, 128));
            assertThat(in.mismatch(out)).as("first differing byte").isEqualTo(-1);
        }
    }

    @Test
    void invalidLinkTimeoutFailsAndCancelsTheRead() throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            MemorySegment iov = iovecs(arena, arena.allocate(128));
            ring.sq().next().prepReadv(pipe.readFd(), iov, 1, 0, 0).userData(1).link();
            // A field LINK_TIMEOUT does not use: the kernel refuses the SQE, and with it the whole chain.
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, ONE_S), 0).userData(2).ioprio(89);
            assertThat(ring.submit()).isEqualTo(2);

            assertThat(reap(ring, 2))
                    .containsExactlyInAnyOrder(cqe(1, -Errno.ECANCELED), cqe(2, -Errno.EINVAL));
        }
    }

    @Test
    void expiredLinkTimeoutCancelsTheRestOfTheChain() throws Exception {
        // READV -> LINK_TIMEOUT -> NOP: the timeout ends the read, and the broken chain cancels the NOP.
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            MemorySegment iov = iovecs(arena, arena.allocate(128));
            ring.sq().next().prepReadv(pipe.readFd(), iov, 1, 0, 0).userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, ONE_MS), 0).userData(2).link();
            ring.sq().next().prepNop().userData(3);
            assertThat(ring.submit()).isEqualTo(3);

            Map<Long, Completion> cqes = byUserData(reap(ring, 3));
            assertThat(cqes.get(1L).res()).as("read %s", cqes).isIn(-Errno.EINTR, -Errno.ECANCELED);
            assertThat(cqes.get(2L).res()).as("link timeout %s", cqes).isIn(-Errno.ETIME, -Errno.EALREADY);
            assertThat(cqes.get(3L)).isEqualTo(cqe(3, -Errno.ECANCELED));
        }
    }

    @Test
    void pollWithExpiredLinkTimeoutCancelsTheTrailingNops() throws Exception {
        // POLL -> LINK_TIMEOUT -> NOP -> NOP
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepPollAdd(pipe.readFd(), OpFlags.Poll.POLLIN).userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, ONE_MS), 0).userData(2).link();
            ring.sq().next().prepNop().userData(3).link();
            ring.sq().next().prepNop().userData(4);
            assertThat(ring.submit()).isEqualTo(4);

            assertThat(reap(ring, 4)).containsExactlyInAnyOrder(cqe(1, -Errno.ECANCELED),
                    cqe(2, -Errno.ETIME), cqe(3, -Errno.ECANCELED), cqe(4, -Errno.ECANCELED));
        }
    }

    @Test
    void linkTimeoutLaterInAChainIsCancelledWithItAndTheNextChainRuns() throws Exception {
        // POLL -> LINK_TIMEOUT -> NOP -> POLL -> LINK_TIMEOUT, then an unlinked NOP: the first timeout fires and
        // cancels every other member, including the second poll and its timeout; the lone NOP is untouched.
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepPollAdd(pipe.readFd(), OpFlags.Poll.POLLIN).userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, ONE_MS), 0).userData(2).link();
            ring.sq().next().prepNop().userData(3).link();
            ring.sq().next().prepPollAdd(pipe.readFd(), OpFlags.Poll.POLLIN).userData(4).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, ONE_MS), 0).userData(5);
            ring.sq().next().prepNop().userData(6);
            assertThat(ring.submit()).isEqualTo(6);

            assertThat(reap(ring, 6)).containsExactlyInAnyOrder(cqe(1, -Errno.ECANCELED),
                    cqe(2, -Errno.ETIME), cqe(3, -Errno.ECANCELED), cqe(4, -Errno.ECANCELED),
                    cqe(5, -Errno.ECANCELED), cqe(6, 0));
        }
    }

    @Test
    void linkTimeoutBoundsTheRequestRightBeforeIt() throws Exception {
        // NOP -> POLL -> LINK_TIMEOUT: the timeout belongs to the poll, not to the head of the chain.
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepNop().userData(1).link();
            ring.sq().next().prepPollAdd(pipe.readFd(), OpFlags.Poll.POLLIN).userData(2).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, ONE_MS), 0).userData(3);
            assertThat(ring.submit()).isEqualTo(3);

            assertThat(reap(ring, 3))
                    .containsExactlyInAnyOrder(cqe(1, 0), cqe(2, -Errno.ECANCELED), cqe(3, -Errno.ETIME));
        }
    }

    @Test
    void secondLinkTimeoutInARowHasNothingToBound() throws Exception {
        // NOP -> LINK_TIMEOUT -> LINK_TIMEOUT: the NOP finishes at once and its timeout is cancelled; the second
        // timeout would bound a timeout, which the kernel refuses or cancels with the chain.
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepNop().userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, ONE_S), 0).userData(2).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, 2 * ONE_S), 0).userData(3);
            assertThat(ring.submit()).isEqualTo(3);

            Map<Long, Completion> cqes = byUserData(reap(ring, 3));
            assertThat(cqes.get(1L).res()).as("nop %s", cqes).isIn(0, -Errno.ECANCELED);
            assertThat(cqes.get(2L).res()).as("first link timeout %s", cqes).isIn(0, -Errno.ECANCELED);
            assertThat(cqes.get(3L).res()).as("second link timeout %s", cqes).isIn(-Errno.ECANCELED, -Errno.EINVAL);
        }
    }

    @Test
    void failingWriteWithSeveralLinkTimeoutsPostsEveryCqe() throws Exception {
        // WRITEV(NULL iovec) -> LINK_TIMEOUT -> LINK_TIMEOUT -> LINK_TIMEOUT, all linked: nothing may hang.
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            MemorySegment ts = Timespec.allocate(arena, ONE_S);
            ring.sq().next().prepRw(Opcode.WRITEV, pipe.writeFd(), 0, 1, 0).userData(1).link();
            ring.sq().next().prepLinkTimeout(ts, 0).userData(2).link();
            ring.sq().next().prepLinkTimeout(ts, 0).userData(3).link();
            ring.sq().next().prepLinkTimeout(ts, 0).userData(4).link();
            int submitted = ring.submit();
            assertThat(submitted).isBetween(3, 4);

            Map<Long, Completion> cqes = byUserData(reap(ring, submitted));
            assertThat(cqes.get(1L).res()).as("write %s", cqes).isIn(-Errno.EFAULT, -Errno.ECANCELED);
            assertThat(cqes.get(2L).res()).as("valid link timeout %s", cqes).isEqualTo(-Errno.ECANCELED);
            for (long ud = 3; ud <= submitted; ud++) {
                assertThat(cqes.get(ud).res()).as("extra link timeout %s", cqes)
                        .isIn(-Errno.ECANCELED, -Errno.EINVAL);
            }
        }
    }

    @Test
    void linkTimeoutMayBoundATimeout() throws Exception {
        // TIMEOUT -> LINK_TIMEOUT: newer kernels accept the pair; the shorter plain timeout wins.
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeout(Timespec.allocate(arena, Duration.ofMillis(20).toNanos()), -1, 0)
                    .userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, NEVER), 0).userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            assertThat(reap(ring, 2))
                    .containsExactlyInAnyOrder(cqe(1, -Errno.ETIME), cqe(2, -Errno.ECANCELED));
        }
    }

    @ParameterizedTest(name = "async update {0}")
    @ValueSource(booleans = {false, true})
    void linkTimeoutUpdateShortensAPendingLinkTimeout(boolean async) throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            MemorySegment iov = iovecs(arena, arena.allocate(128));
            ring.sq().next().prepReadv(pipe.readFd(), iov, 1, 0, 0).userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, NEVER), 0).userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            long shortened = Duration.ofMillis(100).toNanos();
            Sqe update = ring.sq().next()
                    .prepTimeoutUpdate(Timespec.allocate(arena, shortened), 2, OpFlags.Timeout.LINK_TIMEOUT_UPDATE)
                    .userData(3);
            if (async) {
                update.addFlags(SqeFlags.ASYNC);
            }
            long start = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(1);

            // Completing at all within the patience proves the update: the original timer is 30 s.
            Map<Long, Completion> cqes = byUserData(reap(ring, 3));
            long elapsed = System.nanoTime() - start;
            assertThat(cqes.get(1L).res()).as("read %s", cqes).isIn(-Errno.EINTR, -Errno.ECANCELED);
            assertThat(cqes.get(2L).res()).as("link timeout %s", cqes).isIn(-Errno.ETIME, -Errno.EALREADY);
            assertThat(cqes.get(3L)).isEqualTo(cqe(3, 0));
            assertThat(elapsed).as("fired after the new 100 ms, not before").isGreaterThanOrEqualTo(shortened);
        }
    }

    @ParameterizedTest(name = "async update {0}")
    @ValueSource(booleans = {false, true})
    void linkTimeoutUpdateOfAMissingTimeoutIsEnoent(boolean async) throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            Sqe update = ring.sq().next()
                    .prepTimeoutUpdate(Timespec.allocate(arena, ONE_MS), 2, OpFlags.Timeout.LINK_TIMEOUT_UPDATE)
                    .userData(0xcafe0000L);
            if (async) {
                update.addFlags(SqeFlags.ASYNC);
            }
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reap(ring)).isEqualTo(cqe(0xcafe0000L, -Errno.ENOENT));
        }
    }
}
