package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.FileKit.iovecs;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.userDataOf;
import static io.uring4j.ring.Rings.assumeSupported;
import static io.uring4j.ring.Rings.openOrSkip;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing test/defer.c and test/link_drain.c: IOSQE_IO_DRAIN and links order completions. A drained request
 * starts only after everything submitted before it has completed, and everything after it waits for it; a DRAIN
 * on a chain member drains the whole chain. Long chains complete in order, and a corrupted SQ dropped counter
 * (which the app can write) does not stall draining.
 */
@BothEngines
class DrainOrderTest {
    private static final int ROUNDS = 200;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "setup flags {0}")
    @ValueSource(ints = {0, SetupFlags.IOPOLL})
    void hundredLinkedNopsCompleteInOrder(int setupFlags) throws Exception {
        try (IoUring ring = openOrSkip(128, setupFlags)) {
            for (int i = 0; i < 100; i++) {
                Sqe sqe = ring.sq().next().prepNop().userData(i);
                if (i < 99) {
                    sqe.link();
                }
            }
            assertThat(ring.submit()).isEqualTo(100);

            assertThat(userDataOf(reap(ring, 100)))
                    .containsExactlyElementsOf(LongStream.range(0, 100).boxed().toList());
        }
    }

    @ParameterizedTest(name = "setup flags {0}")
    @ValueSource(ints = {0, SetupFlags.SQPOLL | SetupFlags.IOPOLL})
    void hundredLinkedFailuresFailOnceAndCancelTheRest(int setupFlags) throws Exception {
        try (IoUring ring = openOrSkip(128, setupFlags)) {
            assumeSupported(ring, Opcode.REMOVE_BUFFERS);
            for (int i = 0; i < 100; i++) {
                Sqe sqe = ring.sq().next().prepRemoveBuffers(10, 1).userData(i);
                if (i < 99) {
                    sqe.link();
                }
            }
            assertThat(ring.submit()).isEqualTo(100);

            List<Completion> cqes = reap(ring, 100);
            assertThat(cqes.getFirst()).isEqualTo(cqe(0, -Errno.ENOENT));
            assertThat(cqes.subList(1, 100)).allSatisfy(c -> assertThat(c.res()).isEqualTo(-Errno.ECANCELED));
        }
    }

    @Test
    void drainedTimeoutsWithLinkTimeoutsRunOnePairAfterTheOther() throws Exception {
        long timeout = Duration.ofMillis(20).toNanos();
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(128)) {
            MemorySegment ts = Timespec.allocate(arena, timeout);
            MemorySegment never = Timespec.allocate(arena, Duration.ofSeconds(30).toNanos());
            for (int pair = 0; pair < 3; pair++) {
                ring.sq().next().prepTimeout(ts, 0, 0).userData(2 * pair)
                        .addFlags(SqeFlags.IO_LINK | SqeFlags.IO_DRAIN);
                ring.sq().next().prepLinkTimeout(never, 0).userData(2 * pair + 1);
            }
            long start = System.nanoTime();
            assertThat(ring.submit()).isEqualTo(6);

            List<Completion> cqes = reap(ring, 6);
            long elapsed = System.nanoTime() - start;
            for (int pair = 0; pair < 3; pair++) {
                assertThat(cqes.subList(2 * pair, 2 * pair + 2)).as("pair %d in %s", pair, cqes)
                        .containsExactlyInAnyOrder(cqe(2 * pair, -Errno.ETIME), cqe(2 * pair + 1, -Errno.ECANCELED));
            }
            // Each drained timer is armed only after the previous pair completed.
            assertThat(elapsed).isGreaterThanOrEqualTo(3 * timeout);
        }
    }

    @Test
    void drainedNopsCompleteAfterTheDroppedCounterIsCorrupted() throws Exception {
        try (IoUring ring = IoUring.open(128)) {
            // The counter lives in memory the app can write; the kernel must not base drain accounting on it.
            ring.sq().dropped(1000);
            for (int i = 0; i < 10; i++) {
                ring.sq().next().prepNop().userData(i).addFlags(SqeFlags.IO_DRAIN);
            }
            assertThat(ring.submit()).isEqualTo(10);

            List<Completion> cqes = reap(ring, 10);
            assertThat(cqes).allSatisfy(c -> assertThat(c.res()).isZero());
            assertThat(userDataOf(cqes)).containsExactlyElementsOf(LongStream.range(0, 10).boxed().toList());
        }
    }

    @ParameterizedTest(name = "setup flags {0}")
    @ValueSource(ints = {0, SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN})
    void drainInsideALinkKeepsSubmissionOrder(int setupFlags) throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = openOrSkip(100, setupFlags);
             Fd file = Fd.open(dir.resolve("testfile"), LibC.O_WRONLY | LibC.O_CREAT)) {
            MemorySegment iov = iovecs(arena, arena.allocate(4096));
            for (int round = 0; round < ROUNDS; round++) {
                linkDrainOne(ring, file.fd(), iov);
                linkDrainMulti(ring, file.fd(), iov);
            }
        }
    }

    /** (0) WRITEV, (1) NOP link, (2) NOP link|drain, (3) NOP, (4) NOP: completions exactly 0..4. */
    private static void linkDrainOne(IoUring ring, int fd, MemorySegment iov) throws ErrnoException {
        ring.sq().next().prepWritev(fd, iov, 1, 0, 0).userData(0);
        ring.sq().next().prepNop().userData(1).link();
        ring.sq().next().prepNop().userData(2).addFlags(SqeFlags.IO_LINK | SqeFlags.IO_DRAIN);
        ring.sq().next().prepNop().userData(3);
        ring.sq().next().prepNop().userData(4);
        assertThat(ring.submit()).isEqualTo(5);

        assertThat(userDataOf(reap(ring, 5))).containsExactly(0L, 1L, 2L, 3L, 4L);
    }

    /** Two chains, each with a drained member, between heavier writes: completions exactly 0..8. */
    private static void linkDrainMulti(IoUring ring, int fd, MemorySegment iov) throws ErrnoException {
        ring.sq().next().prepWritev(fd, iov, 1, 0, 0).userData(0);
        ring.sq().next().prepNop().userData(1).link();                                          // chain 1
        ring.sq().next().prepNop().userData(2).addFlags(SqeFlags.IO_LINK | SqeFlags.IO_DRAIN);
        ring.sq().next().prepNop().userData(3);
        ring.sq().next().prepNop().userData(4).link();                                          // chain 2
        ring.sq().next().prepNop().userData(5).link();
        ring.sq().next().prepWritev(fd, iov, 1, 0, 0).userData(6).addFlags(SqeFlags.IO_LINK | SqeFlags.IO_DRAIN);
        ring.sq().next().prepNop().userData(7);
        ring.sq().next().prepNop().userData(8);
        assertThat(ring.submit()).isEqualTo(9);

        assertThat(userDataOf(reap(ring, 9)))
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
    }
}
