package io.uring4j.portable;

import io.uring4j.ring.Cqe;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.IoUringBuilder;
import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.sys.Errno;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * O_DIRECT reads and writes on the portable engine, which runs them on native AIO ({@link DirectIo}): results,
 * data, a chain going on after an AIO completion, the kernel's errors as CQE results, and ring close with I/O in
 * flight — on a DEFER_TASKRUN ring (the issuer reaps in enter) and a plain one (the poller thread reaps).
 */
class DirectIoTest {
    private static final int BS = 4096;
    private static final int BLOCKS = 16;

    private final Arena arena = Arena.ofShared();
    private byte[] content;
    private Path path;
    private DirectFile file;
    private int fd = -1;

    @BeforeEach
    void directFile() throws IOException {
        content = new byte[BLOCKS * BS];
        new Random(7).nextBytes(content);
        file = DirectFile.create(Path.of(System.getProperty("java.io.tmpdir")), content);
        path = file.path();
        fd = file.fd();
    }

    @AfterEach
    void close() throws IOException {
        file.close();
        arena.close();
    }

    private static IoUring ring(boolean defer) throws Exception {
        IoUringBuilder b = IoUring.builder().entries(32).engine(Engine.portable());
        return (defer ? b.deferTaskrun() : b).build();
    }

    private static Map<Long, Integer> reap(IoUring ring, int n) throws Exception {
        Map<Long, Integer> results = new HashMap<>();
        ring.submitAndWait(0);
        while (results.size() < n) {
            Cqe cqe = ring.waitCqe();
            assertThat(results.put(cqe.userData(), cqe.res())).as("user_data %d twice", cqe.userData()).isNull();
            ring.cq().seen(cqe);
        }
        return results;
    }

    @ParameterizedTest(name = "DEFER_TASKRUN: {0}")
    @ValueSource(booleans = {true, false})
    void readsAtOffsetsReturnTheFileAndEofIsShort(boolean defer) throws Exception {
        try (IoUring ring = ring(defer)) {
            MemorySegment[] bufs = new MemorySegment[BLOCKS];
            for (int i = 0; i < BLOCKS; i++) {
                bufs[i] = arena.allocate(BS, BS);
                ring.sq().next().prepRead(fd, bufs[i], (long) (BLOCKS - 1 - i) * BS).userData(i);
            }
            MemorySegment tail = arena.allocate(2 * BS, BS);
            ring.sq().next().prepRead(fd, tail, (long) (BLOCKS - 1) * BS).userData(100);   // one block left
            Map<Long, Integer> results = reap(ring, BLOCKS + 1);

            for (int i = 0; i < BLOCKS; i++) {
                assertThat(results.get((long) i)).isEqualTo(BS);
                int block = BLOCKS - 1 - i;
                assertThat(bufs[i].toArray(JAVA_BYTE)).as("block %d", block)
                        .isEqualTo(java.util.Arrays.copyOfRange(content, block * BS, (block + 1) * BS));
            }
            assertThat(results.get(100L)).as("a read across EOF is short").isEqualTo(BS);
        }
    }

    @ParameterizedTest(name = "DEFER_TASKRUN: {0}")
    @ValueSource(booleans = {true, false})
    void readsBeyondTheAioContextsSizeFallBackToTheIoWqWithTheSameData(boolean defer) throws Exception {
        int reads = 1100;   // DirectIo keeps 1024 on AIO; the slots above go to the io-wq
        IoUringBuilder b = IoUring.builder().entries(2048).engine(Engine.portable());
        try (IoUring ring = (defer ? b.deferTaskrun() : b).build()) {
            MemorySegment bufs = arena.allocate((long) reads * BS, BS);
            for (int i = 0; i < reads; i++) {
                ring.sq().next().prepRead(fd, bufs.asSlice((long) i * BS, BS), (long) (i % BLOCKS) * BS).userData(i);
            }
            Map<Long, Integer> results = reap(ring, reads);

            for (int i = 0; i < reads; i++) {
                int block = i % BLOCKS;
                assertThat(results.get((long) i)).as("read %d", i).isEqualTo(BS);
                assertThat(bufs.asSlice((long) i * BS, BS).toArray(JAVA_BYTE)).as("read %d", i)
                        .isEqualTo(java.util.Arrays.copyOfRange(content, block * BS, (block + 1) * BS));
            }
        }
    }

    @ParameterizedTest(name = "DEFER_TASKRUN: {0}")
    @ValueSource(booleans = {true, false})
    void aLinkedWriteRunsAfterTheReadItFollows(boolean defer) throws Exception {
        try (IoUring ring = ring(defer)) {
            MemorySegment buf = arena.allocate(BS, BS);
            ring.sq().next().prepRead(fd, buf, 0).userData(1).link();
            ring.sq().next().prepWrite(fd, buf, (long) BLOCKS * BS).userData(2);     // block 0 copied to the end
            assertThat(reap(ring, 2)).containsEntry(1L, BS).containsEntry(2L, BS);
        }
        byte[] now = Files.readAllBytes(path);
        assertThat(now).hasSize((BLOCKS + 1) * BS);
        assertThat(java.util.Arrays.copyOfRange(now, BLOCKS * BS, (BLOCKS + 1) * BS))
                .isEqualTo(java.util.Arrays.copyOfRange(content, 0, BS));
    }

    @ParameterizedTest(name = "DEFER_TASKRUN: {0}")
    @ValueSource(booleans = {true, false})
    void theKernelsErrorsAreResultsAndFailTheChain(boolean defer) throws Exception {
        try (IoUring ring = ring(defer)) {
            MemorySegment misaligned = arena.allocate(2 * BS, BS).asSlice(1, BS);
            ring.sq().next().prepRead(fd, misaligned, 0).userData(1).link();
            ring.sq().next().prepNop().userData(2);
            MemorySegment buf = arena.allocate(BS, BS);
            ring.sq().next().prepRead(fd, buf, 1).userData(3);                     // misaligned offset
            ring.sq().next().prepRead(fd, buf, (long) BLOCKS * BS).userData(4);    // at EOF
            assertThat(reap(ring, 4)).containsExactlyInAnyOrderEntriesOf(Map.of(
                    1L, -Errno.EINVAL, 2L, -Errno.ECANCELED, 3L, -Errno.EINVAL, 4L, 0));
        }
    }

    /** The file position (offset -1) is not AIO's: such a read still works, on the io-wq. */
    @ParameterizedTest(name = "DEFER_TASKRUN: {0}")
    @ValueSource(booleans = {true, false})
    void aReadAtTheFilePositionStillWorks(boolean defer) throws Exception {
        try (IoUring ring = ring(defer)) {
            MemorySegment buf = arena.allocate(BS, BS);
            ring.sq().next().prepRead(fd, buf, -1).userData(1);
            assertThat(reap(ring, 1)).containsEntry(1L, BS);
            assertThat(buf.toArray(JAVA_BYTE)).isEqualTo(java.util.Arrays.copyOfRange(content, 0, BS));
        }
    }

    /** On a DEFER_TASKRUN ring, an enter that only gets events (no wait) reaps what AIO completed. */
    @org.junit.jupiter.api.Test
    void getEventsWithoutWaitingFindsTheCompletion() throws Exception {
        try (IoUring ring = ring(true)) {
            MemorySegment buf = arena.allocate(BS, BS);
            ring.sq().next().prepRead(fd, buf, 0).userData(1);
            ring.submit();
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (ring.cq().ready() == 0 && System.nanoTime() < deadline) {
                ring.getEvents();
            }
            assertThat(ring.cq().ready()).isEqualTo(1);
            assertThat(reap(ring, 1)).containsEntry(1L, BS);
        }
    }

    /**
     * With TASKRUN_FLAG, IORING_SQ_TASKRUN is up while direct I/O is in flight, so an application that only
     * peeks knows to enter, and finds the CQE.
     */
    @org.junit.jupiter.api.Test
    void peekingFindsTheCompletionWithTheTaskrunFlag() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).engine(Engine.portable()).deferTaskrun().taskrunFlag()
                .build()) {
            MemorySegment buf = arena.allocate(BS, BS);
            ring.sq().next().prepRead(fd, buf, 0).userData(1);
            ring.submit();
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            Cqe cqe = null;
            while (cqe == null && System.nanoTime() < deadline) {
                cqe = ring.peekCqe();
            }
            assertThat(cqe).isNotNull();
            assertThat(cqe.res()).isEqualTo(BS);
            ring.cq().seen(cqe);
            assertThat(ring.sq().kernelFlags() & SqRingFlags.TASKRUN).as("nothing pending")
                    .isZero();
        }
    }

    /** Close waits for reads in flight (io_destroy): afterwards every buffer holds what was read, and stays. */
    @ParameterizedTest(name = "DEFER_TASKRUN: {0}")
    @ValueSource(booleans = {true, false})
    void closingTheRingWithReadsInFlightWaitsForThem(boolean defer) throws Exception {
        MemorySegment[] bufs = new MemorySegment[BLOCKS];
        try (IoUring ring = ring(defer)) {
            for (int i = 0; i < BLOCKS; i++) {
                bufs[i] = arena.allocate(BS, BS);
                ring.sq().next().prepRead(fd, bufs[i], (long) i * BS).userData(i);
            }
            ring.submit();
        }
        for (int i = 0; i < BLOCKS; i++) {
            assertThat(bufs[i].toArray(JAVA_BYTE)).as("block %d", i)
                    .isEqualTo(java.util.Arrays.copyOfRange(content, i * BS, (i + 1) * BS));
        }
    }
}
