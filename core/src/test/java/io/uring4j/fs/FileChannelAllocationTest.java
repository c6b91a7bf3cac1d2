package io.uring4j.fs;

import com.sun.management.ThreadMXBean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a platform thread's read or write of a heap buffer costs in allocation, warm: nothing of uring4j's, as the
 * JDK's channel costs nothing. A database reads its pages into heap buffers of one size (Lucene's NIOFSDirectory,
 * 1 KiB at a time), a stream reads 8 KiB at a time at the channel's position, and every object per read is a young
 * collection sooner. Runs in the zero-allocation JVM (see core/pom.xml).
 */
class FileChannelAllocationTest {
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int BLOCK = 1024;
    private static final int BLOCKS = 1024;
    private static final double JDK_CAPTURE_SLICE = 40;

    @TempDir
    Path dir;

    @Test
    void aHeapBufferReadOrWriteAtAPositionAllocatesNothing() throws Exception {
        assertBestRunsWithinTheJdksOwn(true);
    }

    /**
     * A stream's calls, at the channel's position: each used to cost two capturing lambdas, one for the position and
     * one for begin and end (48 bytes), where C2 did not inline them.
     */
    @Test
    void aHeapBufferReadOrWriteAtTheChannelsPositionAllocatesNothing() throws Exception {
        assertBestRunsWithinTheJdksOwn(false);
    }

    private void assertBestRunsWithinTheJdksOwn(boolean positional) throws Exception {
        Path file = Files.write(dir.resolve("pages"), new byte[BLOCK * BLOCKS]);
        try (FileChannel channel = UringFileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.allocate(BLOCK);
            List<Double> reads = new ArrayList<>();
            List<Double> writes = new ArrayList<>();
            for (int run = 0; run < 8; run++) {          // the first runs warm the JIT; the best counts
                reads.add(bytesPerCall(channel, buffer, false, positional));
                writes.add(bytesPerCall(channel, buffer, true, positional));
            }
            // What may remain is the JDK's own: the downcall slices its errno-capture segment (40 bytes) where C2
            // does not eliminate the slice. A positional call used to cost a lambda, a lease and its slice, and a
            // segment and a session over the caller's buffer as well: 150 bytes and more.
            assertThat(reads.stream().mapToDouble(d -> d).min().orElseThrow())
                    .as("bytes per read, best of %s", reads).isLessThanOrEqualTo(JDK_CAPTURE_SLICE);
            assertThat(writes.stream().mapToDouble(d -> d).min().orElseThrow())
                    .as("bytes per write, best of %s", writes).isLessThanOrEqualTo(JDK_CAPTURE_SLICE);
        }
    }

    private static double bytesPerCall(FileChannel channel, ByteBuffer buffer, boolean write, boolean positional)
            throws Exception {
        int calls = 20_000;
        long before = THREADS.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < calls; i++) {
            long at = (long) (i * 7 % BLOCKS) * BLOCK;
            buffer.clear();
            if (!positional) {
                channel.position(at);
            }
            int n = positional ? write ? channel.write(buffer, at) : channel.read(buffer, at)
                    : write ? channel.write(buffer) : channel.read(buffer);
            if (n != BLOCK) {
                throw new AssertionError((write ? "write" : "read") + " moved " + n + " bytes");
            }
        }
        return (THREADS.getCurrentThreadAllocatedBytes() - before) / (double) calls;
    }
}
