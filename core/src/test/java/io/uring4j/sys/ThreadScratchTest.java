package io.uring4j.sys;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/** Per-thread native scratch: a platform thread's own, a virtual thread's carrier's. */
class ThreadScratchTest {
    @TempDir
    Path dir;

    @Test
    void aPlatformThreadKeepsItsOwnSegment() throws Exception {
        ThreadScratch scratch = new ThreadScratch(16);
        MemorySegment mine = scratch.get();
        assertThat(scratch.get()).isSameAs(mine);
        MemorySegment[] other = new MemorySegment[1];
        Thread t = Thread.ofPlatform().start(() -> other[0] = scratch.get());
        t.join();
        assertThat(other[0].address()).isNotEqualTo(mine.address());
        assertThat(mine.byteSize()).isEqualTo(16);
    }

    /** A thousand new virtual threads allocate a segment per carrier, not one each. */
    @Test
    void newVirtualThreadsShareTheirCarriersSegments() throws Exception {
        ThreadScratch scratch = new ThreadScratch(16);
        List<long[]> seen = new CopyOnWriteArrayList<>();          // {carrier, segment address}
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            threads.add(Thread.ofVirtual().start(
                    () -> seen.add(new long[] {LibC.threadSelf(), scratch.get().address()})));
        }
        for (Thread t : threads) {
            t.join();
        }
        Map<Long, Long> segmentOfCarrier = new HashMap<>();
        Set<Long> segments = new HashSet<>();
        for (long[] s : seen) {
            assertThat(segmentOfCarrier.computeIfAbsent(s[0], k -> s[1])).as("one segment per carrier").isEqualTo(s[1]);
            segments.add(s[1]);
        }
        assertThat(segments).as("a segment per carrier").hasSameSizeAs(segmentOfCarrier.keySet());
        assertThat(segments.size()).isLessThan(1000);
    }

    /** Virtual threads reading at once through their carriers' iovecs each get their own file's bytes. */
    @Test
    void virtualThreadsReadingAtOnceGetTheirOwnBytesAndErrnos() throws Exception {
        int readers = 32;
        List<Path> paths = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            byte[] data = new byte[4096];
            java.util.Arrays.fill(data, (byte) r);
            paths.add(Files.write(dir.resolve("f" + r), data));
        }
        Set<String> failures = ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            int reader = r;
            threads.add(Thread.ofVirtual().start(() -> {
                int fd = LibC.open(paths.get(reader).toString(), LibC.O_RDONLY, 0);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment buf = arena.allocate(512);
                    for (int i = 0; i < 2000; i++) {
                        long n = LibC.preadv2(fd, buf, (i % 8) * 512L, 0);
                        if (n != 512 || buf.get(JAVA_BYTE, (i * 7) % 512) != (byte) reader) {
                            failures.add("reader " + reader + " read " + n);
                        }
                        if (LibC.close(-1) != -Errno.EBADF) {
                            failures.add("reader " + reader + ": close(-1) not EBADF");
                        }
                        if (i % 100 == 0) {
                            Thread.yield();                 // move between carriers
                        }
                    }
                } finally {
                    LibC.close(fd);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).isEmpty();
    }
}
