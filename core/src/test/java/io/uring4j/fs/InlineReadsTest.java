package io.uring4j.fs;

import io.uring4j.ring.Engine;
import io.uring4j.ring.FaultyEngine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.runtime.OnVirtualThread;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.Await;
import io.uring4j.testkit.ChildJvm;
import io.uring4j.testkit.Fields;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import static io.uring4j.fs.FsTestKit.openRings;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Page-cache reads batched on the virtual threads' own carriers: each reader gets its own bytes, or -errno. */
class InlineReadsTest {
    private static final int O_RDONLY = 0;

    @TempDir
    Path dir;
    private Path path;
    private byte[] data;
    private int fd = -1;

    @BeforeEach
    void cachedFile() throws IOException {
        data = new byte[4 << 20];
        new SplittableRandom(42).nextBytes(data);
        path = dir.resolve("data");
        Files.write(path, data);
        fd = LibC.open(path.toString(), O_RDONLY, 0);
        assertThat(fd).isNotNegative();
    }

    @AfterEach
    void closeFd() {
        if (fd >= 0) {
            LibC.close(fd);
        }
    }

    /** 64 virtual threads, random ranges (some past the end): the bytes of their own range, and no loop request. */
    @Test
    void everyReaderGetsItsOwnRangeWithoutAnEventLoopRequest() throws Exception {
        try (Uring uring = Uring.builder().loops(1).engine(Engine.kernel()).build()) {
            InlineReads reads = InlineReads.of(uring);
            assertThat(reads).isNotNull();
            long submittedBefore = uring.loop(0).stats().submitted();
            List<CompletableFuture<Integer>> readers = new ArrayList<>();
            for (int t = 0; t < 64; t++) {
                int seed = t;
                readers.add(OnVirtualThread.supply(() -> readAndCheck(reads, seed, 300)));
            }
            for (CompletableFuture<Integer> r : readers) {
                assertThat(r.get(60, TimeUnit.SECONDS)).isEqualTo(300);
            }
            assertThat(uring.loop(0).stats().submitted()).as("no read went to the event loop")
                    .isEqualTo(submittedBefore);
        }
    }

    /**
     * Readers that come and go in small groups: a read queued while a combiner still holds the slot must be served
     * by it or by its next user — the last reader of a group has no later reader to rescue it. One slot for
     * every carrier, so that they contend; 5000 groups.
     */
    @Test
    void noReaderIsLeftWaitingWhenNoOtherReaderComes() throws Exception {
        try (InlineReads reads = InlineReads.open(1)) {
            for (int group = 0; group < 5000; group++) {
                List<CompletableFuture<Long>> readers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    long position = 4096L * (group % 1000 + t);
                    readers.add(OnVirtualThread.supply(() -> {
                        try (Arena arena = Arena.ofConfined()) {
                            return reads.read(fd, arena.allocate(512), position);
                        }
                    }));
                }
                for (CompletableFuture<Long> r : readers) {
                    assertThat(r.get(10, TimeUnit.SECONDS)).as("group " + group).isEqualTo(512L);
                }
            }
        }
    }

    /** A page not in the page cache is not waited for (RWF_NOWAIT): EAGAIN, as preadv2 answers; a bad fd EBADF. */
    @Test
    void aMissAnswersEagainAndABadFdEbadf() throws Throwable {
        try (Uring uring = Uring.builder().loops(1).engine(Engine.kernel()).build();
             FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.force(true);                                        // clean pages, which DONTNEED drops
            InlineReads reads = InlineReads.of(uring);
            long[] results = OnVirtualThread.supply(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment dst = arena.allocate(4096);
                    return new long[] {readOfADroppedPage(reads, dst), reads.read(Integer.MAX_VALUE, dst, 0)};
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(results[0]).as("dropped page").isEqualTo(-Errno.EAGAIN);
            assertThat(results[1]).as("bad fd").isEqualTo(-Errno.EBADF);
        }
    }

    /**
     * A read of the page at 1 MiB right after it was dropped. RWF_NOWAIT starts readahead of what it misses, and on
     * a fast disk that can finish before the read looks again and serve the page; then it is dropped and read again.
     */
    private long readOfADroppedPage(InlineReads reads, MemorySegment dst) throws Exception {
        long result = 0;
        for (int attempt = 0; attempt < 10 && result != -Errno.EAGAIN; attempt++) {
            FsTestKit.dropFromPageCache(fd, 1 << 20);
            result = reads.read(fd, dst, 1 << 20);
        }
        return result;
    }

    /**
     * A direct read is waited for, not answered EAGAIN: a page the cache dropped is read from the device (the
     * buffered fd shows it, O_DIRECT or not is the caller's flag), with an interrupt pending too; a bad fd EBADF.
     */
    @Test
    void aDirectReadWaitsForTheDeviceEvenWhenInterrupted() throws Throwable {
        try (Uring uring = Uring.builder().loops(1).engine(Engine.kernel()).build();
             FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            channel.force(true);
            FsTestKit.dropFromPageCache(fd, 1 << 20);
            InlineReads reads = InlineReads.of(uring);
            DirectDevice device = new DirectDevice();
            Object[] outcome = OnVirtualThread.supply(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment dst = arena.allocate(4096, 4096);
                    Thread.currentThread().interrupt();
                    long n = reads.readDirect(fd, dst, 1 << 20, device);
                    boolean interrupted = Thread.interrupted();
                    long bad = reads.readDirect(Integer.MAX_VALUE, dst.asSlice(0, 512), 0, device);
                    return new Object[] {n, interrupted, dst.toArray(JAVA_BYTE), bad};
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(outcome[0]).isEqualTo(4096L);
            assertThat(outcome[1]).as("still interrupted").isEqualTo(true);
            assertThat((byte[]) outcome[2]).isEqualTo(java.util.Arrays.copyOfRange(data, 1 << 20, (1 << 20) + 4096));
            assertThat(outcome[3]).as("bad fd").isEqualTo((long) -Errno.EBADF);
        }
    }

    /** An interrupt does not cut a read short, and the reader's interrupt status survives it. */
    @Test
    void anInterruptedReaderGetsItsBytesAndKeepsItsStatus() throws Exception {
        try (Uring uring = Uring.builder().loops(1).engine(Engine.kernel()).build()) {
            InlineReads reads = InlineReads.of(uring);
            Object[] outcome = OnVirtualThread.supply(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment dst = arena.allocate(100);
                    Thread.currentThread().interrupt();
                    long n = reads.read(fd, dst, 1000);
                    return new Object[] {n, Thread.interrupted(), dst.toArray(JAVA_BYTE)};
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(outcome[0]).isEqualTo(100L);
            assertThat(outcome[1]).as("still interrupted").isEqualTo(true);
            assertThat((byte[]) outcome[2]).isEqualTo(java.util.Arrays.copyOfRange(data, 1000, 1100));
        }
    }

    /** Closing the runtime under readers lets every one of them go and closes every ring; later reads answer EAGAIN. */
    @Test
    void closeUnderReadersLetsThemAllGoAndLaterReadsAnswerEagain() throws Exception {
        long ringsBefore = openRings();
        Uring uring = Uring.builder().loops(1).engine(Engine.kernel()).build();
        InlineReads reads = InlineReads.of(uring);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch reading = new CountDownLatch(32);
        List<CompletableFuture<Long>> readers = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
            readers.add(OnVirtualThread.supply(() -> {
                long last;
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment dst = arena.allocate(4096);
                    do {
                        last = reads.read(fd, dst, 8192);
                        reading.countDown();
                    } while (!stop.get() && last >= 0);
                }
                return last;
            }));
        }
        assertThat(reading.await(30, TimeUnit.SECONDS)).as("every reader has read").isTrue();
        Thread.sleep(50);
        uring.close();
        stop.set(true);
        for (CompletableFuture<Long> r : readers) {
            assertThat(r.get(30, TimeUnit.SECONDS)).isIn(4096L, (long) -Errno.EAGAIN);
        }
        assertThat(InlineReads.of(uring)).isSameAs(reads);
        long after = OnVirtualThread.supply(() -> {
            try (Arena arena = Arena.ofConfined()) {
                return reads.read(fd, arena.allocate(16), 0);
            }
        }).get(30, TimeUnit.SECONDS);
        assertThat(after).isEqualTo(-Errno.EAGAIN);
        assertThat(openRings()).as("the loop's ring and every slot's ring are closed").isEqualTo(ringsBefore);
    }

    /**
     * A read queued while close still holds its slot (after close failed the queue, before it let go) found the
     * lock taken and parked: close must fail it too, as a combiner serves what was queued behind it. Close is
     * stopped at its unlock until the reader is parked there; the reader is a platform thread whose pthread owns
     * the slot, so it finds the slot without the closed check of a new carrier.
     */
    @Test
    void aReadQueuedWhileCloseHoldsTheSlotIsLetGo() throws Exception {
        CompletableFuture<InlineReads> opened = new CompletableFuture<>();
        CountDownLatch go = new CountDownLatch(1);
        CompletableFuture<Long> result = new CompletableFuture<>();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (Arena arena = Arena.ofConfined()) {
                InlineReads reads = InlineReads.open(1);       // this thread's pthread owns the slot
                opened.complete(reads);
                go.await();
                result.complete(reads.read(fd, arena.allocate(16), 0));
            } catch (Throwable e) {
                opened.completeExceptionally(e);
                result.completeExceptionally(e);
            }
        });
        InlineReads reads = opened.get(10, TimeUnit.SECONDS);
        Object slot = ((Object[]) Fields.read(InlineReads.class, "slots", reads))[0];
        Thread closer = Thread.currentThread();
        AtomicBoolean armed = new AtomicBoolean(true);
        Field lockField = slot.getClass().getDeclaredField("lock");
        lockField.setAccessible(true);
        lockField.set(slot, new ReentrantLock() {
            @Override
            public void unlock() {
                if (Thread.currentThread() == closer && armed.compareAndSet(true, false)) {
                    go.countDown();                 // close has failed the queue: the read comes now
                    try {
                        Await.awaitCondition(() -> LockSupport.getBlocker(reader) == reads);
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
                super.unlock();
            }
        });
        reads.close();
        assertThat(result.get(10, TimeUnit.SECONDS)).as("the parked reader was let go").isEqualTo(-Errno.EAGAIN);
    }

    /**
     * A reader that cannot unmount (a native frame pins it: here an upcall) and finds its slot's lock taken parks on
     * its carrier. With one carrier, a combiner that yielded holding the lock could never resume to serve it: both
     * hung for ever. In a JVM of its own with one carrier, a plain reader starts first and yields; the pinned reader
     * then runs on the only carrier.
     */
    @Test
    void aPinnedReaderAndACombinerOnOneCarrierBothGetTheirBytes() throws Exception {
        String out = ChildJvm.output(PinnedReaderProbe.class, "-Djdk.virtualThreadScheduler.parallelism=1");
        assertThat(out).contains("plain reader: 512, pinned reader: 512");
    }

    /** A child JVM's program for {@link #aPinnedReaderAndACombinerOnOneCarrierBothGetTheirBytes}. */
    public static final class PinnedReaderProbe {
        private static InlineReads reads;
        private static int fd;
        private static volatile long pinnedRead = Long.MIN_VALUE;
        private static volatile boolean started;

        /** Called back from native code, which pins the virtual thread that runs it. */
        static void readPinned() {
            pinnedRead = reads.read(fd, Arena.ofAuto().allocate(512), 0);
        }

        public static void main(String[] args) throws Throwable {
            Path file = Files.createTempFile("uring4j-pinned", ".bin");
            Files.write(file, new byte[1 << 16]);
            fd = LibC.open(file.toString(), O_RDONLY, 0);
            reads = InlineReads.open(4);
            Linker linker = Linker.nativeLinker();
            MemorySegment stub = linker.upcallStub(MethodHandles.lookup().findStatic(PinnedReaderProbe.class,
                    "readPinned", MethodType.methodType(void.class)), FunctionDescriptor.ofVoid(), Arena.global());
            MethodHandle callBack = linker.downcallHandle(stub, FunctionDescriptor.ofVoid());
            long[] plainRead = {Long.MIN_VALUE};
            Thread plain = Thread.ofVirtual().unstarted(
                    () -> plainRead[0] = reads.read(fd, Arena.ofAuto().allocate(512), 4096));
            Thread pinned = Thread.ofVirtual().unstarted(() -> {
                try {
                    callBack.invokeExact();
                } catch (Throwable t) {
                    throw new AssertionError(t);
                }
            });
            // The only carrier is held until both are queued: the plain reader runs first, the pinned one next.
            Thread holder = Thread.ofVirtual().start(() -> {
                while (!started) {
                    Thread.onSpinWait();
                }
            });
            plain.start();
            pinned.start();
            started = true;
            holder.join();
            plain.join(TimeUnit.SECONDS.toMillis(30));
            pinned.join(TimeUnit.SECONDS.toMillis(30));
            System.out.println(plain.isAlive() || pinned.isAlive() ? "stuck"
                    : "plain reader: " + plainRead[0] + ", pinned reader: " + pinnedRead);
            Runtime.getRuntime().halt(0);           // a stuck reader's carrier would keep the JVM up
        }
    }

    /**
     * A carrier whose ring the kernel refuses shares a slot: its readers still get their bytes, and no later read
     * asks the kernel for a ring again (the bound is lowered to the slots there are).
     */
    @Test
    void aCarrierWhoseRingIsRefusedSharesASlotWithoutAskingAgain() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2,
                "one CPU: the virtual threads have one carrier, which never needs a second ring");
        AtomicInteger asked = new AtomicInteger();
        InlineReads.RingMaker onlyOne = () -> {
            if (asked.getAndIncrement() == 0) {
                return IoUring.builder().entries(256).submitAll().engine(Engine.kernel()).build();
            }
            throw new ErrnoException("io_uring_setup", -Errno.ENOMEM);
        };
        try (InlineReads reads = InlineReads.open(8, onlyOne)) {
            List<CompletableFuture<Integer>> readers = new ArrayList<>();
            for (int t = 0; t < 32; t++) {
                int seed = t;
                readers.add(OnVirtualThread.supply(() -> readAndCheck(reads, seed, 500)));
            }
            for (CompletableFuture<Integer> r : readers) {
                assertThat(r.get(60, TimeUnit.SECONDS)).isEqualTo(500);
            }
        }
        assertThat(asked.get()).as("rings asked for: the first, then one refusal for the second carrier").isEqualTo(2);
    }

    /**
     * An enter the kernel refuses (a ring still disabled: EBADFD) fails its batch with that errno, and the slot's
     * ring is closed — SQEs it did not take must never be submitted after their readers left — so the slot then
     * answers EAGAIN. The readers' buffers are never written.
     */
    @Test
    void aFailedEnterFailsItsBatchAndTheSlotThenAnswersEagain() throws Exception {
        long ringsBefore = openRings();
        InlineReads.RingMaker disabled = () -> IoUring.builder().entries(256).submitAll().engine(Engine.kernel())
                .flags(SetupFlags.R_DISABLED).build();
        try (InlineReads reads = InlineReads.open(1, disabled)) {
            long[] results = OnVirtualThread.supply(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment dst = arena.allocate(4096).fill((byte) 0x5a);
                    long first = reads.read(fd, dst, 0);
                    long second = reads.read(fd, dst, 0);
                    long untouched = 0;
                    for (int k = 0; k < 4096; k++) {
                        untouched += dst.get(JAVA_BYTE, k) == 0x5a ? 1 : 0;
                    }
                    return new long[] {first, second, untouched};
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(results[0]).as("the failed enter's errno").isEqualTo(-Errno.EBADFD);
            assertThat(results[1]).as("after the slot's ring was closed").isEqualTo(-Errno.EAGAIN);
            assertThat(results[2]).as("bytes left as they were").isEqualTo(4096);
        }
        assertThat(openRings()).as("the refused ring is closed").isEqualTo(ringsBefore);
    }

    /**
     * The kernel's "not now" (ENOMEM, EAGAIN, EBUSY) refuses an enter without taking its SQEs. A refusal or two is
     * waited out: the batch's readers get their bytes. One that lasts fails the batch by name, and the slot asks for
     * a new ring (the old one held SQEs that must never be submitted after their readers left): the next read is
     * batched again, not sent to the slower path for good.
     */
    @Test
    void anEnterRefusedForNowIsMadeAgainAndALastingRefusalRenewsTheRing() throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(Engine.kernel(), FaultyEngine.Schedule.none());
        AtomicInteger asked = new AtomicInteger();
        InlineReads.RingMaker rings = () -> {
            asked.incrementAndGet();
            return IoUring.builder().entries(256).submitAll().engine(faulty).build();
        };
        try (InlineReads reads = InlineReads.open(1, rings)) {
            long[] results = OnVirtualThread.supply(() -> {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment dst = arena.allocate(4096);
                    faulty.failEnters(Errno.ENOMEM, Errno.EAGAIN, Errno.EBUSY);
                    long waitedOut = reads.read(fd, dst, 0);
                    int[] lasting = new int[InlineReads.PRESSURE_TRIES];
                    Arrays.fill(lasting, Errno.ENOMEM);
                    faulty.failEnters(lasting);
                    long failed = reads.read(fd, dst, 0);
                    long renewed = reads.read(fd, dst, 8192);
                    return new long[] {waitedOut, failed, renewed, dst.get(JAVA_BYTE, 0)};
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(results[0]).as("after three refusals").isEqualTo(4096);
            assertThat(results[1]).as("a lasting refusal").isEqualTo(-Errno.ENOMEM);
            assertThat(results[2]).as("on the renewed ring").isEqualTo(4096);
            assertThat(results[3]).isEqualTo(data[8192]);
        }
        assertThat(asked.get()).as("rings asked for: the first and its renewal").isEqualTo(2);
    }

    /**
     * A seeded schedule of faults on every enter and read (refusals, failures, short reads) under 16 virtual
     * threads: each read answers a prefix of its range, byte for byte, or a negative errno — and every reader
     * comes back.
     */
    @Test
    void underInjectedFaultsEachReadIsAPrefixOfItsRangeOrAnErrno() throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(Engine.kernel(), FaultyEngine.Schedule.everything(30, 50));
        InlineReads.RingMaker rings = () -> IoUring.builder().entries(256).submitAll().engine(faulty).build();
        try (InlineReads reads = InlineReads.open(4, rings)) {
            List<CompletableFuture<Integer>> readers = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int seed = t;
                readers.add(OnVirtualThread.supply(() -> readUnderFaults(reads, seed, 300)));
            }
            int errors = 0;
            for (CompletableFuture<Integer> r : readers) {
                errors += r.get(60, TimeUnit.SECONDS);
            }
            assertThat(faulty.faults()).as("faults injected").isPositive();
            assertThat(errors).as("reads that failed").isLessThan(16 * 300);
        }
    }

    /** {@code count} random reads; each checked as a prefix of its range. The number that failed. */
    private int readUnderFaults(InlineReads reads, int seed, int count) {
        SplittableRandom random = new SplittableRandom(seed);
        int failed = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < count; i++) {
                int length = 1 + random.nextInt(16 * 1024);
                long position = random.nextLong(data.length);
                MemorySegment dst = arena.allocate(length);
                long n = reads.read(fd, dst, position);
                if (n < 0) {
                    assertThat(Errno.name((int) n)).as("read of %d at %d", length, position)
                            .isIn("ENOMEM", "EAGAIN", "EBUSY", "EBADF");
                    failed++;
                    continue;
                }
                assertThat(n).as("read of %d at %d", length, position)
                        .isBetween(1L, Math.min(length, data.length - position));
                for (int k = 0; k < n; k++) {
                    if (dst.get(JAVA_BYTE, k) != data[(int) position + k]) {
                        throw new AssertionError("byte " + k + " of the read at " + position);
                    }
                }
            }
        }
        return failed;
    }

    /** A refused first ring fails the open, and leaves no thread behind (the stall watch's, started with it). */
    @Test
    void anOpenWhoseFirstRingIsRefusedLeavesNoThread() throws Exception {
        InlineReads.RingMaker refusing = () -> {
            throw new ErrnoException("io_uring_setup", -Errno.ENOMEM);
        };
        long before = watchThreads();
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> InlineReads.open(1, refusing)).isInstanceOf(ErrnoException.class);
        }
        Await.awaitCondition(() -> watchThreads() <= before);
    }

    private static long watchThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("uring4j-inline-read-watch")).count();
    }

    /** {@code count} random reads (some past the end) on the calling virtual thread, each checked byte for byte. */
    private int readAndCheck(InlineReads reads, int seed, int count) {
        SplittableRandom random = new SplittableRandom(seed);
        int checked = 0;
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < count; i++) {
                int length = 1 + random.nextInt(16 * 1024);
                long position = random.nextLong(data.length + 4096L);
                MemorySegment dst = arena.allocate(length);
                long n = reads.read(fd, dst, position);
                long expected = Math.max(0, Math.min(length, data.length - position));
                assertThat(n).as("read of %d at %d", length, position).isEqualTo(expected);
                for (int k = 0; k < n; k++) {
                    if (dst.get(JAVA_BYTE, k) != data[(int) position + k]) {
                        throw new AssertionError("byte " + k + " of the read at " + position);
                    }
                }
                checked++;
            }
        }
        return checked;
    }

    @Test
    void thePortableEngineHasNone() throws Exception {
        try (Uring uring = Uring.builder().loops(1).engine(Engine.portable()).build()) {
            assertThat(InlineReads.of(uring)).as("reads take preadv2 there").isNull();
        }
    }
}
