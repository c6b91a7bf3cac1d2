package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static io.uring4j.ring.FileKit.assertEveryBlockTransferred;
import static io.uring4j.ring.FileKit.bytes;
import static io.uring4j.ring.FileKit.iovecs;
import static io.uring4j.ring.FileKit.shuffledBlocks;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.run;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.testkit.Patterns.fillPattern;
import static io.uring4j.testkit.Patterns.pattern;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * liburing read-write.c: buffered and O_DIRECT writes, then reads, at random block offsets through READ/WRITE and
 * READV/WRITEV, with and without IOSQE_ASYNC. Every result is the full length and the data read back is the data
 * written. Fixed buffers are in {@link FixedBufferTest}, provided buffers in {@link ProvidedBuffersTest}.
 */
@BothEngines
class ReadWriteTest {
    private static final int BS = 4096;
    private static final int BLOCKS = 32;

    @TempDir
    Path dir;

    static Stream<Arguments> modes() {
        List<Arguments> modes = new ArrayList<>();
        for (boolean vectored : new boolean[] {false, true}) {
            for (boolean direct : new boolean[] {false, true}) {
                for (boolean async : new boolean[] {false, true}) {
                    modes.add(Arguments.of(vectored, direct, async));
                }
            }
        }
        return modes.stream();
    }

    @ParameterizedTest(name = "vectored={0} O_DIRECT={1} ASYNC={2}")
    @MethodSource("modes")
    void writesThenReadsBlocksAtRandomOffsets(boolean vectored, boolean direct, boolean async) throws Exception {
        Path path = dir.resolve("rw.dat");
        int sqeFlags = async ? SqeFlags.ASYNC : 0;
        try (Fd file = Fd.open(path, LibC.O_CREAT | LibC.O_RDWR | (direct ? LibC.O_DIRECT : 0));
             Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(BLOCKS)) {
            MemorySegment[] out = new MemorySegment[BLOCKS];
            MemorySegment[] in = new MemorySegment[BLOCKS];
            for (int i = 0; i < BLOCKS; i++) {
                // 4096-aligned: O_DIRECT needs block-aligned memory as well as offsets and lengths.
                out[i] = arena.allocate(BS, BS);
                fillPattern(out[i], i);
                in[i] = arena.allocate(BS, BS);
            }

            for (int block : shuffledBlocks(BLOCKS, 1)) {
                prep(ring.sq().next(), true, vectored, file.fd(), out[block], (long) block * BS, arena)
                        .userData(block).addFlags(sqeFlags);
            }
            assertEveryBlockTransferred(submitAndReap(ring, BLOCKS), BLOCKS, BS);

            for (int block : shuffledBlocks(BLOCKS, 2)) {
                prep(ring.sq().next(), false, vectored, file.fd(), in[block], (long) block * BS, arena)
                        .userData(block).addFlags(sqeFlags);
            }
            assertEveryBlockTransferred(submitAndReap(ring, BLOCKS), BLOCKS, BS);

            for (int i = 0; i < BLOCKS; i++) {
                assertThat(bytes(in[i])).as("block %d read back", i).isEqualTo(pattern(i, BS));
            }
        }
        // The file as the JDK sees it: the writes really landed at their offsets.
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < BLOCKS; i++) {
            expected.write(pattern(i, BS));
        }
        assertThat(Files.readAllBytes(path)).isEqualTo(expected.toByteArray());
    }

    @Test
    void writesThenReadsThroughAnSqpollRingWithARegisteredFile() throws Exception {
        Rings.kernelOnlyFlags(SetupFlags.SQPOLL);
        try (Fd file = Fd.open(dir.resolve("sqpoll.dat"), LibC.O_CREAT | LibC.O_RDWR); Arena arena = Arena.ofConfined();
             IoUring ring = IoUring.builder().entries(BLOCKS).sqpoll(1000).build()) {
            // As read-write.c does under SQPOLL: the file is slot 0 of the registered table.
            ring.register().files(file.fd());
            MemorySegment[] out = new MemorySegment[BLOCKS];
            MemorySegment[] in = new MemorySegment[BLOCKS];
            for (int block : shuffledBlocks(BLOCKS, 5)) {
                out[block] = arena.allocate(BS);
                fillPattern(out[block], block);
                in[block] = arena.allocate(BS);
                ring.sq().next().prepWrite(0, out[block], (long) block * BS).addFlags(SqeFlags.FIXED_FILE)
                        .userData(block);
            }
            ring.submitAndWait(BLOCKS);     // under SQPOLL the count may be short: the thread took some already
            assertEveryBlockTransferred(reap(ring, BLOCKS), BLOCKS, BS);

            for (int block : shuffledBlocks(BLOCKS, 6)) {
                ring.sq().next().prepRead(0, in[block], (long) block * BS).addFlags(SqeFlags.FIXED_FILE)
                        .userData(block);
            }
            ring.submitAndWait(BLOCKS);
            assertEveryBlockTransferred(reap(ring, BLOCKS), BLOCKS, BS);
            for (int i = 0; i < BLOCKS; i++) {
                assertThat(bytes(in[i])).as("block %d read back", i).isEqualTo(pattern(i, BS));
            }
        }
    }

    @Test
    void readAtOffsetMinusOneUsesAndAdvancesTheFilePosition() throws Exception {
        Path path = Files.write(dir.resolve("pos.dat"), pattern(9, 2 * BS));
        try (Fd file = Fd.open(path, LibC.O_RDONLY); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            assumeTrue(ring.hasFeature(Features.RW_CUR_POS),
                    "kernel lacks FEAT_RW_CUR_POS");
            MemorySegment first = arena.allocate(BS);
            MemorySegment second = arena.allocate(BS);
            ring.sq().next().prepRead(file.fd(), first, -1);
            assertThat(run(ring)).isEqualTo(BS);
            ring.sq().next().prepRead(file.fd(), second, -1);
            assertThat(run(ring)).isEqualTo(BS);

            byte[] whole = pattern(9, 2 * BS);
            assertThat(bytes(first)).isEqualTo(Arrays.copyOfRange(whole, 0, BS));
            assertThat(bytes(second)).isEqualTo(Arrays.copyOfRange(whole, BS, 2 * BS));
        }
    }

    @Test
    void aPipeIgnoresTheOffsetOfAReadOrAWrite() throws Exception {
        try (Pipe pipe = Pipe.open(); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment out = arena.allocate(100);
            fillPattern(out, 12);
            // pwrite/pread would say ESPIPE; io_uring hands the offset to the pipe, which has none to use.
            ring.sq().next().prepWrite(pipe.writeFd(), out, 4096);
            assertThat(run(ring)).isEqualTo(100);
            MemorySegment in = arena.allocate(100);
            ring.sq().next().prepRead(pipe.readFd(), in, 77);
            assertThat(run(ring)).isEqualTo(100);
            assertThat(bytes(in)).isEqualTo(pattern(12, 100));
        }
    }

    @Test
    void readOfAnEventfdReturnsItsEightByteCounter() throws Exception {
        try (EventFd efd = EventFd.open(0); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            efd.add(5);
            MemorySegment counter = arena.allocate(8, 8);
            ring.sq().next().prepRead(efd.fd(), counter, 0);
            assertThat(run(ring)).isEqualTo(8);
            assertThat(counter.get(JAVA_LONG, 0)).isEqualTo(5);
        }
    }

    @Test
    void readOfABadFdFailsWithEbadf() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            ring.sq().next().prepRead(-1, arena.allocate(64), 0);
            assertThat(run(ring)).isEqualTo(-Errno.EBADF);
        }
    }

    /** WRITE/READ of the whole buffer, or WRITEV/READV of it split into two iovecs. */
    private static Sqe prep(Sqe sqe, boolean write, boolean vectored, int fd, MemorySegment buf, long offset,
            Arena arena) {
        if (!vectored) {
            return write ? sqe.prepWrite(fd, buf, offset) : sqe.prepRead(fd, buf, offset);
        }
        // Two halves, still 512-aligned for O_DIRECT.
        MemorySegment iov = iovecs(arena, buf.asSlice(0, BS / 2), buf.asSlice(BS / 2, BS / 2));
        return write ? sqe.prepWritev(fd, iov, 2, offset, 0) : sqe.prepReadv(fd, iov, 2, offset, 0);
    }
}
