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
 * Data for the I/O tests: {@code struct iovec} arrays and blocks written or read in a scrambled order. Byte
 * patterns are {@link io.uring4j.testkit.Patterns}, open files {@link Fd}s, pipes {@link Pipe}s.
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
