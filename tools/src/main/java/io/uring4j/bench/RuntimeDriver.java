package io.uring4j.bench;

import io.uring4j.ring.Sqe;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.runtime.BufferPool;
import io.uring4j.runtime.Chain;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.LoopStats;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code --api loop | future | vthread}: the same workloads through the runtime (one event loop), to show what
 * each API style costs over the raw ring.
 * <ul>
 *   <li>{@code loop}: depth requests kept in flight by completion handlers on the loop thread, each
 *       resubmitting its own op — the allocation-free callback path.</li>
 *   <li>{@code future}: depth futures in flight; each completion submits the next one.</li>
 *   <li>{@code vthread}: depth virtual threads, each with one blocking call in flight at a time.</li>
 * </ul>
 * Allocation is counted over every thread (loop, carriers, this one): the work is not on the driver thread.
 */
final class RuntimeDriver implements Driver {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final BenchOptions options;
    private final Uring uring;
    private final EventLoop loop;
    private final BufferPool pool;
    private final int fd;
    /** {@code -F1} on a file: requests name it as slot 0 of the loop's file table. */
    private final boolean fixedFile;
    private final long blocks;
    private final int depth;
    private final int link;
    private volatile boolean stop;

    RuntimeDriver(BenchOptions options, List<ReadTarget> targets) throws ErrnoException {
        this.options = options;
        this.depth = options.depth;
        this.link = options.link;
        if (link > 0 && options.api == BenchOptions.Api.loop) {
            throw new BenchException("--api loop has no chain driver yet: use --api future or vthread with -L");
        }
        int entries = Math.max(64, Integer.highestOneBit(Math.max(depth, link) * 2 - 1));
        if (options.isNop()) {
            pool = null;
            fd = -1;
            blocks = 0;
        } else {
            ReadTarget target = targets.getFirst();
            pool = BufferPool.create(options.blockSize, depth);
            int flags = LibC.O_RDONLY | (options.direct == 1 ? LibC.O_DIRECT : 0);
            fd = LibC.open(target.path().toString(), flags, 0);
            if (fd < 0) {
                throw new ErrnoException("open " + target.path(), fd);
            }
            blocks = Math.max(1, target.size() / options.blockSize);
        }
        this.fixedFile = pool != null && options.registeredFiles == 1;
        UringBuilderHolder builder = new UringBuilderHolder(entries, options, pool, fixedFile);
        this.uring = builder.build();
        this.loop = uring.loop(0);
        if (fixedFile) {
            try {
                registerFile();
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }
    }

    /**
     * {@code -F1}: the file goes into slot 0 of the loop's file table, as t/io_uring registers its files. The
     * update is a request on the loop (FILES_UPDATE), so a SINGLE_ISSUER ring is touched by its own thread only.
     */
    private void registerFile() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment fds = arena.allocateFrom(ValueLayout.JAVA_INT, fd);
            int updated = loop.call((sqe, scratch) -> sqe.prepFilesUpdate(fds, 1, 0));
            if (updated != 1) {
                throw new BenchException("FILES_UPDATE of the read file into slot 0: " + updated);
            }
        } catch (java.io.IOException e) {
            throw new BenchException("registering the read file: " + e.getMessage());
        }
    }

    /** Keeps the builder calls in one place (fixed buffers only when asked for). */
    private record UringBuilderHolder(int entries, BenchOptions options, BufferPool pool, boolean fixedFile) {
        Uring build() throws ErrnoException {
            var b = Uring.builder().loops(1).entries(entries).cqEntries(entries * 2)
                    .spin(Duration.ofNanos((long) options.spinMicros * 1000));
            if (pool != null && options.fixedBuffers == 1) {
                b.fixedBuffers(pool);
            }
            if (fixedFile) {
                b.directDescriptors(1);
            }
            return b.build();
        }
    }

    @Override
    public String engine() {
        return uring.loop(0).ring().engineUsed().name();
    }

    @Override
    public String describe() {
        return "Engine=io_uring runtime, api=" + options.api + ", loops=1, depth=" + depth
                + (fixedFile ? ", registered file" : "")
                + (link > 0 ? ", link=" + link : "") + (options.spinMicros > 0 ? ", spin=" + options.spinMicros + "us" : "");
    }

    /** One request slot: its op (offset chosen at prepare time) and, for the loop style, its handler. */
    private final class Slot implements Op, CompletionHandler {
        private final BufferPool.Buffer buffer;
        private final Blocks offsets;
        final AtomicLong done;

        Slot(int index, AtomicLong done) throws InterruptedException {
            this.buffer = pool == null ? null : pool.acquire();
            this.offsets = new Blocks(index, options.random == 1, blocks);
            this.done = done;
        }

        @Override
        public void prepare(Sqe sqe, MemorySegment scratch) {
            if (buffer == null) {
                sqe.prepNop();
                return;
            }
            long block = offsets.next();
            int file = fixedFile ? 0 : fd;
            if (options.fixedBuffers == 1) {
                sqe.prepReadFixed(file, buffer.segment(), block * options.blockSize, BufferPool.FIXED_INDEX);
            } else {
                sqe.prepRead(file, buffer.segment(), block * options.blockSize);
            }
            sqe.addFlags((fixedFile ? SqeFlags.FIXED_FILE : 0) | (options.async == 1 ? SqeFlags.ASYNC : 0));
        }

        @Override
        public void complete(int result, int flags) {
            check(result);
            done.getAndIncrement();
            if (!stop) {
                loop.submit(this, this);
            }
        }

        void release() {
            if (buffer != null) {
                buffer.release();
            }
        }
    }

    private void check(int result) {
        int expected = pool == null ? 0 : options.blockSize;
        if (result != expected) {
            throw new BenchException("unexpected completion: " + (result < 0 ? Errno.name(result) : result)
                    + ", expected " + expected);
        }
    }

    @Override
    public void run(long durationNanos, Counters counters) throws ErrnoException {
        stop = false;
        AtomicLong done = new AtomicLong();
        List<Slot> slots = new ArrayList<>();
        LoopStats before = loop.stats();
        long start = System.nanoTime();
        counters.start(start);
        List<Thread> threads = new ArrayList<>();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        try {
            for (int i = 0; i < depth; i++) {
                slots.add(new Slot(i, done));
            }
            switch (options.api) {
                case loop -> loop.execute(() -> slots.forEach(s -> loop.submit(s, s)));
                case future -> slots.forEach(s -> pending.add(futureLoop(s, done)));
                case vthread -> slots.forEach(s -> threads.add(Thread.ofVirtual().start(() -> blockingLoop(s, done))));
                default -> throw new IllegalStateException("not a runtime api: " + options.api);
            }
            long deadline = start + durationNanos;
            while (!counters.stopRequested() && (durationNanos == 0 || System.nanoTime() < deadline)) {
                Thread.sleep(20);
                counters.publish(0, done.get(), done.get());      // enters are read once, at the end
            }
            long end = System.nanoTime();
            long ops = done.get();
            LoopStats after = loop.stats();
            counters.finish(end, after.enters() - before.enters(), ops, ops);
            stop = true;
            for (Thread t : threads) {
                t.join();
            }
            for (CompletableFuture<?> f : pending) {
                f.join();
            }
            while (loop.stats().inFlight() > 0) {
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop = true;
        } finally {
            slots.forEach(Slot::release);
        }
    }

    /** The future style: each completion chains the next request; the returned future ends when stopped. */
    private CompletableFuture<Void> futureLoop(Slot slot, AtomicLong done) {
        return new FutureChain(slot, done).finished;
    }

    /** One slot's future loop; its completion action is a field, so each request costs only its futures. */
    private final class FutureChain implements java.util.function.BiConsumer<Object, Throwable> {
        final CompletableFuture<Void> finished = new CompletableFuture<>();
        private final Slot slot;
        private final AtomicLong done;

        FutureChain(Slot slot, AtomicLong done) {
            this.slot = slot;
            this.done = done;
            next();
        }

        private void next() {
            if (stop) {
                finished.complete(null);
                return;
            }
            (link > 0 ? chain(slot).submitAsync() : loop.submitAsync(slot)).whenComplete(this);
        }

        @Override
        public void accept(Object result, Throwable failure) {
            if (failure != null) {
                finished.completeExceptionally(failure);
                return;
            }
            done.addAndGet(Math.max(1, link));
            next();
        }
    }

    /** The blocking style, on a virtual thread. */
    private void blockingLoop(Slot slot, AtomicLong done) {
        try {
            while (!stop) {
                if (link > 0) {
                    chain(slot).call();
                    done.addAndGet(link);
                } else {
                    check(loop.call(slot));
                    done.incrementAndGet();
                }
            }
        } catch (java.io.IOException e) {
            throw new BenchException("blocking call failed: " + e.getMessage());
        }
    }

    private Chain chain(Slot slot) {
        Chain chain = loop.chain(Op.nop());
        for (int i = 1; i < link; i++) {
            chain.then(Op.nop());
        }
        return chain;
    }

    @Override
    public long allocatedBytes() {
        return THREADS.getTotalThreadAllocatedBytes();
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
            uring.close();
        } finally {
            if (fd >= 0) {
                LibC.close(fd);
            }
            if (pool != null) {
                pool.close();
            }
        }
    }
}
