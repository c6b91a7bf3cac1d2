package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * FUTEX_WAIT / FUTEX_WAKE / FUTEX_WAITV (6.7): a waiter on one thread's ring, woken through another thread's
 * ring, over a futex word in shared native memory (liburing's futex.c).
 */
@Timeout(30)
class FutexTest {
    private static final int U32_PRIVATE = OpFlags.Futex.SIZE_U32 | OpFlags.Futex.PRIVATE;

    /** Wakes {@code word} from a second thread with a ring of its own; returns how many waiters it woke. */
    private static int wakeFromAnotherThread(MemorySegment word) throws Exception {
        return Rings.onPlatformThread(() -> {
            try (IoUring waker = IoUring.open(4)) {
                word.set(JAVA_INT, 0, 1);
                waker.sq().next().prepFutexWake(word, 1, OpFlags.Futex.MATCH_ANY, U32_PRIVATE, 0).userData(9);
                return submitAndReap(waker).res();
            }
        });
    }

    @Test
    void aWaiterIsWokenThroughAnotherThreadsRing() throws Exception {
        try (Arena arena = Arena.ofShared(); IoUring ring = IoUring.open(4)) {
            assumeSupported(ring, Opcode.FUTEX_WAIT, Opcode.FUTEX_WAKE);
            MemorySegment word = arena.allocate(JAVA_INT);
            ring.sq().next().prepFutexWait(word, 0, OpFlags.Futex.MATCH_ANY, U32_PRIVATE, 0).userData(1);
            assertThat(ring.submit()).isEqualTo(1);    // the wait is queued on the futex when submit returns

            assertThat(wakeFromAnotherThread(word)).as("waiters woken").isEqualTo(1);

            Completion woken = reap(ring);
            assertThat(woken).isEqualTo(Completion.cqe(1, 0));
        }
    }

    @Test
    void aWaitOnAWordThatAlreadyChangedFailsWithEagain() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            assumeSupported(ring, Opcode.FUTEX_WAIT);
            MemorySegment word = arena.allocateFrom(JAVA_INT, 5);
            ring.sq().next().prepFutexWait(word, 4, OpFlags.Futex.MATCH_ANY, U32_PRIVATE, 0).userData(1);
            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, -Errno.EAGAIN));
        }
    }

    @Test
    void waitvReportsWhichWordWoke() throws Exception {
        try (Arena arena = Arena.ofShared(); IoUring ring = IoUring.open(4)) {
            assumeSupported(ring, Opcode.FUTEX_WAITV);
            MemorySegment words = arena.allocate(JAVA_INT, 2);
            MemorySegment waitv = arena.allocate(OpFlags.Futex.WAITV_SIZE * 2, 8);
            for (int i = 0; i < 2; i++) {     // struct futex_waitv: val, uaddr, flags, reserved
                long at = OpFlags.Futex.WAITV_SIZE * i;
                waitv.set(JAVA_LONG, at, 0);
                waitv.set(JAVA_LONG, at + 8, words.address() + 4L * i);
                waitv.set(JAVA_INT, at + 16, U32_PRIVATE);
            }
            ring.sq().next().prepFutexWaitv(waitv, 2, 0).userData(1);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(wakeFromAnotherThread(words.asSlice(4, 4))).isEqualTo(1);

            assertThat(reap(ring)).as("the result is the index of the word woken").isEqualTo(Completion.cqe(1, 1));
        }
    }
}
