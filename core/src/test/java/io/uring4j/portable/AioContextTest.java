package io.uring4j.portable;

import io.uring4j.sys.Errno;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Native AIO on an O_DIRECT file: batches, vectors, EOF, the errors per slot, the eventfd, cancel and close. */
class AioContextTest {
    private static final int BS = 4096;
    private static final int BLOCKS = 32;
    private static final short POLLIN = 1;

    @TempDir
    Path dir;

    private final Arena arena = Arena.ofShared();
    private final Map<Integer, Long> results = new HashMap<>();
    private final AioContext.Completion record = (slot, res) ->
            assertThat(results.put(slot, res)).as("slot %d reported twice", slot).isNull();
    private byte[] content;
    private DirectFile direct;
    private Path file;
    private int fd = -1;
    private AioContext aio;

    @BeforeEach
    void openDirectFileAndContext() throws IOException {
        content = new byte[BLOCKS * BS];
        new Random(42).nextBytes(content);
        direct = DirectFile.create(dir, content);
        file = direct.path();
        fd = direct.fd();
        aio = new AioContext(64);
        int err = aio.open();
        assumeTrue(err != -Errno.ENOSYS && err != -Errno.EPERM, "native AIO refused here: " + Errno.name(-err));
        assertThat(err).as("io_setup (negative: -errno)").isZero();
    }

    @AfterEach
    void close() throws IOException {
        if (aio != null) {
            aio.close();
        }
        if (direct != null) {
            direct.close();
        }
        arena.close();
    }


    /** Block-aligned memory, as O_DIRECT wants it. */
    private MemorySegment buffer(long size) {
        return arena.allocate(size, BS);
    }

    private byte[] block(int i) {
        byte[] b = new byte[BS];
        System.arraycopy(content, i * BS, b, 0, BS);
        return b;
    }

    /** Waits (10 s at most) on the eventfd and reaps until {@code n} slots have reported. */
    private void await(int n) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (results.size() < n && System.nanoTime() < deadline) {
            readable(10_000);
            assertThat(aio.reap(record)).as("reap (negative: -errno)").isNotNegative();
        }
        assertThat(results).as("completions within 10 s").hasSize(n);
    }

    /** Whether the eventfd is readable within {@code millis}. */
    private boolean readable(int millis) {
        MemorySegment pollfd = arena.allocate(8, 4);
        pollfd.set(JAVA_INT, 0, aio.eventfd());
        pollfd.set(JAVA_SHORT, 4, POLLIN);
        int n = Sys.poll(pollfd.address(), 1, millis);
        assertThat(n).as("poll (negative: -errno)").isNotNegative();
        return n == 1;
    }

    @Test
    void readsAtManyOffsetsSubmittedInOneBatchReturnTheirBlocks() {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < BLOCKS; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(7));
        MemorySegment[] buffers = new MemorySegment[BLOCKS];
        for (int block : order) {
            buffers[block] = buffer(BS);
            aio.read(block, fd, buffers[block].address(), BS, (long) block * BS, 0);
        }
        assertThat(aio.queued()).isEqualTo(BLOCKS);

        assertThat(aio.submit(record)).isEqualTo(BLOCKS);
        assertThat(aio.queued()).isZero();
        await(BLOCKS);
        for (int i = 0; i < BLOCKS; i++) {
            assertThat(results.get(i)).as("res of block %d", i).isEqualTo(BS);
            assertThat(buffers[i].toArray(JAVA_BYTE)).as("block %d", i).isEqualTo(block(i));
        }
    }

    @Test
    void reapingGoesRoundTheKernelsCompletionRingManyTimes() {
        // 64 slots give a ring of a few hundred events: 40 rounds of 64 wrap it several times, and every event
        // must come out once, with its own result, as the head we publish frees the kernel's slots.
        MemorySegment buffers = buffer((long) 64 * BS);
        for (int round = 0; round < 40; round++) {
            results.clear();
            for (int slot = 0; slot < 64; slot++) {
                int block = (round + slot) % BLOCKS;
                aio.read(slot, fd, buffers.address() + (long) slot * BS, BS, (long) block * BS, 0);
            }
            assertThat(aio.submit(record)).as("round %d", round).isEqualTo(64);
            await(64);
            for (int slot = 0; slot < 64; slot++) {
                int block = (round + slot) % BLOCKS;
                assertThat(results.get(slot)).as("round %d slot %d", round, slot).isEqualTo(BS);
                assertThat(buffers.asSlice((long) slot * BS, BS).toArray(JAVA_BYTE))
                        .as("round %d slot %d", round, slot).isEqualTo(block(block));
            }
        }
    }

    @Test
    void aWriteIsReadBackAndLandsInTheFile() throws IOException {
        byte[] data = new byte[BS];
        new Random(3).nextBytes(data);
        MemorySegment out = buffer(BS);
        out.copyFrom(MemorySegment.ofArray(data));
        aio.write(0, fd, out.address(), BS, 2 * BS, 0);
        assertThat(aio.submit(record)).isOne();
        await(1);
        assertThat(results.get(0)).isEqualTo(BS);

        results.clear();
        MemorySegment in = buffer(BS);
        aio.read(1, fd, in.address(), BS, 2 * BS, 0);
        aio.submit(record);
        await(1);
        assertThat(results.get(1)).isEqualTo(BS);
        assertThat(in.toArray(JAVA_BYTE)).isEqualTo(data);
        assertThat(Arrays.copyOfRange(Files.readAllBytes(file), 2 * BS, 3 * BS)).as("as the JDK reads it").isEqualTo(data);
    }

    @Test
    void vectoredWriteAndReadUseEveryIovec() {
        MemorySegment a = buffer(BS);
        MemorySegment b = buffer(2 * BS);
        a.fill((byte) 'a');
        b.fill((byte) 'b');
        aio.writev(0, fd, iovecs(a, b).address(), 2, BS, 0);
        aio.submit(record);
        await(1);
        assertThat(results.get(0)).isEqualTo(3 * BS);

        results.clear();
        MemorySegment x = buffer(2 * BS);
        MemorySegment y = buffer(BS);
        aio.readv(1, fd, iovecs(x, y).address(), 2, BS, 0);
        aio.submit(record);
        await(1);
        assertThat(results.get(1)).isEqualTo(3 * BS);
        assertThat(x.asSlice(0, BS).toArray(JAVA_BYTE)).containsOnly('a');
        assertThat(x.asSlice(BS).toArray(JAVA_BYTE)).containsOnly('b');
        assertThat(y.toArray(JAVA_BYTE)).containsOnly('b');
    }

    private MemorySegment iovecs(MemorySegment... buffers) {
        MemorySegment iov = arena.allocate(16L * buffers.length, 8);
        for (int i = 0; i < buffers.length; i++) {
            iov.set(JAVA_LONG, 16L * i, buffers[i].address());
            iov.set(JAVA_LONG, 16L * i + 8, buffers[i].byteSize());
        }
        return iov;
    }

    @Test
    void readsAtAndAcrossTheEndOfTheFileAreZeroAndShort() {
        aio.read(0, fd, buffer(BS).address(), BS, (long) BLOCKS * BS, 0);
        aio.read(1, fd, buffer(4 * BS).address(), 4 * BS, (long) (BLOCKS - 1) * BS, 0);
        aio.submit(record);
        await(2);
        assertThat(results.get(0)).as("at EOF").isZero();
        assertThat(results.get(1)).as("across EOF").isEqualTo(BS);
    }

    @Test
    void aMisalignedDirectReadCompletesWithEinval() {
        aio.read(0, fd, buffer(BS).address(), BS, 100, 0);
        assertThat(aio.submit(record)).as("taken: the error comes as its result").isOne();
        await(1);
        assertThat(results.get(0)).isEqualTo(-Errno.EINVAL);
    }

    @Test
    void aBadFdIsRefusedBySubmitForItsSlotAndTheRestOfTheBatchStillRuns() {
        aio.read(0, fd, buffer(BS).address(), BS, 0, 0);
        aio.read(1, -1, buffer(BS).address(), BS, 0, 0);
        aio.read(2, fd, buffer(BS).address(), BS, BS, 0);
        assertThat(aio.submit(record)).isEqualTo(2);
        assertThat(results).as("reported by submit").containsExactly(Map.entry(1, (long) -Errno.EBADF));

        await(3);
        assertThat(results.get(0)).isEqualTo(BS);
        assertThat(results.get(2)).isEqualTo(BS);
    }

    /**
     * Resubmitting the same slots without reaping overfills the context (completed events hold their places until
     * reaped), which io_submit answers with EAGAIN: every iocb is then either taken — and reaped later — or
     * reported refused, none lost.
     */
    @Test
    void aFullContextRefusesTheRestOfTheBatchWithEagainAndLosesNothing() {
        int taken = 0;
        List<Long> refused = new ArrayList<>();
        for (int round = 0; round < 64 && refused.isEmpty(); round++) {
            for (int slot = 0; slot < 8; slot++) {
                aio.read(slot, fd, buffer(BS).address(), BS, (long) slot * BS, 0);
            }
            int took = aio.submit((slot, res) -> refused.add(res));
            assertThat(took + refused.size()).as("taken or refused, round %d", round).isEqualTo(8);
            taken += took;
        }
        assertThat(refused).as("refused once the context is full").isNotEmpty().containsOnly((long) -Errno.EAGAIN);

        int reaped = 0;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (reaped < taken && System.nanoTime() < deadline) {
            readable(10_000);
            reaped += aio.reap((slot, res) -> assertThat(res).as("slot %d", slot).isEqualTo(BS));
        }
        assertThat(reaped).as("events of the iocbs taken").isEqualTo(taken);
    }

    @Test
    void theEventfdFiresOnCompletionAndReapingQuietsIt() {
        assertThat(readable(0)).as("readable before any I/O").isFalse();
        aio.read(0, fd, buffer(BS).address(), BS, 0, 0);
        aio.submit(record);
        assertThat(readable(10_000)).as("readable after a completion").isTrue();
        assertThat(aio.reap(record)).isOne();
        assertThat(readable(0)).as("readable once reaped (a level-triggered epoll would spin)").isFalse();
        assertThat(aio.reap(record)).isZero();
    }

    @Test
    void syncsComplete() {
        aio.fsync(0, fd, false);
        aio.fsync(1, fd, true);
        assertThat(aio.submit(record)).isEqualTo(2);
        await(2);
        assertThat(results).containsOnly(Map.entry(0, 0L), Map.entry(1, 0L));
    }

    @Test
    void aDirectReadCannotBeCancelledAndCompletesWithItsOwnResult() {
        aio.read(5, fd, buffer(BS).address(), BS, 0, 0);
        aio.submit(record);
        assertThat(aio.cancel(5)).isEqualTo(-Errno.EINVAL);
        await(1);
        assertThat(results.get(5)).isEqualTo(BS);
    }

    @Test
    void closeReturnsOnlyOnceTheReadsInFlightHaveLandedInTheirBuffers() {
        MemorySegment[] buffers = new MemorySegment[BLOCKS];
        for (int i = 0; i < BLOCKS; i++) {
            buffers[i] = buffer(BS);
            aio.read(i, fd, buffers[i].address(), BS, (long) i * BS, 0);
        }
        assertThat(aio.submit(record)).isEqualTo(BLOCKS);
        aio.close();
        for (int i = 0; i < BLOCKS; i++) {
            assertThat(buffers[i].toArray(JAVA_BYTE)).as("block %d after close", i).isEqualTo(block(i));
        }
        assertThat(results).as("events are dropped by io_destroy").isEmpty();
    }

    @Test
    void aContextLargerThanAioMaxNrIsEagainNotAnException() throws IOException {
        // readAllLines: Files.readString sees only the first byte of this size-0 procfs file (JDK 25, Linux 6.18).
        int max = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/fs/aio-max-nr")).getFirst().strip());
        try (AioContext big = new AioContext(max + 1)) {
            assertThat(big.open()).isEqualTo(-Errno.EAGAIN);
        }
    }
}
