package io.uring4j.fs;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static io.uring4j.testkit.Patterns.pattern;
import static java.nio.file.StandardOpenOption.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Many virtual threads on one channel, and a close racing with them. */
@BothEngines
class ChannelConcurrencyTest {
    @UringRuntime(loops = 2)
    private static Uring uring;

    @TempDir
    Path dir;

    @Test
    void concurrentPositionalReadsEachGetTheirOwnBytes() throws Exception {
        int size = 1 << 20;
        Path path = Files.write(dir.resolve("shared"), pattern(1, size));
        try (FileChannel ch = UringFileChannel.open(uring, path, READ)) {
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 64; t++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    try {
                        for (int i = 0; i < 50; i++) {
                            int at = random.nextInt(size - 4096);
                            ByteBuffer b = random.nextBoolean() ? ByteBuffer.allocate(4096) : ByteBuffer.allocateDirect(4096);
                            assertThat(ch.read(b, at)).isEqualTo(4096);
                            byte[] got = new byte[4096];
                            b.flip().get(got);
                            assertThat(got).isEqualTo(pattern(1, at, 4096));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failures).isEmpty();
        }
    }

    /**
     * Writers race a close; right after it, another file is opened — typically under the same fd number. No write
     * of the closed channel may land in it: the fd is closed only after every request that named it is done.
     */
    @Test
    void aCloseRacingWritersNeverLetsThemWriteToTheNextFileOnTheSameFd() throws Exception {
        for (int round = 0; round < 20; round++) {
            Path first = dir.resolve("first-" + round);
            Path next = Files.write(dir.resolve("next-" + round), new byte[64 * 1024]);
            FileChannel ch = UringFileChannel.open(uring, first, WRITE, CREATE);
            AtomicInteger written = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                writers.add(Thread.ofVirtual().start(() -> {
                    ByteBuffer data = ByteBuffer.wrap(pattern(2, 4096));
                    try {
                        while (true) {
                            ch.write(data.clear(), ThreadLocalRandom.current().nextInt(15) * 4096L);
                            written.incrementAndGet();
                        }
                    } catch (ClosedChannelException expected) {     // or its AsynchronousCloseException
                        // the close won
                    } catch (Throwable e) {
                        unexpected.add(e);
                    }
                }));
            }
            while (written.get() < 16) {
                Thread.onSpinWait();
            }
            ch.close();
            try (FileChannel reused = FileChannel.open(next, READ, WRITE)) {
                for (Thread w : writers) {
                    w.join();
                }
                ByteBuffer all = ByteBuffer.allocate(64 * 1024);
                reused.read(all, 0);
                assertThat(all.array()).as("round %d", round).containsOnly(0);
            }
            assertThat(unexpected).isEmpty();
        }
    }
}
