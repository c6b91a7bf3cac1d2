package io.uring4j.ring;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.userDataOf;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing test/timeout.c: IORING_OP_TIMEOUT, TIMEOUT_REMOVE and timeout updates. A timeout completes with
 * -ETIME when its time runs out, or with 0 once {@code count} other completions were posted (other timeouts'
 * CQEs do not count); an expired timeout is an error that breaks a soft link unless it carries ETIME_SUCCESS;
 * a multishot timeout fires repeatedly. Timing is asserted as lower bounds (never fired early); "fired at all"
 * within the patience of {@link Reap} stands in for "fired early" where an update shortened a 30 s timer.
 */
@BothEngines
class TimeoutTest {
    private static final long TIMEOUT = Duration.ofMillis(100).toNanos();
    private static final long SHORT = Duration.ofMillis(50).toNanos();
    /** For timers that must not fire during a test: far beyond {@link Reap#PATIENCE_NANOS}. */
    private static final long NEVER = Duration.ofSeconds(30).toNanos();

    @Test
    void timeoutFiresWithEtimeAndNotEarly() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeout(Timespec.allocate(arena, TIMEOUT), 0, 0).userData(1);
            long start = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reap(ring)).isEqualTo(cqe(1, -Errno.ETIME));
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TIMEOUT);
        }
    }

    @Test
    void expiringTimeoutEndsAWaitForMoreCompletionsThanWillCome() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeout(Timespec.allocate(arena, TIMEOUT), 0, 0).userData(1);
            long submitted = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(1);

            // Ask for 4 completions; only the timeout's will come. The kernel wakes the waiter when a timeout
            // fires, whatever min_complete says, so the wait ends long before its own bound (which it would
            // otherwise sit out, then return the one CQE there is).
            long waitBound = Duration.ofSeconds(20).toNanos();
            long waitStart = System.nanoTime();
            Cqe cqe = ring.waitCqes(4, waitBound);
            long end = System.nanoTime();
            assertThat(cqe).isNotNull();
            assertThat(Completion.of(cqe)).isEqualTo(cqe(1, -Errno.ETIME));
            ring.cq().seen(cqe);
            assertThat(end - submitted).as("fired after its time").isGreaterThanOrEqualTo(TIMEOUT);
            assertThat(end - waitStart).as("woken by the timeout").isLessThan(waitBound / 2);
        }
    }

    @ParameterizedTest(name = "count {0}")
    @ValueSource(ints = {1, 2})
    void countedTimeoutCompletesWithZeroAfterThatManyCompletions(int count) throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeout(Timespec.allocate(arena, NEVER), count, 0).userData(0);
            ring.sq().next().prepNop().userData(1);
            ring.sq().next().prepNop().userData(2);
            assertThat(ring.submit()).isEqualTo(3);

            List<Completion> cqes = reap(ring, 3);
            assertThat(cqes).containsExactlyInAnyOrder(cqe(0, 0), cqe(1, 0), cqe(2, 0));
            assertThat(userDataOf(cqes).indexOf(0L)).as("timeout's place in %s", cqes)
                    .isGreaterThanOrEqualTo(count);
        }
    }

    @Test
    void timeoutsFireInDeadlineOrderAndDoNotCountEachOther() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            // Both have count 1, yet neither is completed by the other's CQE: timeout CQEs are not counted. Each
            // timer starts when its SQE is consumed: the gap allows for a loaded machine's pause between the two.
            ring.sq().next().prepTimeout(Timespec.allocate(arena, 10 * SHORT), 1, 0).userData(1);
            ring.sq().next().prepTimeout(Timespec.allocate(arena, SHORT), 1, 0).userData(2);
            long start = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(2);

            assertThat(reap(ring)).isEqualTo(cqe(2, -Errno.ETIME));
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(SHORT);
            assertThat(reap(ring)).isEqualTo(cqe(1, -Errno.ETIME));
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(10 * SHORT);
        }
    }

    @Test
    void countedTimeoutsEachWaitForTheirOwnCount() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment ts = Timespec.allocate(arena, SHORT);
            ring.sq().next().prepTimeout(ts, 2, 0).userData(1);
            ring.sq().next().prepTimeout(ts, 1, 0).userData(2);
            ring.sq().next().prepNop().userData(3);
            assertThat(ring.submit()).isEqualTo(3);

            // The NOP satisfies count 1; the second timeout's own completion does not count towards count 2.
            assertThat(reap(ring, 3)).containsExactly(cqe(3, 0), cqe(2, 0), cqe(1, -Errno.ETIME));
        }
    }

    @Test
    void removeWithAnUnknownUserDataIsEnoentAndTheTimeoutStillFires() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            // count 2: the remove's own CQE is only one completion, so time ends this timeout.
            ring.sq().next().prepTimeout(Timespec.allocate(arena, TIMEOUT), 2, 0).userData(1);
            assertThat(ring.submit()).isEqualTo(1);
            ring.sq().next().prepTimeoutRemove(2, 0).userData(2);
            assertThat(ring.submit()).isEqualTo(1);

            // Usually the remove completes first, but a slow first run may let the timer beat its submission.
            assertThat(reap(ring, 2))
                    .containsExactlyInAnyOrder(cqe(2, -Errno.ENOENT), cqe(1, -Errno.ETIME));
        }
    }

    @Test
    void removeCancelsThePendingTimeout() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeout(Timespec.allocate(arena, NEVER), 0, 0).userData(1);
            assertThat(ring.submit()).isEqualTo(1);
            ring.sq().next().prepTimeoutRemove(1, 0).userData(2);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reap(ring, 2)).containsExactlyInAnyOrder(cqe(1, -Errno.ECANCELED), cqe(2, 0));
        }
    }

    @Test
    void absoluteTimeoutFiresAtItsDeadline() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            // ABS timeouts use CLOCK_MONOTONIC by default, the clock behind System.nanoTime() on Linux.
            long deadline = System.nanoTime() + TIMEOUT;
            ring.sq().next().prepTimeout(Timespec.allocate(arena, deadline), 0, OpFlags.Timeout.ABS).userData(1);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reap(ring)).isEqualTo(cqe(1, -Errno.ETIME));
            assertThat(System.nanoTime()).isGreaterThanOrEqualTo(deadline);
        }
    }

    @Test
    void expiredTimeoutBreaksItsLinkAndDrainWaitsForTheChain() throws Exception {
        // TIMEOUT(link) -> TIMEOUT(drain), then TIMEOUT: the second is cancelled by the first's -ETIME; the
        // third waits behind the drained second and then runs its full time.
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment ts = Timespec.allocate(arena, SHORT);
            ring.sq().next().prepTimeout(ts, 0, 0).userData(1).link();
            ring.sq().next().prepTimeout(ts, 0, 0).userData(2).addFlags(SqeFlags.IO_DRAIN);
            ring.sq().next().prepTimeout(ts, 0, 0).userData(3);
            long start = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(3);

            assertThat(reap(ring, 3))
                    .containsExactly(cqe(1, -Errno.ETIME), cqe(2, -Errno.ECANCELED), cqe(3, -Errno.ETIME));
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(2 * SHORT);
        }
    }

    @Test
    void expiredTimeoutCancelsEveryLinkedTimeoutAfterIt() throws Exception {
        // TIMEOUT(link) -> TIMEOUT(link) -> TIMEOUT
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment ts = Timespec.allocate(arena, SHORT);
            ring.sq().next().prepTimeout(ts, 0, 0).userData(1).link();
            ring.sq().next().prepTimeout(ts, 0, 0).userData(2).link();
            ring.sq().next().prepTimeout(ts, 0, 0).userData(3);
            assertThat(ring.submit()).isEqualTo(3);

            assertThat(reap(ring, 3)).containsExactly(cqe(1, -Errno.ETIME), cqe(2, -Errno.ECANCELED),
                    cqe(3, -Errno.ECANCELED));
        }
    }

    @Test
    void drainedTimeoutThenABrokenChainBehindIt() throws Exception {
        // TIMEOUT(drain), then TIMEOUT(link) -> TIMEOUT: the chain waits for the first, then breaks on -ETIME.
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment ts = Timespec.allocate(arena, SHORT);
            ring.sq().next().prepTimeout(ts, 0, 0).userData(1).addFlags(SqeFlags.IO_DRAIN);
            ring.sq().next().prepTimeout(ts, 0, 0).userData(2).link();
            ring.sq().next().prepTimeout(ts, 0, 0).userData(3);
            long start = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(3);

            assertThat(reap(ring, 3))
                    .containsExactly(cqe(1, -Errno.ETIME), cqe(2, -Errno.ETIME), cqe(3, -Errno.ECANCELED));
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(2 * SHORT);
        }
    }

    @Test
    void etimeSuccessStillPostsEtimeButKeepsTheLink() throws Exception {
        Rings.kernelOnly("IORING_TIMEOUT_ETIME_SUCCESS is not implemented");
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeout(Timespec.allocate(arena, Duration.ofMillis(1).toNanos()), 0,
                    OpFlags.Timeout.ETIME_SUCCESS).userData(1).link();
            ring.sq().next().prepNop().userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            assertThat(reap(ring, 2)).containsExactly(cqe(1, -Errno.ETIME), cqe(2, 0));
        }
    }

    @Test
    void multishotTimeoutFiresUntilRemoved() throws Exception {
        Rings.kernelOnly("multishot timeouts are not implemented");
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeout(Timespec.allocate(arena, SHORT), 0, OpFlags.Timeout.MULTISHOT).userData(1);
            long start = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(1);

            for (int i = 0; i < 2; i++) {
                assertThat(reap(ring)).isEqualTo(new Completion(1, -Errno.ETIME, CqeFlags.F_MORE));
            }
            assertThat(System.nanoTime() - start).as("two periods").isGreaterThanOrEqualTo(2 * SHORT);

            ring.sq().next().prepTimeoutRemove(1, 0).userData(2);
            assertThat(ring.submit()).isEqualTo(1);

            // Another period may end between the last CQE and the remove: such a CQE is one more -ETIME.
            Completion removed = null;
            Completion last = null;
            while (removed == null || last == null) {
                Completion cqe = reap(ring);
                if (cqe.userData() == 2) {
                    removed = cqe;
                } else if (cqe.hasMore()) {
                    assertThat(cqe).isEqualTo(new Completion(1, -Errno.ETIME, CqeFlags.F_MORE));
                } else {
                    last = cqe;
                }
            }
            assertThat(removed).isEqualTo(cqe(2, 0));
            assertThat(last).as("the multishot's final CQE, without F_MORE").isEqualTo(cqe(1, -Errno.ECANCELED));
        }
    }

    @Test
    void updateGivesMultishotTimeoutsTheNewPeriod() throws Exception {
        Rings.kernelOnly("multishot timeouts are not implemented");
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment never = Timespec.allocate(arena, NEVER);
            MemorySegment period = Timespec.allocate(arena, SHORT);
            ring.sq().next().prepTimeout(never, 0, OpFlags.Timeout.MULTISHOT).userData(1);
            ring.sq().next().prepTimeout(never, 0, OpFlags.Timeout.MULTISHOT).userData(2);
            ring.sq().next().prepTimeoutUpdate(period, 1, 0).userData(3);
            ring.sq().next().prepTimeoutUpdate(period, 2, 0).userData(4);
            assertThat(ring.submit()).isEqualTo(4);

            // Both updates succeed, then each timeout keeps firing with the new period, F_MORE every time.
            int[] expiries = new int[3];
            int updates = 0;
            while (expiries[1] < 2 || expiries[2] < 2 || updates < 2) {
                Completion cqe = reap(ring);
                if (cqe.userData() >= 3) {
                    assertThat(cqe.res()).as("update %s", cqe).isZero();
                    updates++;
                } else {
                    assertThat(cqe).isEqualTo(new Completion(cqe.userData(), -Errno.ETIME, CqeFlags.F_MORE));
                    expiries[(int) cqe.userData()]++;
                }
            }

            ring.sq().next().prepTimeoutRemove(1, 0).userData(5);
            ring.sq().next().prepTimeoutRemove(2, 0).userData(6);
            assertThat(ring.submit()).isEqualTo(2);
            int removes = 0;
            Set<Long> ended = new HashSet<>();
            while (removes < 2 || ended.size() < 2) {
                Completion cqe = reap(ring);
                if (cqe.userData() >= 5) {
                    assertThat(cqe.res()).as("remove %s", cqe).isZero();
                    removes++;
                } else if (cqe.hasMore()) {
                    assertThat(cqe.res()).as("late expiry %s", cqe).isEqualTo(-Errno.ETIME);
                } else {
                    assertThat(cqe.res()).as("final CQE %s", cqe).isEqualTo(-Errno.ECANCELED);
                    assertThat(ended.add(cqe.userData())).as("a second final CQE %s", cqe).isTrue();
                }
            }
        }
    }

    @Test
    void multishotTimeoutWithACountEndsAfterThatManyExpiries() throws Exception {
        Rings.kernelOnly("multishot timeouts are not implemented");
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeout(Timespec.allocate(arena, SHORT), 3, OpFlags.Timeout.MULTISHOT).userData(1);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reap(ring, 3)).containsExactly(new Completion(1, -Errno.ETIME, CqeFlags.F_MORE),
                    new Completion(1, -Errno.ETIME, CqeFlags.F_MORE), cqe(1, -Errno.ETIME));
            assertThat(ring.waitCqes(1, 2 * SHORT)).as("a fourth expiry").isNull();
        }
    }

    /**
     * A 30 s timeout updated to {@code millis}: relative, absolute (a deadline {@code millis} from now), issued
     * from a worker (ASYNC), or behind a NOP it is linked to.
     */
    @ParameterizedTest(name = "update to {0} ms, absolute {1}, async {2}, linked {3}")
    @CsvSource({"0, false, false, false", "1, false, false, false", "100, false, false, false",
        "100, true, false, false", "0, false, true, false", "0, false, false, true"})
    void updateMakesATimeoutFireEarly(long millis, boolean absolute, boolean async, boolean linked)
            throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            long start = System.nanoTime();
            long nanos = Duration.ofMillis(millis).toNanos();
            MemorySegment updated = Timespec.allocate(arena, absolute ? start + nanos : nanos);
            ring.sq().next().prepTimeout(Timespec.allocate(arena, NEVER), 0, 0).userData(1);
            int expected = 2;
            if (linked) {
                Sqe nop = ring.sq().next().prepNop().userData(3).link();
                if (async) {
                    nop.addFlags(SqeFlags.ASYNC);
                }
                expected++;
            }
            Sqe update = ring.sq().next().prepTimeoutUpdate(updated, 1, absolute ? OpFlags.Timeout.ABS : 0)
                    .userData(2);
            if (async) {
                update.addFlags(SqeFlags.ASYNC);
            }
            assertThat(ring.submit()).isEqualTo(expected);

            List<Completion> cqes = reap(ring, expected);
            long elapsed = System.nanoTime() - start;
            List<Completion> wanted = new ArrayList<>(List.of(cqe(1, -Errno.ETIME), cqe(2, 0)));
            if (linked) {
                wanted.add(cqe(3, 0));
            }
            assertThat(cqes).containsExactlyInAnyOrderElementsOf(wanted);
            assertThat(elapsed).as("not before the updated time").isGreaterThanOrEqualTo(nanos);
        }
    }

    @Test
    void updateOfAMissingTimeoutIsEnoent() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeoutUpdate(Timespec.allocate(arena, 0), 42, 0).userData(1);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reap(ring)).isEqualTo(cqe(1, -Errno.ENOENT));
        }
    }

    @Test
    void removeWithAClockFlagButNoUpdateIsInvalid() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepTimeoutRemove(0, OpFlags.Timeout.ABS).userData(1);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reap(ring)).isEqualTo(cqe(1, -Errno.EINVAL));
        }
    }

    @Test
    void ringClosesWithATimeoutStillPending() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            IoUring ring = IoUring.open(8);
            ring.sq().next().prepTimeout(Timespec.allocate(arena, NEVER), 0, 0).userData(1);
            assertThat(ring.submit()).isEqualTo(1);
            // Teardown cancels the timer; close must neither wait 30 s for it nor fail.
            long start = System.nanoTime();
            ring.close();
            assertThat(ring.isOpen()).isFalse();
            assertThat(System.nanoTime() - start).isLessThan(NEVER / 2);
        }
    }
}
