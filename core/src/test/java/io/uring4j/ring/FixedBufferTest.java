package io.uring4j.ring;

import io.uring4j.ring.FileTestKit.Completion;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static io.uring4j.ring.FileTestKit.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing read-write.c (its READ_FIXED/WRITE_FIXED half) and the fixed-buf tests: registered buffers used for
 * buffered and O_DIRECT I/O at random offsets, with and without IOSQE_ASYNC; addresses outside a registered
 * buffer and unknown buffer indexes fail with -EFAULT; a sparse buffer table filled by an update.
 */
class FixedBufferTest {
    private static final int BS = 4096;
    private static final int BLOCKS = 16;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "O_DIRECT={0} ASYNC={1}")
    @CsvSource({"false,false", "false,true", "true,false", "true,true"})
    void writeFixedThenReadFixedAtRandomOffsets(boolean direct, boolean async) throws Exception {
        Path file = dir.resolve("fixed.dat");
        int fd = open(file, LibC.O_CREAT | LibC.O_RDWR | (direct ? LibC.O_DIRECT : 0));
        int sqeFlags = async ? SqeFlags.ASYNC : 0;
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(BLOCKS)) {
            // Buffers 0..BLOCKS-1 are written from, BLOCKS..2*BLOCKS-1 read into.
            MemorySegment[] bufs = new MemorySegment[2 * BLOCKS];
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = arena.allocate(BS, BS);
                if (i < BLOCKS) {
                    fillPattern(bufs[i], i);
                }
            }
            ring.register().buffers(bufs);

            for (int block : shuffled(3)) {
                ring.sq().next().prepWriteFixed(fd, bufs[block], (long) block * BS, block)
                        .userData(block).addFlags(sqeFlags);
            }
            assertAllFull(submitAndReap(ring, BLOCKS));

            for (int block : shuffled(4)) {
                ring.sq().next().prepReadFixed(fd, bufs[BLOCKS + block], (long) block * BS, BLOCKS + block)
                        .userData(block).addFlags(sqeFlags);
            }
            assertAllFull(submitAndReap(ring, BLOCKS));

            for (int i = 0; i < BLOCKS; i++) {
                assertThat(bytes(bufs[BLOCKS + i])).as("block %d", i).isEqualTo(pattern(i, BS));
            }
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void fixedReadIntoPartOfARegisteredBufferFillsOnlyThatPart() throws Exception {
        Path file = dir.resolve("part.dat");
        Files.write(file, pattern(5, BS));
        int fd = open(file, LibC.O_RDONLY);
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment buf = arena.allocate(BS, BS);
            fill(buf, (byte) 0x7f);
            ring.register().buffers(buf);

            // A slice in the middle of the registered buffer: the kernel maps the address into it.
            ring.sq().next().prepReadFixed(fd, buf.asSlice(1000, 100), 0, 0);
            assertThat(run(ring)).isEqualTo(100);

            byte[] got = bytes(buf);
            byte[] expected = new byte[BS];
            Arrays.fill(expected, (byte) 0x7f);
            System.arraycopy(pattern(5, 100), 0, expected, 1000, 100);
            assertThat(got).isEqualTo(expected);
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void fixedReadOutsideTheRegisteredBufferFailsWithEfault() throws Exception {
        Path file = dir.resolve("outside.dat");
        Files.write(file, pattern(1, BS));
        int fd = open(file, LibC.O_RDONLY);
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment whole = arena.allocate(2 * BS, BS);
            ring.register().buffers(whole.asSlice(0, BS));

            // The second page was never registered: the range check must refuse it.
            ring.sq().next().prepReadFixed(fd, whole.asSlice(BS, BS), 0, 0);
            assertThat(run(ring)).isEqualTo(-Errno.EFAULT);
            // Straddling the end of the registered buffer.
            ring.sq().next().prepReadFixed(fd, whole.asSlice(BS / 2, BS), 0, 0);
            assertThat(run(ring)).isEqualTo(-Errno.EFAULT);
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void fixedReadWithAnUnknownBufferIndexFailsWithEfault() throws Exception {
        Path file = dir.resolve("index.dat");
        Files.write(file, pattern(1, BS));
        int fd = open(file, LibC.O_RDONLY);
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment buf = arena.allocate(BS, BS);
            ring.register().buffers(buf);
            ring.sq().next().prepReadFixed(fd, buf, 0, 1);
            assertThat(run(ring)).isEqualTo(-Errno.EFAULT);

            ring.register().unregisterBuffers();
            ring.sq().next().prepReadFixed(fd, buf, 0, 0);
            assertThat(run(ring)).isEqualTo(-Errno.EFAULT);
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void sparseBufferTableAcceptsAnUpdateThenReadFixedUsesTheUpdatedSlot() throws Exception {
        Path file = dir.resolve("sparse.dat");
        Files.write(file, pattern(7, BS));
        int fd = open(file, LibC.O_RDONLY);
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment buf = arena.allocate(BS, BS);
            ring.register().buffersSparse(8);

            // Slot 3 is still empty.
            ring.sq().next().prepReadFixed(fd, buf, 0, 3);
            assertThat(run(ring)).isEqualTo(-Errno.EFAULT);

            assertThat(ring.register().updateBuffers(3, buf)).isEqualTo(1);
            ring.sq().next().prepReadFixed(fd, buf, 0, 3);
            assertThat(run(ring)).isEqualTo(BS);
            assertThat(bytes(buf)).isEqualTo(pattern(7, BS));

            // Other slots stay empty.
            ring.sq().next().prepReadFixed(fd, buf, 0, 2);
            assertThat(run(ring)).isEqualTo(-Errno.EFAULT);
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void registeringBuffersTwiceFailsWithEbusy() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment buf = arena.allocate(BS, BS);
            ring.register().buffers(buf);
            assertThat(errnoOf(() -> ring.register().buffers(buf))).isEqualTo(Errno.EBUSY);
        }
    }

    private static void assertAllFull(List<Completion> completions) {
        assertThat(completions).hasSize(BLOCKS)
                .allSatisfy(c -> assertThat(c.res()).as("block %d", c.userData()).isEqualTo(BS));
        assertThat(completions).extracting(Completion::userData).doesNotHaveDuplicates();
    }

    private static List<Integer> shuffled(long seed) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < BLOCKS; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(seed));
        return order;
    }
}
