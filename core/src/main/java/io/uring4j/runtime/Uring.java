package io.uring4j.runtime;

import io.uring4j.ring.Engine;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

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
    /**
     * How long past its close timeout a loop may take to stop before the close reports it stuck: the loop's last
     * steps (failing what never completed, unmapping) run after the timeout, and a loaded machine can hold its thread
     * off a CPU for a second or more.
     */
    private static final long STOP_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final EventLoop[] loops;
    private final AtomicInteger next = new AtomicInteger();
    private final UringBuilder config;
    private final Object closeLock = new Object();
    private volatile boolean closed;
    private boolean closeAwaited;
    /** {@link #companion}s by maker, {@link #NONE} for a maker that made none; added to under closeLock. */
    private final ConcurrentHashMap<Function<Uring, ?>, Object> companions = new ConcurrentHashMap<>();
    private static final Object NONE = new Object();

    Uring(UringBuilder config) throws ErrnoException {
        this.config = config;
        RuntimeEvents.listen();
        this.loops = new EventLoop[config.loops()];
        try {
            // Every loop sets its ring up on its own thread at once: on a machine with many CPUs the loops' starts,
            // one after another, would add up to a noticeable part of a program's first file call.
            for (int i = 0; i < loops.length; i++) {
                loops[i] = new EventLoop(this, i, config);
            }
            for (EventLoop loop : loops) {
                loop.awaitStarted();
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
     * State that a package built on the runtime keeps per runtime, closed with it: the runtime holds it without
     * knowing what it is.
     */
    public interface Companion extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * What {@code maker} makes for this runtime: made on the first call with that maker (pass the same object each
     * time: a constant), then kept, and closed when the runtime closes, before its loops. Null where the maker
     * made null (it cannot be made here), or when the runtime was closed before the first call.
     */
    @SuppressWarnings("unchecked")  // the value was made by this very maker
    public <T extends Companion> T companion(Function<Uring, T> maker) {
        Object known = companions.get(maker);
        if (known == null) {
            synchronized (closeLock) {
                known = companions.get(maker);
                if (known == null) {
                    if (closed) {
                        return null;
                    }
                    T made = maker.apply(this);
                    known = made == null ? NONE : made;
                    companions.put(maker, known);       // after it is made: a reader that finds it finds it whole
                }
            }
        }
        return known == NONE ? null : (T) known;
    }

    /** A runtime with one loop per core. */
    public static Uring open() throws ErrnoException {
        return builder().build();
    }

    private static Uring shared;

    /**
     * The runtime shared by everything that does not bring its own (the file-system and selector providers, the
     * default asynchronous channel group): created on first use with one loop per core; its loops are daemon threads, so
     * it needs no closing (and must not be closed). Up to a million requests a loop may be in flight, as a server's
     * idle connections each keep a receive in flight; slots cost nothing until used.
     */
    public static synchronized Uring shared() throws ErrnoException {
        if (shared == null) {
            shared = builder().maxInFlight(1 << 20).build();
        }
        return shared;
    }

    /** The calling thread's loop if it is one, otherwise the next loop round-robin. */
    public EventLoop loop() {
        EventLoop own = callersLoop();
        if (own != null) {
            return own;
        }
        return loops.length == 1 ? loops[0] : loops[Math.floorMod(next.getAndIncrement(), loops.length)];
    }

    public EventLoop loop(int index) {
        return loops[index];
    }

    /** Whether the calling thread is one of this runtime's loops. */
    public boolean inLoop() {
        return callersLoop() != null;
    }

    private EventLoop callersLoop() {
        Thread current = Thread.currentThread();
        for (EventLoop loop : loops) {
            if (loop != null && loop.thread() == current) {
                return loop;
            }
        }
        return null;
    }

    public int loopCount() {
        return loops.length;
    }

    /** The engine the loops' rings come from; rings beside them (a selector's, a channel group's) use it too. */
    public Engine engine() {
        return config.engine();
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
        List<Object> made;
        synchronized (closeLock) {      // no companion is made from here on
            made = List.copyOf(companions.values());
        }
        for (Object companion : made) {
            if (companion != NONE) {
                ((Companion) companion).close();
            }
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
                    String problem = loop.awaitTermination(config.closeTimeoutNanos() + STOP_MARGIN_NANOS);
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
