package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.Reap.PATIENCE_NANOS;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.userDataOf;
import static io.uring4j.ring.Rings.assumeSupported;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing test/link.c: soft and hard links. A soft link breaks on the first error and cancels the rest of the
 * chain with ECANCELED; a hard link survives completion errors. Linked completions are posted in chain order.
 */
@BothEngines
class LinkTest {
    private static final long TEN_MS = Duration.ofMillis(10).toNanos();

    @ParameterizedTest(name = "{0} linked NOPs")
    @ValueSource(ints = {2, 3})
    void linkedNopsCompleteInChainOrder(int length) throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            for (int i = 1; i <= length; i++) {
                Sqe sqe = ring.sq().next().prepNop().userData(i);
                if (i < length) {
                    sqe.link();
                }
            }
            assertThat(ring.submit()).isEqualTo(length);

            List<Completion> cqes = reap(ring, length);
            for (int i = 0; i < length; i++) {
                assertThat(cqes.get(i)).isEqualTo(cqe(i + 1, 0));
            }
        }
    }

    @Test
    void twoChainsInOneSubmitEachCompleteInOrder() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepNop().userData(1).link();
            ring.sq().next().prepNop().userData(2);
            ring.sq().next().prepNop().userData(3).link();
            ring.sq().next().prepNop().userData(4);
            assertThat(ring.submit()).isEqualTo(4);

            List<Completion> cqes = reap(ring, 4);
            assertThat(cqes).containsExactlyInAnyOrder(cqe(1, 0), cqe(2, 0), cqe(3, 0), cqe(4, 0));
            // The two chains may interleave, but each keeps its own order.
            List<Long> order = userDataOf(cqes);
            assertThat(order.indexOf(1L)).isLessThan(order.indexOf(2L));
            assertThat(order.indexOf(3L)).isLessThan(order.indexOf(4L));
        }
    }

    @Test
    void hardLinkedTimeoutExpiresAndTheLinkedNopStillRuns() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment ts = Timespec.allocate(arena, TEN_MS);
            ring.sq().next().prepTimeout(ts, 0, 0).userData(1).addFlags(SqeFlags.IO_LINK | SqeFlags.IO_HARDLINK);
            ring.sq().next().prepNop().userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            // -ETIME is an error, yet the hard link runs the NOP; it only starts once the timeout has expired.
            assertThat(reap(ring, 2)).containsExactly(cqe(1, -Errno.ETIME), cqe(2, 0));
        }
    }

    @Test
    void softLinkedTimeoutExpiresAndCancelsTheLinkedNop() throws Exception {
        // The counterpart of the hard link above: the same chain with a plain IO_LINK breaks on -ETIME.
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment ts = Timespec.allocate(arena, TEN_MS);
            ring.sq().next().prepTimeout(ts, 0, 0).userData(1).link();
            ring.sq().next().prepNop().userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            assertThat(reap(ring, 2)).containsExactly(cqe(1, -Errno.ETIME), cqe(2, -Errno.ECANCELED));
        }
    }

    @Test
    void twoHardLinkedTimeoutsBothExpireAndTheNopRuns() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment ts1 = Timespec.allocate(arena, TEN_MS);
            MemorySegment ts2 = Timespec.allocate(arena, Duration.ofMillis(15).toNanos());
            ring.sq().next().prepTimeout(ts1, 0, 0).userData(1).addFlags(SqeFlags.IO_LINK | SqeFlags.IO_HARDLINK);
            ring.sq().next().prepTimeout(ts2, 0, 0).userData(2).addFlags(SqeFlags.IO_LINK | SqeFlags.IO_HARDLINK);
            ring.sq().next().prepNop().userData(3);
            long start = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(3);

            assertThat(reap(ring, 3))
                    .containsExactly(cqe(1, -Errno.ETIME), cqe(2, -Errno.ETIME), cqe(3, 0));
            // The second timer is armed only when the first has fired: the chain runs its members one by one.
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TEN_MS + Duration.ofMillis(15).toNanos());
        }
    }

    @ParameterizedTest(name = "setup flags {0}")
    @ValueSource(ints = {0, SetupFlags.IOPOLL})
    void failedHeadCancelsTheLinkedNop(int setupFlags) throws Exception {
        Rings.kernelOnlyFlags(setupFlags);
        try (IoUring ring = IoUring.builder().entries(8).flags(setupFlags).build()) {
            assumeSupported(ring, Opcode.REMOVE_BUFFERS);
            // Buffer group 1 holds no buffers: the removal fails with ENOENT and breaks the link.
            ring.sq().next().prepRemoveBuffers(10, 1).userData(1).link();
            ring.sq().next().prepNop().userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            assertThat(reap(ring, 2)).containsExactly(cqe(1, -Errno.ENOENT), cqe(2, -Errno.ECANCELED));
        }
    }

    @Test
    void readvOnABadFdLinkedToANopDoesNotHangSubmitAndWait() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment emptyIovec = arena.allocate(16, 8);     // { NULL, 0 }
            ring.sq().next().prepReadv(-1, emptyIovec, 1, 0, 0).userData(1).link();
            ring.sq().next().prepNop().userData(2);

            // liburing waits without a bound; the bound here turns a hang into a failure.
            assertThat(ring.submitAndWait(2, PATIENCE_NANOS)).isEqualTo(2);
            assertThat(ring.cq().ready()).as("CQEs ready after submit-and-wait(2)").isEqualTo(2);
            assertThat(reap(ring, 2)).containsExactly(cqe(1, -Errno.EBADF), cqe(2, -Errno.ECANCELED));
        }
    }
}
