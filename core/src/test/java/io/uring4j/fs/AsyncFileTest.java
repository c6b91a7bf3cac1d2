package io.uring4j.fs;

import io.uring4j.runtime.OnVirtualThread;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.fs.FsTestKit.*;
import static io.uring4j.fs.OpenFlags.*;
import static io.uring4j.testkit.Patterns.pattern;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** AsyncFile: positional and vectored I/O in both styles, the fd operations, O_DIRECT checks, close and interrupt. */
@BothEngines
class AsyncFileTest {
    @UringRuntime(loops = 2)
    private static Uring uring;
    private static UringFiles files;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        files = UringFiles.of(uring);
    }

    /**
     * A file's type is asked when first needed, or answered by the size's statx (so that an open is one system call
     * and readAllBytes's open and size two, as the JDK's): whichever comes first, from a platform or a virtual
     * thread, a regular file, a directory, a FIFO and a character device each get their own answers.
     */
    @Test
    void aFilesTypeIsTheSameWhetherItsSizeOrItsTypeIsAskedFirst() throws Exception {
        Path regular = Files.write(dir.resolve("regular"), new byte[10]);
        Path fifo = dir.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        record Case(Path path, int flags, boolean other, boolean seekable) {
        }
        java.util.List<Case> cases = java.util.List.of(new Case(regular, O_RDONLY, false, true),
                new Case(dir, O_RDONLY, false, true), new Case(fifo, O_RDWR, true, false),
                new Case(Path.of("/dev/null"), O_RDWR, true, true));
        for (boolean virtual : new boolean[] {false, true}) {
            for (boolean sizeFirst : new boolean[] {false, true}) {
                for (Case c : cases) {
                    java.util.concurrent.Callable<String> ask = () -> {
                        try (AsyncFile f = files.open(c.path(), c.flags())) {
                            if (sizeFirst) {
                                f.size();
                            }
                            return "other " + f.isOther() + ", seekable " + f.isSeekable();
                        }
                    };
                    String answers = virtual ? OnVirtualThread.supply(ask).get(30, TimeUnit.SECONDS) : ask.call();
                    assertThat(answers).as("%s, %s thread, size first %s", c.path(), virtual ? "virtual" : "platform",
                            sizeFirst).isEqualTo("other " + c.other() + ", seekable " + c.seekable());
                }
            }
        }
    }

    @Test
    void writesAndReadsAtPositionsInBothStyles() throws Exception {
        Path path = dir.resolve("data");
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDWR | O_CREAT, 0644)) {
            assertThat(f.write(nativeCopy(arena, pattern(1, 1000)), 0)).isEqualTo(1000);
            assertThat(f.writeAsync(nativeCopy(arena, pattern(2, 500)), 5000).get(10, TimeUnit.SECONDS)).isEqualTo(500);
            assertThat(f.size()).isEqualTo(5500);

            MemorySegment buf = arena.allocate(1000);
            assertThat(f.read(buf, 0)).isEqualTo(1000);
            assertThat(buf.toArray(JAVA_BYTE)).isEqualTo(pattern(1, 1000));
            MemorySegment tail = arena.allocate(1000);
            assertThat(f.readAsync(tail, 5000).get(10, TimeUnit.SECONDS)).as("short read at EOF").isEqualTo(500);
            assertThat(tail.asSlice(0, 500).toArray(JAVA_BYTE)).isEqualTo(pattern(2, 500));
            assertThat(f.read(buf, 5500)).as("at EOF").isZero();
        }
        byte[] onDisk = content(path);
        assertThat(onDisk).hasSize(5500);
        assertThat(java.util.Arrays.copyOfRange(onDisk, 1000, 5000)).containsOnly(0);
    }

    @Test
    void vectoredIoSpreadsOverBuffersInOrder() throws Exception {
        Path path = dir.resolve("vectored");
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDWR | O_CREAT, 0644)) {
            byte[] data = pattern(3, 7 * 100);
            // Seven buffers: more iovecs than fit the request's scratch memory, so the op allocates its own.
            MemorySegment[] srcs = new MemorySegment[7];
            for (int i = 0; i < srcs.length; i++) {
                srcs[i] = nativeCopy(arena, java.util.Arrays.copyOfRange(data, i * 100, i * 100 + 100));
            }
            assertThat(f.write(srcs, 10)).isEqualTo(700);
            MemorySegment[] two = {arena.allocate(300), arena.allocate(500)};
            assertThat(f.readAsync(two, 10).get(10, TimeUnit.SECONDS)).isEqualTo(700);
            assertThat(two[0].toArray(JAVA_BYTE)).isEqualTo(java.util.Arrays.copyOfRange(data, 0, 300));
            assertThat(two[1].asSlice(0, 400).toArray(JAVA_BYTE)).isEqualTo(java.util.Arrays.copyOfRange(data, 300, 700));
        }
    }

    @Test
    void syncAllocateTruncateAdviseAndStat() throws Exception {
        Path path = dir.resolve("ops");
        try (AsyncFile f = files.open(path, O_RDWR | O_CREAT, 0640)) {
            f.allocate(0, 0, 1 << 20);
            assertThat(f.size()).isEqualTo(1 << 20);
            f.allocate(Fallocate.KEEP_SIZE, 1 << 20, 1 << 20);
            assertThat(f.size()).as("KEEP_SIZE").isEqualTo(1 << 20);
            f.truncate(12345);
            f.truncateAsync(12346).get(10, TimeUnit.SECONDS);
            f.advise(0, 0, Advice.SEQUENTIAL);
            f.adviseAsync(0, 4096, Advice.DONT_NEED).get(10, TimeUnit.SECONDS);
            f.fsync();
            f.fdatasync();
            f.fsyncAsync().get(10, TimeUnit.SECONDS);
            f.fdatasyncAsync().get(10, TimeUnit.SECONDS);
            Statx st = f.statAsync().get(10, TimeUnit.SECONDS);
            assertThat(st.size()).isEqualTo(12346).isEqualTo(Files.size(path));
            assertThat(st.isRegularFile()).isTrue();
            assertThat(st.permissions() & 0700).isEqualTo(0600);
            assertThat(st.inode()).isEqualTo((long) (Long) Files.getAttribute(path, "unix:ino"));
            assertThat(st.modified()).isEqualTo(Files.getLastModifiedTime(path).toInstant());
        }
    }

    @Test
    void kernelErrorsNameTheOpcode() throws Exception {
        Path path = dir.resolve("ro");
        Files.write(path, pattern(4, 10));
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDONLY)) {
            assertThatThrownBy(() -> f.write(arena.allocate(10), 0)).isInstanceOf(ErrnoException.class)
                    .hasMessageContaining("WRITE").hasMessageContaining("EBADF");
            assertThatThrownBy(() -> f.allocateAsync(0, 0, 10).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ErrnoException.class)
                    .hasMessageContaining("FALLOCATE");
        }
    }

    @Test
    void heapMemoryIsRefused() throws Exception {
        Path path = dir.resolve("heap");
        try (AsyncFile f = files.open(path, O_RDWR | O_CREAT)) {
            assertThatThrownBy(() -> f.read(MemorySegment.ofArray(new byte[16]), 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heap");
        }
    }

    @Test
    void directIoChecksAlignmentAndAllocatesSuitableBuffers() throws Exception {
        Path path = dir.resolve("direct");
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDWR | O_CREAT | O_DIRECT, 0644)) {
            assertThat(f.isDirect()).isTrue();
            int align = f.directAlignment();
            assertThat(align).isPositive();
            MemorySegment buf = f.allocateBuffer(arena, 4L * align);
            buf.copyFrom(MemorySegment.ofArray(pattern(5, 4 * align)));
            assertThat(f.write(buf, align)).isEqualTo(4 * align);
            MemorySegment back = f.allocateBuffer(arena, 4L * align);
            assertThat(f.read(back, align)).isEqualTo(4 * align);
            assertThat(back.toArray(JAVA_BYTE)).isEqualTo(pattern(5, 4 * align));

            MemorySegment misplaced = arena.allocate(2L * align + 64, align).asSlice(1, 2L * align);
            assertThatThrownBy(() -> f.read(misplaced, 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("O_DIRECT").hasMessageContaining("aligned to " + f.directMemoryAlignment())
                    .hasMessageContaining(String.format("0x%x", misplaced.address()));
            assertThatThrownBy(() -> f.read(buf.asSlice(0, align - 1), 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("length " + (align - 1));
            assertThatThrownBy(() -> f.writeAsync(buf, 7)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("position 7");
            assertThatThrownBy(() -> f.allocateBuffer(arena, align + 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("multiples of " + align);
        }
    }

    /**
     * Virtual threads reading an O_DIRECT file whose device answers at once — a preallocated file, whose unwritten
     * extents read as zeros without the device — are batched and waited for on their carriers: each read fills its
     * buffer, the end of file reads 0, and the event loops see only the reads of a device found slow (a busy
     * machine can make a batch look slow; its first batches are always tried inline).
     */
    @Test
    void directReadsOfAFastDeviceAreWaitedForOnTheCarriers() throws Exception {
        int size = 1 << 20;
        int threads = 32;
        int readsEach = 200;
        Path path = dir.resolve("preallocated");
        try (AsyncFile f = files.open(path, O_RDWR | O_CREAT, 0644)) {
            f.allocate(0, 0, size);
        }
        try (AsyncFile f = files.open(path, O_RDONLY | O_DIRECT, 0)) {
            int block = Math.max(4096, f.directAlignment());
            long submittedBefore = submitted();
            java.util.List<CompletableFuture<Integer>> readers = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                readers.add(OnVirtualThread.supply(() -> {
                    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
                    try (Arena arena = Arena.ofConfined()) {
                        MemorySegment buf = f.allocateBuffer(arena, block);
                        for (int i = 0; i < readsEach; i++) {
                            buf.fill((byte) 0x5a);
                            assertThat(f.read(buf, (long) random.nextInt(size / block) * block)).isEqualTo(block);
                            assertThat(buf.toArray(JAVA_BYTE)).containsOnly(0);
                        }
                        assertThat(f.read(buf, size)).as("at the end").isZero();
                    }
                    return readsEach;
                }));
            }
            for (CompletableFuture<Integer> r : readers) {
                assertThat(r.get(60, TimeUnit.SECONDS)).isEqualTo(readsEach);
            }
            if (InlineReads.of(uring) != null) {      // the portable engine has no carrier rings: all go to its loops
                assertThat(submitted() - submittedBefore).as("reads that went to an event loop")
                        .isLessThan(threads * (readsEach + 1L));
            }
        }
    }

    @Test
    void aClosedFileRefusesRequests() throws Exception {
        Path path = dir.resolve("closed");
        AsyncFile f = files.open(path, O_RDWR | O_CREAT);
        f.close();
        f.close();
        assertThat(f.isOpen()).isFalse();
        try (Arena arena = Arena.ofShared()) {
            assertThatThrownBy(() -> f.read(arena.allocate(8), 0)).isInstanceOf(ClosedChannelException.class);
            assertThatThrownBy(() -> f.fsyncAsync().get()).cause().isInstanceOf(ClosedChannelException.class);
        }
        assertThat(f.closeAsync()).succeedsWithin(java.time.Duration.ofSeconds(10));
    }

    @Test
    void closeCancelsAReadInFlight() throws Throwable {
        Path fifo = mkfifo(dir.resolve("fifo"));
        try (Arena arena = Arena.ofShared()) {
            // O_RDWR: opening a FIFO for reading alone would wait for a writer.
            AsyncFile f = files.open(fifo, O_RDWR);
            MemorySegment buf = arena.allocate(64);
            CompletableFuture<Integer> pending = f.readAsync(buf, 0);
            AtomicReference<Throwable> blocking = new AtomicReference<>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    f.read(arena.allocate(64), 0);
                } catch (Throwable t) {
                    blocking.set(t);
                }
            });
            awaitBlocked(reader);
            f.close();          // returns once the kernel has finished with both reads and the fd is closed
            reader.join();
            assertThat(blocking.get()).isInstanceOf(AsynchronousCloseException.class);
            assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(AsynchronousCloseException.class);
        }
    }

    /**
     * A FIFO's read may wait for ever, so it must not put its loop into a sleep that only a CQE ends: a regular
     * file's call on the same loop meanwhile is still submitted at once ({@code EventLoop.callBounded}).
     */
    @Test
    void aFifoReadInFlightDoesNotHoldBackARegularFilesCalls() throws Throwable {
        Path fifo = mkfifo(dir.resolve("fifo"));
        try (Uring one = Uring.builder().loops(1).build(); Arena arena = Arena.ofShared()) {
            UringFiles onOne = UringFiles.of(one);
            try (AsyncFile pipe = onOne.open(fifo, O_RDWR);
                 AsyncFile file = onOne.open(dir.resolve("plain"), O_RDWR | O_CREAT, 0644)) {
                CompletableFuture<Integer> pending = OnVirtualThread.supply(() -> pipe.read(arena.allocate(64), 0));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (one.loop().stats().inFlight() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertThat(one.loop().stats().inFlight()).as("the FIFO read is in flight").isEqualTo(1);
                MemorySegment data = nativeCopy(arena, pattern(8, 100));
                assertThat(OnVirtualThread.supply(() -> file.write(data, 0)).get(10, TimeUnit.SECONDS)).isEqualTo(100);
                assertThat(pending).isNotDone();
                MemorySegment msg = nativeCopy(arena, pattern(9, 5));
                assertThat(OnVirtualThread.supply(() -> pipe.write(msg, 0)).get(10, TimeUnit.SECONDS)).isEqualTo(5);
                assertThat(pending.get(10, TimeUnit.SECONDS)).isEqualTo(5);
            }
        }
    }

    @Test
    void anInterruptedReadThrowsAndLeavesTheFileOpen() throws Throwable {
        Path fifo = mkfifo(dir.resolve("fifo"));
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(fifo, O_RDWR)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> interruptKept = new AtomicReference<>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    f.read(arena.allocate(64), 0);
                } catch (Throwable t) {
                    failure.set(t);
                    interruptKept.set(Thread.currentThread().isInterrupted());
                }
            });
            awaitBlocked(reader);
            reader.interrupt();
            reader.join();
            assertThat(failure.get()).isInstanceOf(InterruptedIOException.class);
            assertThat(interruptKept.get()).isTrue();
            assertThat(f.isOpen()).isTrue();
            MemorySegment msg = nativeCopy(arena, pattern(6, 10));
            assertThat(f.write(msg, 0)).isEqualTo(10);
            MemorySegment in = arena.allocate(10);
            assertThat(f.read(in, 0)).as("the interrupted read consumed nothing").isEqualTo(10);
            assertThat(in.toArray(JAVA_BYTE)).isEqualTo(pattern(6, 10));
        }
    }

    /**
     * A platform thread's read is one pread on the calling thread, as the JDK's: no request, cached or not — the
     * thread blocks either way, and a hand-over to an event loop and back would only add to it.
     */
    @Test
    void aPlatformThreadsReadsNeedNoRequestCachedOrNot() throws Exception {
        cachedAndPartlyCachedReads("cached", false);
    }

    /**
     * A virtual thread's buffered read of cached pages is copied on its carrier (RWF_NOWAIT, batched through
     * {@link InlineReads} where system calls are dear: {@link ReadBatching}), with no request; when only part of
     * the range is cached, the rest goes through the ring and the caller still gets all of it.
     */
    @Test
    void aVirtualThreadsCachedReadsNeedNoRequestAndPartlyCachedOnesAreNotShort() throws Exception {
        OnVirtualThread.supply(() -> {
            cachedAndPartlyCachedReads("cached-virtual", true);
            return null;
        }).get(60, TimeUnit.SECONDS);
    }

    /**
     * A virtual thread's read of a cached file into a buffer larger than what is left of it — a small file read
     * whole, a stream's last read — needs no request: its short count is checked against the file's end in place
     * (an RWF_NOWAIT try of the rest, which reads nothing), not handed to an event loop. On a platform thread too.
     */
    @Test
    void aCachedReadThatReachesTheEndNeedsNoRequest() throws Exception {
        Path path = dir.resolve("small");
        byte[] data = pattern(11, 100);
        Files.write(path, data);
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDONLY)) {
            MemorySegment buf = arena.allocate(8192);
            long before = submitted();
            for (int i = 0; i < 3; i++) {
                buf.fill((byte) 0);
                assertThat(OnVirtualThread.supply(() -> f.read(buf, 0)).get(60, TimeUnit.SECONDS)).isEqualTo(100);
                assertThat(buf.asSlice(0, 100).toArray(JAVA_BYTE)).isEqualTo(data);
                assertThat(OnVirtualThread.supply(() -> f.read(buf, 40)).get(60, TimeUnit.SECONDS)).isEqualTo(60);
                assertThat(f.read(buf, 0)).isEqualTo(100);
            }
            assertThat(submitted()).as("requests for reads that reached the end").isEqualTo(before);
        }
    }

    /**
     * After a run of whole cache hits, a virtual thread's reads are plain preads ({@link CacheHits}): pages dropped
     * then are read in place, with no request, and only an RWF_NOWAIT probe, one read in a few, sends a miss
     * through the ring. Each read is dropped first, so every probe may miss (one can still hit, when readahead it
     * started finishes first: then the run goes on).
     */
    @Test
    void aVirtualThreadsRunOfCacheHitsReadsInPlaceUntilAProbeMisses() throws Exception {
        Path path = dir.resolve("run-of-hits");
        byte[] data = pattern(9, 64 * 1024);
        Files.write(path, data);
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDWR)) {
            f.fdatasync();                  // clean pages, which DONT_NEED can drop
            MemorySegment buf = arena.allocate(data.length);
            List<Integer> requested = OnVirtualThread.supply(() -> {
                for (int i = 0; i < CacheHits.RUN; i++) {
                    assertThat(f.read(buf, 0)).isEqualTo(data.length);
                }
                List<Integer> reads = new ArrayList<>();
                for (int i = 0; i < 10 * CacheHits.PROBE_EVERY && reads.isEmpty(); i++) {
                    dropFromPageCache(f.fd(), 0);
                    buf.fill((byte) 0);
                    long before = submitted();
                    assertThat(f.read(buf, 0)).isEqualTo(data.length);
                    assertThat(buf.toArray(JAVA_BYTE)).isEqualTo(data);
                    if (submitted() > before) {
                        reads.add(i);
                    }
                }
                return reads;
            }).get(60, TimeUnit.SECONDS);
            assertThat(requested).as("the reads after the run that made a request").hasSize(1);
            assertThat(requested.getFirst() % CacheHits.PROBE_EVERY).as("made by a probe")
                    .isEqualTo(CacheHits.PROBE_EVERY - 1);
        }
    }

    /**
     * A platform thread's O_DIRECT reads, writes and syncs are made in place too, as the JDK's: no request, the
     * data as through the ring, and the end of file reads 0.
     */
    @Test
    void aPlatformThreadsDirectIoIsMadeInPlace() throws Exception {
        Path path = dir.resolve("direct-in-place");
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDWR | O_CREAT | O_DIRECT, 0644)) {
            int block = Math.max(4096, f.directAlignment());
            MemorySegment buf = f.allocateBuffer(arena, 4L * block);
            buf.copyFrom(MemorySegment.ofArray(pattern(8, 4 * block)));
            long before = submitted();
            assertThat(f.write(buf, block)).isEqualTo(4 * block);
            f.fdatasync();
            MemorySegment back = f.allocateBuffer(arena, 4L * block);
            assertThat(f.read(back, block)).isEqualTo(4 * block);
            assertThat(f.read(back, 5L * block)).as("at the end").isZero();
            assertThat(submitted()).as("requests for a platform thread's O_DIRECT I/O").isEqualTo(before);
            assertThat(back.toArray(JAVA_BYTE)).isEqualTo(pattern(8, 4 * block));
        }
    }

    /**
     * A platform thread's page-cache writes and syncs are made in place, as the JDK's channel makes them: no
     * request, the data and the errors as through the ring. A virtual thread's large write lands the same, and
     * its sync works.
     */
    @Test
    void aPlatformThreadsWritesAndSyncsAreMadeInPlace() throws Exception {
        Path path = dir.resolve("written");
        byte[] data = pattern(3, 64 * 1024 + 17);
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDWR | O_CREAT, 0600)) {
            MemorySegment src = arena.allocate(data.length);
            src.copyFrom(MemorySegment.ofArray(data));
            long before = submitted();
            for (int i = 0; i < 100; i++) {
                assertThat(f.write(src.asSlice(i, 8), i)).isEqualTo(8);
            }
            assertThat(f.write(src, 0)).isEqualTo(data.length);
            f.fsync();
            f.fdatasync();
            assertThat(submitted()).as("requests for a platform thread's writes and syncs").isEqualTo(before);
            assertThat(Files.readAllBytes(path)).isEqualTo(data);

            byte[] more = pattern(4, 300_000);
            OnVirtualThread.supply(() -> {
                MemorySegment m = arena.allocate(more.length);
                m.copyFrom(MemorySegment.ofArray(more));
                assertThat(f.write(m, 1000)).isEqualTo(more.length);
                f.fdatasync();
                return null;
            }).get(60, TimeUnit.SECONDS);
            byte[] expected = Arrays.copyOf(data, Math.max(data.length, 1000 + more.length));
            System.arraycopy(more, 0, expected, 1000, more.length);
            assertThat(Files.readAllBytes(path)).isEqualTo(expected);
        }
        try (AsyncFile readOnly = files.open(path, O_RDONLY); Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> readOnly.write(arena.allocate(8), 0)).isInstanceOf(ErrnoException.class)
                    .hasMessageContaining("WRITE").hasMessageContaining("EBADF");
        }
    }

    /**
     * A virtual thread alone in reading a file, cached or O_DIRECT, has no one to batch with: it reads with one
     * system call of its own, and the runtime makes no carrier rings for it. Its bytes are the file's.
     */
    @Test
    void aLoneVirtualThreadReadsWithoutABatch() throws Exception {
        Path cached = dir.resolve("alone-cached");
        byte[] data = pattern(9, 64 * 1024);
        Files.write(cached, data);
        Path direct = dir.resolve("alone-direct");
        try (AsyncFile f = files.open(direct, O_RDWR | O_CREAT, 0644)) {
            f.allocate(0, 0, data.length);
        }
        try (Uring fresh = Uring.builder().loops(1).build()) {
            long rings = openRings();
            OnVirtualThread.supply(() -> {
                UringFiles mine = UringFiles.of(fresh);
                try (Arena arena = Arena.ofConfined(); AsyncFile c = mine.open(cached, O_RDONLY, 0);
                     AsyncFile d = mine.open(direct, O_RDONLY | O_DIRECT, 0)) {
                    MemorySegment buf = d.allocateBuffer(arena, data.length);
                    for (int i = 0; i < 20; i++) {
                        assertThat(c.read(buf, 0)).isEqualTo(data.length);
                        assertThat(buf.toArray(JAVA_BYTE)).isEqualTo(data);
                        assertThat(d.read(buf, 0)).isEqualTo(data.length);
                        assertThat(buf.toArray(JAVA_BYTE)).containsOnly(0);
                    }
                }
                return null;
            }).get(60, TimeUnit.SECONDS);
            assertThat(openRings()).as("io_uring instances after a lone reader's reads").isEqualTo(rings);
        }
    }

    /**
     * A file that O_CREAT with O_EXCL made is a new regular file, whose type no call need ask (a statx): known from
     * the open, on a platform thread and through the ring alike. Other opens leave it to the first call that needs
     * it.
     */
    @Test
    void anExclusiveCreatesTypeIsKnownFromItsOpen() throws Exception {
        try (AsyncFile created = files.open(dir.resolve("made"), O_RDWR | O_CREAT | O_EXCL);
             AsyncFile createdByRing = files.openAsync(dir.resolve("made-by-ring"), O_RDWR | O_CREAT | O_EXCL,
                     0644).get(60, TimeUnit.SECONDS);
             AsyncFile reopened = files.open(dir.resolve("made"), O_RDWR | O_CREAT)) {
            assertThat(created.typeKnown()).isTrue();
            assertThat(createdByRing.typeKnown()).isTrue();
            assertThat(reopened.typeKnown()).as("a plain O_CREAT may open anything").isFalse();
            assertThat(reopened.isBounded()).as("asked when needed").isTrue();
            assertThat(reopened.typeKnown()).isTrue();
        }
    }

    /**
     * A platform thread's write and read of a file whose type was not asked are the JDK's one call each, made in
     * place without asking it (a statx); a FIFO refuses the pwrite and the pread with ESPIPE, having moved nothing,
     * and is then written and read through the ring, as a FIFO always was.
     */
    @Test
    void aPlatformThreadsCallsOnAFileOfUnaskedTypeAreTheJdksOneCall() throws Throwable {
        Path path = dir.resolve("unasked");
        Files.write(path, new byte[16]);
        Path fifo = mkfifo(dir.resolve("fifo-unasked"));
        byte[] hello = "hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        try (Arena arena = Arena.ofConfined(); AsyncFile f = files.open(path, O_RDWR);
             AsyncFile pipe = files.open(fifo, O_RDWR)) {        // O_RDWR: the open waits for no peer
            MemorySegment msg = arena.allocate(hello.length);
            msg.copyFrom(MemorySegment.ofArray(hello));
            MemorySegment buf = arena.allocate(16);
            assertThat(f.write(msg, 3)).isEqualTo(5);
            assertThat(f.read(buf, 0)).isEqualTo(16);
            assertThat(buf.asSlice(3, 5).toArray(JAVA_BYTE)).isEqualTo(hello);
            assertThat(f.typeKnown()).as("a regular file's type, after a write and a read").isFalse();
            assertThat(pipe.write(msg, 0)).isEqualTo(5);
            assertThat(pipe.read(buf, 0)).isEqualTo(5);
            assertThat(buf.asSlice(0, 5).toArray(JAVA_BYTE)).isEqualTo(hello);
            assertThat(pipe.typeKnown()).as("a FIFO's, asked after its ESPIPE").isTrue();
        }
    }

    /**
     * A platform thread's failed write or read of a file whose type was not asked names its operation and errno:
     * the write's own in place, the read's through the ring, which the failed pread hands it to.
     */
    @Test
    void aPlatformThreadsFailedCallsOnAFileOfUnaskedTypeNameTheirErrno() throws Exception {
        Path path = dir.resolve("unasked-errors");
        Files.write(path, new byte[16]);
        try (Arena arena = Arena.ofConfined(); AsyncFile readOnly = files.open(path, O_RDONLY);
             AsyncFile writeOnly = files.open(path, O_WRONLY)) {
            MemorySegment buf = arena.allocate(8);
            assertThatThrownBy(() -> readOnly.write(buf, 0)).isInstanceOfSatisfying(ErrnoException.class, e -> {
                assertThat(e.errno()).isEqualTo(Errno.EBADF);
                assertThat(e.getMessage()).contains("WRITE", "EBADF");
            });
            assertThatThrownBy(() -> writeOnly.read(buf, 0)).isInstanceOfSatisfying(ErrnoException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EBADF));
        }
    }

    /**
     * A virtual thread's exclusive create is made in place without asking the path's type: it opens nothing that
     * exists, so an existing FIFO fails at once with EEXIST instead of waiting for a peer, and a new file is created,
     * regular. (That the type is not asked shows only in the calls: one statx fewer, under strace.)
     */
    @Test
    void aVirtualThreadsExclusiveCreateOpensNothingThatExists() throws Throwable {
        Path fifo = mkfifo(dir.resolve("fifo-excl"));
        Path fresh = dir.resolve("fresh-excl");
        OnVirtualThread.supply(() -> {
            assertThatThrownBy(() -> files.open(fifo, O_RDWR | O_CREAT | O_EXCL))
                    .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
            try (Arena arena = Arena.ofConfined(); AsyncFile made = files.open(fresh, O_RDWR | O_CREAT | O_EXCL)) {
                assertThat(made.typeKnown()).isTrue();
                assertThat(made.write(arena.allocate(8), 0)).isEqualTo(8);
            }
            return null;
        }).get(60, TimeUnit.SECONDS);
        assertThat(Files.size(fresh)).isEqualTo(8);
    }

    /**
     * A virtual thread's O_CREAT of a path its statx found missing made a regular file: its type is known from the
     * open (the same ground on which the open was made in place), and its first write asks nothing. A path that
     * was there keeps the type its statx found.
     */
    @Test
    void aVirtualThreadsCreateOfAMissingPathKnowsItsType() throws Exception {
        Path fresh = dir.resolve("fresh-create");
        Path dirPath = dir.resolve("a-dir");
        Files.createDirectory(dirPath);
        OnVirtualThread.supply(() -> {
            try (AsyncFile made = files.open(fresh, O_RDWR | O_CREAT);
                 AsyncFile directory = files.open(dirPath, O_RDONLY)) {
                assertThat(made.typeKnown()).isTrue();
                assertThat(made.isBounded()).isTrue();
                assertThat(directory.typeKnown()).isTrue();
                assertThat(directory.isBounded()).as("a directory").isFalse();
            }
            return null;
        }).get(60, TimeUnit.SECONDS);
    }

    /**
     * A file system that refused a virtual thread's RWF_NOWAIT write (ext4 refuses every buffered one) is remembered
     * by its device: another file on it, opened on a virtual thread, makes plain pwrites from its first write rather
     * than learning the refusal again with two failed system calls; so does a file it creates, while no file system
     * took such a write. On a file system that takes such writes every file tries them, and this test cannot fail.
     */
    @Test
    void aFileSystemsRefusalOfNoWaitWritesServesItsOtherFiles() throws Exception {
        Path first = dir.resolve("nowait-first");
        Path second = dir.resolve("nowait-second");
        Files.write(first, new byte[4096]);
        Files.write(second, new byte[4096]);
        OnVirtualThread.supply(() -> {
            try (Arena arena = Arena.ofConfined(); AsyncFile a = files.open(first, O_RDWR)) {
                assertThat(a.write(arena.allocate(8), 0)).isEqualTo(8);
                try (AsyncFile b = files.open(second, O_RDWR);
                     AsyncFile created = files.open(dir.resolve("nowait-created"), O_RDWR | O_CREAT | O_EXCL)) {
                    assertThat(b.noWaitWritesRefused()).as("the second file, before its first write")
                            .isEqualTo(a.noWaitWritesRefused());
                    assertThat(created.noWaitWritesRefused())
                            .as("a created file, whose device its open did not learn: refused while every file"
                                    + " system that answered refused")
                            .isEqualTo(a.noWaitWritesRefused() && !NoWaitWrites.anyTaken());
                }
            }
            return null;
        }).get(60, TimeUnit.SECONDS);
    }

    /**
     * A virtual thread's writes into cached pages need no request either: made with RWF_NOWAIT in place, or — where
     * the file system refuses RWF_NOWAIT writes, as ext4 does — with a plain pwrite in place, as the JDK's; nor do
     * the syncs of a virtual thread alone in syncing the file.
     */
    @Test
    void aVirtualThreadsPageCacheWritesAndLoneSyncsNeedNoRequest() throws Exception {
        Path path = dir.resolve("written-virtual");
        byte[] data = pattern(10, 64 * 1024);
        Files.write(path, data);
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDWR)) {
            MemorySegment src = arena.allocate(data.length);
            src.copyFrom(MemorySegment.ofArray(data));
            long before = submitted();
            OnVirtualThread.supply(() -> {
                for (int i = 0; i < 100; i++) {
                    assertThat(f.write(src.asSlice(i * 8L, 8), i * 8L)).isEqualTo(8);
                }
                return null;
            }).get(60, TimeUnit.SECONDS);
            assertThat(submitted()).as("requests for a virtual thread's page-cache writes").isEqualTo(before);
            OnVirtualThread.supply(() -> {
                f.fdatasync();
                f.fsync();
                return null;
            }).get(60, TimeUnit.SECONDS);
            assertThat(submitted()).as("requests for a lone virtual thread's syncs").isEqualTo(before);
            assertThat(Files.readAllBytes(path)).isEqualTo(data);
        }
    }

    /**
     * While another virtual thread is syncing, of another file too, a sync goes through the ring: held carriers would
     * let only as many syncs run at once as there are carriers.
     */
    @Test
    void aVirtualThreadsSyncWhileAnotherIsSyncingGoesThroughTheRing() throws Exception {
        Path path = dir.resolve("synced-virtual");
        Files.write(path, pattern(11, 4096));
        try (AsyncFile f = files.open(path, O_RDWR)) {
            assertThat(VirtualSyncs.begin()).as("nobody else syncing").isTrue();     // another file's sync
            long before;
            try {
                before = submitted();
                OnVirtualThread.supply(() -> {
                    f.fsync();
                    return null;
                }).get(60, TimeUnit.SECONDS);
                assertThat(submitted() - before).as("requests for a sync beside another").isOne();
            } finally {
                VirtualSyncs.end();
            }
            before = submitted();
            OnVirtualThread.supply(() -> {
                f.fsync();
                return null;
            }).get(60, TimeUnit.SECONDS);
            assertThat(submitted()).as("requests for a lone sync").isEqualTo(before);
        }
    }

    private void cachedAndPartlyCachedReads(String name, boolean missesThroughTheRing) throws Exception {
        Path path = dir.resolve(name);
        byte[] data = pattern(7, 512 * 1024);
        Files.write(path, data);
        try (Arena arena = Arena.ofShared(); AsyncFile f = files.open(path, O_RDWR)) {
            f.fdatasync();                  // clean pages, which DONT_NEED can drop
            MemorySegment buf = arena.allocate(data.length);
            assertThat(f.read(buf, 0)).isEqualTo(data.length);
            long before = submitted();
            assertThat(f.read(buf, 0)).isEqualTo(data.length);
            assertThat(submitted()).as("a page-cache hit needs no request").isEqualTo(before);

            for (long dropFrom : new long[] {data.length / 2, 0}) {
                assertThat(aReadAfterDroppingGoesThroughTheRing(f, buf, data, dropFrom))
                        .as("the dropped pages were read through the ring").isEqualTo(missesThroughTheRing);
            }
        }
    }

    /**
     * Drops the pages from {@code dropFrom} on and reads the whole file, which must come back whole: true once such
     * a read made a request. The RWF_NOWAIT attempt starts readahead of what it misses, and on a fast disk that
     * can finish before the attempt looks again and serve everything itself; then it is dropped and read again.
     */
    private static boolean aReadAfterDroppingGoesThroughTheRing(AsyncFile f, MemorySegment buf, byte[] data,
            long dropFrom) throws Exception {
        for (int attempt = 0; attempt < 10; attempt++) {
            dropFromPageCache(f.fd(), dropFrom);
            buf.fill((byte) 0);
            long requests = submitted();
            assertThat(f.read(buf, 0)).as("dropped from " + dropFrom).isEqualTo(data.length);
            assertThat(buf.toArray(JAVA_BYTE)).isEqualTo(data);
            if (submitted() > requests) {
                return true;
            }
        }
        return false;
    }

    private static long submitted() {
        long n = 0;
        for (int i = 0; i < uring.loopCount(); i++) {
            n += uring.loop(i).stats().submitted();
        }
        return n;
    }
}
