package io.uring4j.runtime;

import io.uring4j.ring.Engine;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The uring4j runtime: N {@link EventLoop}s, each a platform thread owning one ring. Requests go to the loop
 * of the calling thread when it is one, otherwise round-robin.
 *
 * <pre>{@code
 * try (Uring uring = Uring.builder().loops(2).build()) {
 *     int n = uring.call(Op.read(fd, buffer, 0));                    // blocking: parks a virtual thread
 *     uring.submitAsync(Op.nop()).thenAccept(r -> ...);              // future
 *     uring.loop().submit(Op.nop(), (result, flags) -> ...);         // callback on the loop thread
 * }
 * }</pre>
 *
 * <p>{@link #close()} may be called from any thread, any number of times: new requests are refused, requests
 * in flight are cancelled, and the rings are unmapped only after every CQE has arrived.
 */
public final class Uring implements AutoCloseable {
    private final EventLoop[] loops;
    private final AtomicInteger next = new AtomicInteger();
    private final UringBuilder config;
    private final Object closeLock = new Object();
    private volatile boolean closed;
    private boolean closeAwaited;
    /** Made on the first page-cache read of a virtual thread; null until then, or where it cannot be made. */
    private volatile InlineReads inlineReads;
    private volatile boolean inlineReadsTried;

    Uring(UringBuilder config) throws ErrnoException {
        this.config = config;
        RuntimeEvents.registerPeriodic();
        this.loops = new EventLoop[config.loops()];
        try {
            for (int i = 0; i < loops.length; i++) {
                loops[i] = new EventLoop(this, i, config);
            }
        } catch (ErrnoException | RuntimeException e) {
            close();
            throw e;
        }
    }

    public static UringBuilder builder() {
        return new UringBuilder();
    }

    /**
     * The batcher of this runtime's virtual threads' page-cache reads (one slot per virtual-thread carrier), or
     * null when the loops run on the portable engine, the kernel refused the slots' rings, or the runtime is
     * closed: callers then read with {@code preadv2(RWF_NOWAIT)} themselves.
     */
    public InlineReads inlineReads() {
        InlineReads reads = inlineReads;
        if (reads != null) {
            return reads;
        }
        if (inlineReadsTried) {
            return inlineReads;         // read again: it was set before the flag
        }
        synchronized (closeLock) {
            if (!inlineReadsTried && !closed) {
                if (loops[0].ring().engineUsed() == Engine.kernel()) {
                    int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                            Runtime.getRuntime().availableProcessors());
                    try {       // room for carriers the JDK adds to make up for pinned ones
                        inlineReads = InlineReads.open(Math.max(4, 4 * carriers));
                    } catch (ErrnoException refused) {
                        // the loops' rings work; reads then take preadv2, as they would anywhere
                    }
                }
                inlineReadsTried = true;        // after the slots exist: a reader that sees it sees them
            }
            return inlineReads;
        }
    }

    /** A runtime with one loop per core. */
    public static Uring open() throws ErrnoException {
        return builder().build();
    }

    /** The calling thread's loop if it is one, otherwise the next loop round-robin. */
    public EventLoop loop() {
        Thread current = Thread.currentThread();
        for (EventLoop loop : loops) {
            if (loop != null && loop.thread() == current) {
                return loop;
            }
        }
        return loops.length == 1 ? loops[0] : loops[Math.floorMod(next.getAndIncrement(), loops.length)];
    }

    public EventLoop loop(int index) {
        return loops[index];
    }

    public int loopCount() {
        return loops.length;
    }

    /** Callback style: {@code handler} runs on the chosen loop's thread. */
    public void submit(Op op, CompletionHandler handler) {
        loop().submit(op, handler);
    }

    /** Future style. */
    public CompletableFuture<Integer> submitAsync(Op op) {
        return loop().submitAsync(op);
    }

    /** Blocking style (virtual threads welcome). */
    public int call(Op op) throws IOException {
        return loop().call(op);
    }

    /**
     * Native bytes the runtime holds right now across all runtimes and buffer pools (request scratch, wake-up
     * words, pool slabs, receive buffer rings, connections' buffers; the rings themselves are the kernel's
     * mappings). Back to its old value after close. The same as {@link NativeMemory#inUse()}.
     */
    public static long nativeBytesInUse() {
        return NativeMemory.inUse();
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Refuses new work, cancels what is in flight, waits for every CQE, then releases the rings. Idempotent.
     * From a loop thread it starts the close and returns without waiting for that loop.
     *
     * @throws IllegalStateException if the kernel did not complete every request within the close timeout (the
     *                               memory those requests use is then left allocated, never freed under them)
     */
    @Override
    public void close() {
        closed = true;
        synchronized (closeLock) {
            inlineReadsTried = true;
        }
        InlineReads reads = inlineReads;
        if (reads != null) {
            reads.close();
        }
        for (EventLoop loop : loops) {
            if (loop != null) {
                loop.close();
            }
        }
        for (EventLoop loop : loops) {
            if (loop != null && loop.inLoop()) {
                return;             // a loop cannot wait for itself; it finishes once its handler returns
            }
        }
        synchronized (closeLock) {
            if (closeAwaited) {
                return;
            }
            closeAwaited = true;
            List<String> problems = new ArrayList<>();
            boolean interrupted = false;
            for (EventLoop loop : loops) {
                if (loop == null) {
                    continue;
                }
                try {
                    String problem = loop.awaitTermination(config.closeTimeoutNanos() + 1_000_000_000L);
                    if (problem != null) {
                        problems.add(problem);
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (!problems.isEmpty()) {
                throw new IllegalStateException(String.join("; ", problems));
            }
        }
    }
}
