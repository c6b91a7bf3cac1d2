package io.uring4j.bench;

import io.uring4j.fs.UringAsynchronousFileChannel;
import io.uring4j.fs.UringFileChannel;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.ErrnoException;
import com.sun.nio.file.ExtendedOpenOption;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@code java.nio} channel APIs on the read workload, ours against the JDK's with the same code:
 * <ul>
 *   <li>{@code filechannel} / {@code jdk-filechannel}: depth virtual threads (platform threads with
 *       {@code --platform}), each doing blocking positional reads ({@link FileChannel#read(ByteBuffer, long)}) on
 *       one shared channel — the thread-per-request style ordinary Java code uses.</li>
 *   <li>{@code async-filechannel} / {@code jdk-async}: depth reads in flight on an
 *       {@link AsynchronousFileChannel}, each {@link CompletionHandler} issuing the next.</li>
 * </ul>
 * {@code --write} makes them positional writes of the same size at the same offsets, and {@code --force} follows
 * each blocking write with {@link FileChannel#force force(false)}: a write-ahead log's commit.
 * {@code -O1} opens with the JDK's {@link ExtendedOpenOption#DIRECT}, which both accept; buffers are direct and
 * aligned to 4 KiB either way. Ours run on a runtime of {@code -n} event loops (default 1).
 */
final class ChannelDriver implements Driver {
    private final BenchOptions options;
    private final Uring uring;
    private final FileChannel channel;
    private final AsynchronousFileChannel asyncChannel;
    private final long blocks;
    private volatile boolean stop;

    ChannelDriver(BenchOptions options, List<ReadTarget> targets) throws ErrnoException {
        if (options.isNop()) {
            throw new BenchException("--api " + options.api + " reads a file: it has no nop or link mode");
        }
        this.options = options;
        ReadTarget target = targets.getFirst();
        this.blocks = Math.max(1, target.size() / options.blockSize);
        List<OpenOption> open = new ArrayList<>(List.of(StandardOpenOption.READ));
        if (options.write) {
            open.add(StandardOpenOption.WRITE);
        }
        if (options.direct == 1) {
            open.add(ExtendedOpenOption.DIRECT);
        }
        OpenOption[] opts = open.toArray(OpenOption[]::new);
        boolean ours = options.api == BenchOptions.Api.filechannel || options.api == BenchOptions.Api.async_filechannel;
        try {
            this.uring = ours ? Uring.builder().loops(options.threads).build() : null;
            this.channel = switch (options.api) {
                case filechannel -> UringFileChannel.open(uring, target.path(), opts);
                case jdk_filechannel -> FileChannel.open(target.path(), opts);
                default -> null;
            };
            this.asyncChannel = switch (options.api) {
                case async_filechannel -> UringAsynchronousFileChannel.open(uring, target.path(), opts);
                case jdk_async -> AsynchronousFileChannel.open(target.path(), opts);
                default -> null;
            };
        } catch (IOException e) {
            throw new BenchException("--api " + options.api + ": cannot open " + target.path() + ": " + e, e);
        }
    }

    @Override
    public String engine() {
        return uring == null ? "jdk" : uring.loop(0).ring().engineUsed().name();
    }

    @Override
    public String describe() {
        return "Engine=" + (uring != null ? "io_uring runtime, loops=" + uring.loopCount() : "JDK") + ", api=" + options.api
                + ", " + (options.write ? options.force ? "write+force" : "write" : "read") + ", depth=" + options.depth
                + (channel == null ? " in flight" : options.platform ? " platform threads" : " virtual threads");
    }

    /** One reader's (or writer's) buffer and offsets: the same random or sequential {@link Blocks} as RuntimeDriver. */
    private final class Reader {
        // alignedSlice keeps whole 4 KiB units only: round the size up, or -b512 would get an empty buffer.
        final ByteBuffer buffer = ByteBuffer.allocateDirect((options.blockSize + 4095) / 4096 * 4096 + 4096)
                .alignedSlice(4096).limit(options.blockSize);
        private final Blocks offsets;

        Reader(int index) {
            offsets = new Blocks(index, options.random == 1, blocks);
        }

        long nextOffset() {
            buffer.clear().limit(options.blockSize);
            return offsets.next() * options.blockSize;
        }

        void check(int n) {
            if (n != options.blockSize) {
                throw new BenchException("--api " + options.api + ": " + (options.write ? "wrote " : "read ") + n
                        + " bytes, expected " + options.blockSize);
            }
        }
    }

    @Override
    public void run(long durationNanos, Counters counters) throws ErrnoException {
        stop = false;
        AtomicLong done = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch finished = new CountDownLatch(options.depth);
        long start = System.nanoTime();
        counters.start(start);
        for (int i = 0; i < options.depth; i++) {
            Reader reader = new Reader(i);
            if (channel != null) {
                Runnable io = () -> blockingIo(reader, done, failure, finished);
                (options.platform ? Thread.ofPlatform().daemon() : Thread.ofVirtual()).start(io);
            } else {
                new AsyncReads(reader, done, failure, finished).next();
            }
        }
        try {
            long deadline = start + durationNanos;
            while (failure.get() == null && !counters.stopRequested()
                    && (durationNanos == 0 || System.nanoTime() < deadline)) {
                Thread.sleep(20);
                counters.publish(0, done.get(), done.get());
            }
            long ops = done.get();
            counters.finish(System.nanoTime(), 0, ops, ops);
            stop = true;
            if (!finished.await(30, TimeUnit.SECONDS)) {
                throw new BenchException("--api " + options.api + ": readers did not stop within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop = true;
        }
        if (failure.get() != null) {
            throw new BenchException("--api " + options.api + ": " + failure.get(), failure.get());
        }
    }

    private void blockingIo(Reader reader, AtomicLong done, AtomicReference<Throwable> failure,
                            CountDownLatch finished) {
        try {
            while (!stop) {
                long offset = reader.nextOffset();
                if (options.write) {
                    reader.check(channel.write(reader.buffer, offset));
                    if (options.force) {
                        channel.force(false);
                    }
                } else {
                    reader.check(channel.read(reader.buffer, offset));
                }
                done.incrementAndGet();
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
            stop = true;
        } finally {
            finished.countDown();
        }
    }

    /** One reader's chain of asynchronous reads (or writes): each completion issues the next until stopped. */
    private final class AsyncReads implements CompletionHandler<Integer, Void> {
        private final Reader reader;
        private final AtomicLong done;
        private final AtomicReference<Throwable> failure;
        private final CountDownLatch finished;

        AsyncReads(Reader reader, AtomicLong done, AtomicReference<Throwable> failure, CountDownLatch finished) {
            this.reader = reader;
            this.done = done;
            this.failure = failure;
            this.finished = finished;
        }

        void next() {
            if (stop) {
                finished.countDown();
                return;
            }
            if (options.write) {
                asyncChannel.write(reader.buffer, reader.nextOffset(), null, this);
            } else {
                asyncChannel.read(reader.buffer, reader.nextOffset(), null, this);
            }
        }

        @Override
        public void completed(Integer n, Void attachment) {
            try {
                reader.check(n);
            } catch (BenchException e) {
                failed(e, null);
                return;
            }
            done.incrementAndGet();
            next();
        }

        @Override
        public void failed(Throwable t, Void attachment) {
            failure.compareAndSet(null, t);
            stop = true;
            finished.countDown();
        }
    }

    @Override
    public long allocatedBytes() {
        return Counters.THREADS.getTotalThreadAllocatedBytes();
    }

    @Override
    public boolean countsEveryThread() {
        return true;
    }

    @Override
    public Histogram latencies() {
        return null;
    }

    @Override
    public void close() {
        try {
            if (channel != null) {
                channel.close();
            }
            if (asyncChannel != null) {
                asyncChannel.close();
            }
        } catch (IOException e) {
            throw new BenchException("--api " + options.api + ": close failed: " + e, e);
        } finally {
            if (uring != null) {
                uring.close();
            }
        }
    }
}
