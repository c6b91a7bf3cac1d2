package io.uring4j.ring;

import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static io.uring4j.ring.FileKit.assertEveryBlockTransferred;
import static io.uring4j.ring.FileKit.bytes;
import static io.uring4j.ring.FileKit.shuffledBlocks;
import static io.uring4j.ring.Reap.run;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.errnoOf;
import static io.uring4j.testkit.Patterns.fillPattern;
import static io.uring4j.testkit.Patterns.pattern;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing read-write.c (its READ_FIXED/WRITE_FIXED half) and the fixed-buf tests: registered buffers used for
 * buffered and O_DIRECT I/O at random offsets, with and without IOSQE_ASYNC; addresses outside a registered
 * buffer and unknown buffer indexes fail with -EFAULT; a sparse buffer table filled by an update.
 */
@BothEngines
class FixedBufferTest {
    private static final int BS = 4096;
    private static final int BLOCKS = 16;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "O_DIRECT={0} ASYNC={1}")
    @CsvSource({"false,false", "false,true", "true,false", "true,true"})
    void writeFixedThenReadFixedAtRandomOffsets(boolean direct, boolean async) throws Exception {
        int sqeFlags = async ? SqeFlags.ASYNC : 0;
        try (Fd file = Fd.open(dir.resolve("fixed.dat"), LibC.O_CREAT | LibC.O_RDWR | (direct ? LibC.O_DIRECT : 0));
             Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(BLOCKS)) {
            // Buffers 0..BLOCKS-1 are written from, BLOCKS..2*BLOCKS-1 read into.
            MemorySegment[] bufs = new MemorySegment[2 * BLOCKS];
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = arena.allocate(BS, BS);
                if (i < BLOCKS) {
                    fillPattern(bufs[i], i);
                }
            }
            ring.register().buffers(bufs);

            for (int block : shuffledBlocks(BLOCKS, 3)) {
                ring.sq().next().prepWriteFixed(file.fd(), bufs[block], (long) block * BS, block)
                        .userData(block).addFlags(sqeFlags);
            }
            assertEveryBlockTransferred(submitAndReap(ring, BLOCKS), BLOCKS, BS);

            for (int block : shuffledBlocks(BLOCKS, 4)) {
                ring.sq().next().prepReadFixed(file.fd(), bufs[BLOCKS + block], (long) block * BS, BLOCKS + block)
                        .userData(block).addFlags(sqeFlags);
            }
            assertEveryBlockTransferred(submitAndReap(ring, BLOCKS), BLOCKS, BS);

            for (int i = 0; i < BLOCKS; i++) {
                assertThat(bytes(bufs[BLOCKS + i])).as("block %d", i).isEqualTo(pattern(i, BS));
            }
        }
    }

    @Test
    void fixedReadIntoPartOfARegisteredBufferFillsOnlyThatPart() throws Exception {
        try (Fd file = patternFile(5); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment buf = arena.allocate(BS, BS);
            buf.fill((byte) 0x7f);
            ring.register().buffers(buf);

            // A slice in the middle of the registered buffer: the kernel maps the address into it.
            assertThat(readFixed(ring, file, buf.asSlice(1000, 100), 0)).isEqualTo(100);

            byte[] expected = new byte[BS];
            Arrays.fill(expected, (byte) 0x7f);
            System.arraycopy(pattern(5, 100), 0, expected, 1000, 100);
            assertThat(bytes(buf)).isEqualTo(expected);
        }
    }

    @Test
    void fixedReadOutsideTheRegisteredBufferFailsWithEfault() throws Exception {
        try (Fd file = patternFile(1); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment whole = arena.allocate(2 * BS, BS);
            ring.register().buffers(whole.asSlice(0, BS));

            // The second page was never registered: the range check must refuse it.
            assertThat(readFixed(ring, file, whole.asSlice(BS, BS), 0)).isEqualTo(-Errno.EFAULT);
            // Straddling the end of the registered buffer.
            assertThat(readFixed(ring, file, whole.asSlice(BS / 2, BS), 0)).isEqualTo(-Errno.EFAULT);
        }
    }

    @Test
    void fixedReadWithAnUnknownBufferIndexFailsWithEfault() throws Exception {
        try (Fd file = patternFile(1); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment buf = arena.allocate(BS, BS);
            ring.register().buffers(buf);
            assertThat(readFixed(ring, file, buf, 1)).isEqualTo(-Errno.EFAULT);

            ring.register().unregisterBuffers();
            assertThat(readFixed(ring, file, buf, 0)).isEqualTo(-Errno.EFAULT);
        }
    }

    @Test
    void sparseBufferTableAcceptsAnUpdateThenReadFixedUsesTheUpdatedSlot() throws Exception {
        try (Fd file = patternFile(7); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment buf = arena.allocate(BS, BS);
            ring.register().buffersSparse(8);
            assertThat(readFixed(ring, file, buf, 3)).as("slot 3 is still empty").isEqualTo(-Errno.EFAULT);

            assertThat(ring.register().updateBuffers(3, buf)).isEqualTo(1);
            assertThat(readFixed(ring, file, buf, 3)).isEqualTo(BS);
            assertThat(bytes(buf)).isEqualTo(pattern(7, BS));

            assertThat(readFixed(ring, file, buf, 2)).as("other slots stay empty").isEqualTo(-Errno.EFAULT);
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

    /** A file of one block of pattern {@code seed}, open for reading. */
    private Fd patternFile(int seed) throws Exception {
        return Fd.open(Files.write(dir.resolve("pattern-" + seed + ".dat"), pattern(seed, BS)), LibC.O_RDONLY);
    }

    /** READ_FIXED of {@code buf} (registered buffer {@code index}) from offset 0; returns the result. */
    private static int readFixed(IoUring ring, Fd file, MemorySegment buf, int index) throws Exception {
        ring.sq().next().prepReadFixed(file.fd(), buf, 0, index);
        return run(ring);
    }
}
