package io.uring4j.ring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Data for the I/O tests: {@code struct iovec} arrays, position-dependent byte patterns, and blocks written or
 * read in a scrambled order. Open files are {@link Fd}s, pipes {@link Pipe}s.
 */
final class FileKit {
    /** {@code struct iovec}: base u64, len u64. */
    static final long IOVEC_SIZE = 16;

    private FileKit() {
    }

    /** An array of {@code struct iovec} describing {@code buffers}, in order. */
    static MemorySegment iovecs(Arena arena, MemorySegment... buffers) {
        MemorySegment iov = arena.allocate(IOVEC_SIZE * buffers.length, 8);
        for (int i = 0; i < buffers.length; i++) {
            iov.set(JAVA_LONG, IOVEC_SIZE * i, buffers[i].address());
            iov.set(JAVA_LONG, IOVEC_SIZE * i + 8, buffers[i].byteSize());
        }
        return iov;
    }

    /** The byte at {@code pos} of the test pattern {@code seed}: position-dependent, so misplaced data shows. */
    static byte patternByte(int seed, long pos) {
        return (byte) (seed * 31 + pos * 7 + (pos >>> 9));
    }

    /** {@code length} bytes of pattern {@code seed}; different seeds (mod 256) give different bytes everywhere. */
    static byte[] pattern(int seed, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = patternByte(seed, i);
        }
        return bytes;
    }

    static void fillPattern(MemorySegment buf, int seed) {
        for (long i = 0; i < buf.byteSize(); i++) {
            buf.set(JAVA_BYTE, i, patternByte(seed, i));
        }
    }

    static byte[] bytes(MemorySegment buf) {
        return buf.toArray(JAVA_BYTE);
    }

    /** Block numbers 0..{@code count}-1 in a fixed pseudo-random order. */
    static List<Integer> shuffledBlocks(int count, long seed) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(seed));
        return order;
    }

    /** One CQE per block 0..{@code count}-1 (user_data = block number), each transferring {@code blockSize}. */
    static void assertEveryBlockTransferred(List<Completion> completions, int count, int blockSize) {
        assertThat(completions).allSatisfy(c -> assertThat(c.res()).as("block %d", c.userData()).isEqualTo(blockSize));
        assertThat(completions).extracting(Completion::userData)
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, count).boxed().toList());
    }
}
