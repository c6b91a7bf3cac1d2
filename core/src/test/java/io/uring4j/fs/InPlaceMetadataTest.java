package io.uring4j.fs;

import com.sun.nio.file.ExtendedOpenOption;
import io.uring4j.runtime.OnVirtualThread;
import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.Fields;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.nio.MappedByteBuffer;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.uring4j.testkit.Patterns.pattern;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A platform thread's open, size, truncate, force (of a directory too) and close are made in place, as the JDK's channel makes them: an
 * application that opens files and asks their sizes (a database at start-up) must not pay a hand-over to an event
 * loop and back for each. A virtual thread's open and size too (an O_DIRECT open still goes through the ring).
 */
@BothEngines
class InPlaceMetadataTest {
    @UringRuntime(loops = 2)
    private static Uring uring;

    @TempDir
    Path dir;

    @Test
    void aPlatformThreadsOpenSizeTruncateAndCloseMakeNoRequest() throws Exception {
        Path path = dir.resolve("data");
        long before = submitted();
        try (FileChannel ch = UringFileChannel.open(uring, path, READ, WRITE, CREATE)) {
            assertThat(ch.write(ByteBuffer.wrap(new byte[10_000]), 0)).isEqualTo(10_000);
            assertThat(ch.size()).isEqualTo(10_000);
            ch.position(9_000);
            ch.truncate(4_000);
            assertThat(ch.size()).isEqualTo(4_000);
            assertThat(ch.position()).as("moved back to the new end, as the JDK's").isEqualTo(4_000);
            ch.truncate(8_000);
            assertThat(ch.size()).as("truncate never grows a file").isEqualTo(4_000);
            ch.force(true);
        }
        try (FileChannel directory = UringFileChannel.open(uring, dir, READ)) {
            directory.force(true);          // as a database's commit makes a rename durable
        }
        assertThatThrownBy(() -> UringFileChannel.open(uring, dir.resolve("missing"), READ))
                .isInstanceOf(NoSuchFileException.class).hasMessageContaining("missing");
        assertThat(submitted()).as("requests for a platform thread's open, size, truncate, force and close").isEqualTo(before);
        assertThat(Files.size(path)).isEqualTo(4_000);
    }

    /** A virtual thread's too, as the JDK's hold the carrier: a hand-over and back costs several times more. */
    @Test
    void aVirtualThreadsOpenSizeAndCloseMakeNoRequestEither() throws Exception {
        Path path = dir.resolve("virtual");
        Files.write(path, new byte[123]);
        long before = submitted();
        long size = OnVirtualThread.supply(() -> {
            try (FileChannel ch = UringFileChannel.open(uring, path, READ)) {
                return ch.size();
            }
        }).get(30, TimeUnit.SECONDS);
        assertThat(size).isEqualTo(123);
        assertThat(submitted()).as("requests for a virtual thread's open, size and close").isEqualTo(before);
    }

    /**
     * A virtual thread's O_DIRECT write, the file's only one, is a pwrite on its carrier, as the JDK's, and its lone
     * sync an fdatasync there: through the ring each went to an io-wq worker (ext4 takes no non-blocking direct
     * write into unwritten extents), a wake-up on each side. The open goes through the ring (O_DIRECT), so the
     * count starts after it.
     */
    @Test
    void aVirtualThreadsLoneDirectWriteMakesNoRequest() throws Exception {
        Path path = dir.resolve("direct");
        int block = (int) Files.getFileStore(dir).getBlockSize();
        Files.write(path, new byte[4 * block]);
        long[] requests = OnVirtualThread.supply(() -> {
            try (FileChannel ch = UringFileChannel.open(uring, path, READ, WRITE, ExtendedOpenOption.DIRECT)) {
                ByteBuffer aligned = alignedBlock(block);
                long before = submitted();
                for (int i = 0; i < 4; i++) {
                    if (ch.write(aligned.clear().limit(block), (long) i * block) != block) {
                        throw new AssertionError("short write");
                    }
                    ch.force(false);            // and its lone sync, as a log's commit
                }
                return new long[] {before, submitted()};
            }
        }).get(30, TimeUnit.SECONDS);
        assertThat(requests[1]).as("requests for a virtual thread's four lone O_DIRECT writes and syncs")
                .isEqualTo(requests[0]);
    }

    /**
     * A virtual thread that syncs while another does (this test holds {@link VirtualSyncs} as that other) syncs
     * through the JDK's channel on the file, whose sync adds a carrier while it waits, as the JDK's own channel does:
     * through the ring, each such sync went to an io-wq worker and back. An uninterruptible channel (a stream's)
     * keeps the ring: the JDK's channel would close on an interrupt.
     */
    @Test
    void aVirtualThreadsCrowdedSyncIsTheJdksAndMakesNoRequest() throws Exception {
        Path path = dir.resolve("crowded");
        Files.write(path, new byte[4096]);
        assertThat(VirtualSyncs.begin()).as("no other sync under way").isTrue();
        try {
            long[] requests = OnVirtualThread.supply(() -> {
                try (UringFileChannel ch = UringFileChannel.open(uring, path, READ, WRITE)) {
                    long before = submitted();
                    ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0);
                    ch.force(true);
                    ch.force(false);
                    long crowded = submitted();
                    ch.setUninterruptible();
                    ch.force(true);
                    return new long[] {before, crowded, submitted()};
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(requests[1]).as("requests for a crowded virtual thread's write and two syncs")
                    .isEqualTo(requests[0]);
            assertThat(requests[2]).as("requests for an uninterruptible channel's crowded sync")
                    .isEqualTo(requests[1] + 1);
        } finally {
            VirtualSyncs.end();
        }
        assertThat(Files.readAllBytes(path)).startsWith(1, 2, 3);
    }

    /**
     * A virtual thread's O_DIRECT write while another writes the file (this test counts itself as that other) goes
     * through the JDK's channel on the file, opened O_DIRECT too, whose write adds a carrier while it waits, as the
     * JDK's own does: through the ring, each was a hand-over to the loop and back. With
     * {@link AsyncFile#RING_WRITERS_FROM} others, in a file not synced lately, it goes through the ring, where many
     * are in flight side by side; in a file just synced, through the JDK's channel again (a log's writes).
     */
    @Test
    void aVirtualThreadsCrowdedDirectWriteIsTheJdksUntilManyWrite() throws Exception {
        Path path = dir.resolve("crowded-direct");
        int block = (int) Files.getFileStore(dir).getBlockSize();
        Files.write(path, new byte[4 * block]);
        long[] requests = OnVirtualThread.supply(() -> {
            try (UringFileChannel ch = UringFileChannel.open(uring, path, READ, WRITE, ExtendedOpenOption.DIRECT)) {
                ByteBuffer aligned = alignedBlock(block);
                int others = 0;
                try {
                    ch.file.beginDirectWrite();
                    others++;
                    long before = submitted();
                    writeBlock(ch, aligned, block, 0);
                    long crowded = submitted();
                    while (others < AsyncFile.RING_WRITERS_FROM) {
                        ch.file.beginDirectWrite();
                        others++;
                    }
                    writeBlock(ch, aligned, block, 1);
                    long many = submitted();
                    ch.force(false);                // the only sync: in place, and the file is now synced lately
                    long synced = submitted();
                    writeBlock(ch, aligned, block, 2);
                    return new long[] {before, crowded, many, synced, submitted()};
                } finally {
                    for (; others > 0; others--) {
                        ch.file.endDirectWrite();
                    }
                }
            }
        }).get(30, TimeUnit.SECONDS);
        assertThat(requests[1]).as("requests for a crowded write").isEqualTo(requests[0]);
        assertThat(requests[2]).as("requests for a write among many").isEqualTo(requests[1] + 1);
        assertThat(requests[3]).as("requests for the lone sync").isEqualTo(requests[2]);
        assertThat(requests[4]).as("requests for a write among many, just after a sync").isEqualTo(requests[3]);
        byte[] bytes = Files.readAllBytes(path);
        for (int i = 0; i < 3; i++) {
            assertThat(Arrays.copyOfRange(bytes, i * block, (i + 1) * block)).as("block %d", i)
                    .isEqualTo(pattern(i, block));
        }
    }

    /**
     * A crowded O_DIRECT write the JDK's channel fails (here: a full disk) is made again through the ring, which
     * reports the error as this channel's writes do, naming the operation and the errno; so are the later ones.
     */
    @Test
    void aCrowdedDirectWriteTheJdkRefusesGoesThroughTheRing() throws Exception {
        Path tiny = Files.createDirectory(dir.resolve("tiny"));
        org.junit.jupiter.api.Assumptions.assumeTrue(FsTestKit.mountTmpfs(tiny, "64k"),
                "cannot mount a small tmpfs here (needs root): no full disk to test with");
        try {
            Path path = tiny.resolve("full");
            int block = 4096;
            try (FileChannel probe = FileChannel.open(path, WRITE, CREATE, ExtendedOpenOption.DIRECT)) {
                assertThat(probe.isOpen()).isTrue();
            } catch (IOException e) {
                org.junit.jupiter.api.Assumptions.abort("tmpfs takes no O_DIRECT open on this kernel (6.6 and later "
                        + "do): " + e);
            }
            Throwable[] failures = OnVirtualThread.supply(() -> {
                try (UringFileChannel ch = UringFileChannel.open(uring, path, READ, WRITE, CREATE,
                        ExtendedOpenOption.DIRECT)) {
                    ByteBuffer aligned = alignedBlock(block);
                    ch.file.beginDirectWrite();             // another writer: this one is crowded
                    try {
                        Throwable[] seen = new Throwable[2];
                        for (int i = 0, k = 0; k < 2 && i < 1000; i++) {
                            try {
                                writeBlock(ch, aligned, block, i);
                            } catch (IOException e) {
                                seen[k++] = e;
                            }
                        }
                        return seen;
                    } finally {
                        ch.file.endDirectWrite();
                    }
                }
            }).get(30, TimeUnit.SECONDS);
            for (Throwable failure : failures) {
                assertThat(failure).isInstanceOf(IOException.class).hasMessageContaining("No space left on device")
                        .hasCauseInstanceOf(io.uring4j.sys.ErrnoException.class);
                assertThat(failure.getCause()).hasMessageContaining("WRITE").hasMessageContaining("ENOSPC");
            }
        } finally {
            FsTestKit.unmount(tiny);
        }
    }

    /** A direct buffer of one {@code block}, aligned to it, as O_DIRECT asks. */
    private static ByteBuffer alignedBlock(int block) {
        return ByteBuffer.allocateDirect(2 * block).alignedSlice(block).limit(block);
    }

    private static void writeBlock(FileChannel ch, ByteBuffer aligned, int block, int i) throws IOException {
        aligned.clear().limit(block).put(pattern(i, block)).flip();
        if (ch.write(aligned, (long) i * block) != block) {
            throw new AssertionError("short write");
        }
    }

    /**
     * An interrupted virtual thread's crowded sync ends as the JDK's force does: ClosedByInterruptException, the
     * channel closed (and the JDK channel it synced through with it), the interrupt status kept.
     */
    @Test
    void anInterruptedCrowdedSyncClosesTheChannel() throws Exception {
        Path path = dir.resolve("crowded-interrupted");
        Files.write(path, new byte[4096]);
        assertThat(VirtualSyncs.begin()).as("no other sync under way").isTrue();
        try {
            String outcome = OnVirtualThread.supply(() -> {
                UringFileChannel ch = UringFileChannel.open(uring, path, READ, WRITE);
                ch.force(true);                     // opens the JDK channel the crowded syncs go through
                Thread.currentThread().interrupt();
                try {
                    ch.force(true);
                    return "no exception";
                } catch (java.nio.channels.ClosedByInterruptException e) {
                    return "closed by interrupt: open " + ch.isOpen() + ", interrupted "
                            + Thread.currentThread().isInterrupted();
                } finally {
                    Thread.interrupted();
                    ch.close();
                }
            }).get(30, TimeUnit.SECONDS);
            assertThat(outcome).isEqualTo("closed by interrupt: open false, interrupted true");
        } finally {
            VirtualSyncs.end();
        }
    }

    /**
     * An interrupt that comes while a crowded sync waits in the JDK's channel is that channel's to take: its begin
     * registered its own interruptor in place of this channel's, so it closes itself and throws
     * ClosedByInterruptException. This channel must close too, as the JDK's force would, not stay open with a
     * closed JDK channel behind it. The JDK channel is a stand-in whose force waits for the interrupt between its
     * begin and end, as the JDK's does in its fsync.
     */
    @Test
    void anInterruptWhileACrowdedSyncWaitsInTheJdksChannelClosesTheChannel() throws Exception {
        Path path = dir.resolve("crowded-interrupted-in-jdk");
        Files.write(path, new byte[4096]);
        assertThat(VirtualSyncs.begin()).as("no other sync under way").isTrue();
        try (UringFileChannel ch = UringFileChannel.open(uring, path, READ, WRITE)) {
            ForceWaitingForInterrupt jdk = new ForceWaitingForInterrupt();
            Field delegate = JdkDelegate.class.getDeclaredField("delegate");
            delegate.setAccessible(true);
            delegate.set(Fields.read(UringFileChannel.class, "delegate", ch), jdk);
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Thread syncer = Thread.ofVirtual().start(() -> {
                try {
                    ch.force(true);
                    outcome.complete("no exception");
                } catch (ClosedByInterruptException e) {
                    outcome.complete("closed by interrupt: interrupted " + Thread.currentThread().isInterrupted());
                } catch (Throwable t) {
                    outcome.completeExceptionally(t);
                }
            });
            assertThat(jdk.waiting.await(30, TimeUnit.SECONDS)).as("the sync waits in the JDK's channel").isTrue();
            syncer.interrupt();
            assertThat(outcome.get(30, TimeUnit.SECONDS)).isEqualTo("closed by interrupt: interrupted true");
            assertThat(jdk.isOpen()).as("the JDK channel closed itself").isFalse();
            assertThat(ch.isOpen()).isFalse();
        } finally {
            VirtualSyncs.end();
        }
    }

    /** A JDK channel whose force waits, between begin and end, until its thread is interrupted. */
    private static final class ForceWaitingForInterrupt extends FileChannel {
        final CountDownLatch waiting = new CountDownLatch(1);

        @Override
        public void force(boolean metaData) throws IOException {
            try {
                begin();
                waiting.countDown();
                while (!Thread.currentThread().isInterrupted()) {
                    LockSupport.park(this);
                }
            } finally {
                end(false);
            }
        }

        @Override
        protected void implCloseChannel() {
        }

        @Override
        public int read(ByteBuffer dst) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int write(ByteBuffer src) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long position() {
            throw new UnsupportedOperationException();
        }

        @Override
        public FileChannel position(long newPosition) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long size() {
            throw new UnsupportedOperationException();
        }

        @Override
        public FileChannel truncate(long size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(ByteBuffer dst, long position) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int write(ByteBuffer src, long position) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) {
            throw new UnsupportedOperationException();
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) {
            throw new UnsupportedOperationException();
        }
    }

    /**
     * A FIFO's open waits for its peer: from virtual threads, more than there are carriers, it must go through the
     * ring, or the waiting opens would hold every carrier and the writer that ends their wait could never run.
     */
    @Test
    void virtualThreadsWaitingToOpenAFifoHoldNoCarrier() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        int readers = Runtime.getRuntime().availableProcessors() + 2;
        List<CompletableFuture<Integer>> reads = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            reads.add(OnVirtualThread.supply(() -> {
                try (FileChannel ch = UringFileChannel.open(uring, fifo, READ)) {
                    return ch.read(ByteBuffer.allocate(1));
                }
            }));
        }
        CompletableFuture<Integer> writer = OnVirtualThread.supply(() -> {
            try (FileChannel ch = UringFileChannel.open(uring, fifo, WRITE)) {
                int written = ch.write(ByteBuffer.wrap(new byte[readers]));       // a byte for each reader
                CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                return written;                                                 // open until all have read
            }
        });
        assertThat(writer.get(30, TimeUnit.SECONDS)).isEqualTo(readers);
        for (CompletableFuture<Integer> read : reads) {
            assertThat(read.get()).isOne();
        }
    }

    @Test
    void aClosedChannelsSizeIsRefused() throws Exception {
        FileChannel ch = UringFileChannel.open(uring, dir.resolve("closed"), READ, WRITE, CREATE);
        ch.close();
        assertThatThrownBy(ch::size).isInstanceOf(ClosedChannelException.class);
        AsyncFile file = UringFiles.of(uring).open(dir.resolve("closed"), OpenFlags.O_RDONLY);
        file.close();
        assertThatThrownBy(file::size).isInstanceOf(ClosedChannelException.class);
    }

    @Test
    void aFileIsNotOpenedOnAClosedRuntime() throws Exception {
        Uring closed = Uring.open();
        closed.close();
        assertThatThrownBy(() -> UringFiles.of(closed).open(dir.resolve("x"), OpenFlags.O_RDWR | OpenFlags.O_CREAT))
                .isInstanceOf(IOException.class).hasMessageContaining("runtime is closed");
        assertThat(dir.resolve("x")).doesNotExist();
    }

    /**
     * Size is asked often (before every append of a log, say): like the JDK's, it allocates nothing once compiled.
     * The least of rounds of calls, since the JIT compiles (and removes the downcall's temporary objects) when it can:
     * on a busy machine that took more than 100 rounds once, so up to 1,000 (about 14 s where a system call costs
     * 1.4 µs, and only if it never compiles).
     */
    @Test
    void aPlatformThreadsSizeAllocatesNothingOnceCompiled() throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (FileChannel ch = UringFileChannel.open(uring, dir.resolve("sized"), READ, WRITE, CREATE)) {
            ch.write(ByteBuffer.wrap(new byte[77]), 0);
            int calls = 10_000;
            long least = Long.MAX_VALUE;
            for (int round = 0; round < 1000 && least >= 8; round++) {
                long sum = 0;
                long from = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < calls; i++) {
                    sum += ch.size();
                }
                least = Math.min(least, (threads.getCurrentThreadAllocatedBytes() - from) / calls);
                assertThat(sum).isEqualTo(77L * calls);
            }
            assertThat(least).as("bytes allocated per size(), in the best round").isLessThan(8);
        }
    }

    private static long submitted() {
        long n = 0;
        for (int i = 0; i < uring.loopCount(); i++) {
            n += uring.loop(i).stats().submitted();
        }
        return n;
    }
}
