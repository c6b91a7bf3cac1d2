package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Uring;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.AsynchronousChannelGroup;
import java.nio.channels.ShutdownChannelGroupException;
import java.nio.channels.spi.AsynchronousChannelProvider;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * An {@link AsynchronousChannelGroup} whose channels' reads and writes run on rings of the group's own
 * ({@link AsyncRing}: one per CPU, channels spread over them in turn), each polled by a task on the group's executor
 * that runs its channels' handlers itself, and whose accepts and connects run on a uring4j runtime's event loops,
 * their handlers handed to the executor ({@link AsyncHandlers}). The executor is the one given to
 * {@code withThreadPool}/{@code withCachedThreadPool}, or the fixed pool a {@code withFixedThreadPool} group makes
 * with its thread factory; each poller takes one of its threads while the group lives (a bounded pool keeps one
 * thread free of them), and the {@code initialSize} of a cached pool has nothing to size.
 *
 * <p>Lifecycle, as the JDK's: {@link #shutdown()} refuses new channels ({@link ShutdownChannelGroupException});
 * once every channel is closed and every handler of theirs run or handed to the executor, the ring's poller ends
 * and the executor is shut down, and the group is terminated when the executor is. {@link #shutdownNow()} also closes every channel — their pending
 * operations fail with {@link java.nio.channels.AsynchronousCloseException}, delivered before the executor shuts.
 */
public final class UringAsynchronousChannelGroup extends AsynchronousChannelGroup {
    private final Uring uring;
    private final ExecutorService executor;
    private final AsyncHandlers handlers;
    private final Set<Closeable> channels = ConcurrentHashMap.newKeySet();
    /** Open channels plus operations whose outcome has not been handed over yet: the group may end at zero. */
    private final AtomicLong users = new AtomicLong();
    private volatile boolean shutdown;
    private final AtomicBoolean executorShut = new AtomicBoolean();
    /** Notified once the executor is shut: awaitTermination waits for that before it waits for the executor. */
    private final Object executorShutLock = new Object();
    /**
     * The group's reads and writes, one ring per poller, each polled by one of the executor's threads and started
     * with the first operation that needs it; a channel keeps the ring it is given ({@link #nextRing}).
     */
    private final AtomicReferenceArray<AsyncRing> rings;
    private final AtomicInteger ringTurn = new AtomicInteger();

    /**
     * {@code pollers}: how many rings, so how many of the executor's threads may run handlers at once. One poller
     * runs every handler of its channels itself, so a group with one is one CPU's worth of handlers however many
     * the machine has; the JDK's group hands each completion to the executor's threads instead.
     */
    UringAsynchronousChannelGroup(AsynchronousChannelProvider provider, Uring uring, ExecutorService executor,
            int pollers) {
        super(provider);
        this.uring = uring;
        this.executor = executor;
        this.handlers = new AsyncHandlers(executor);
        this.rings = new AtomicReferenceArray<>(Math.max(1, pollers));
    }

    /**
     * The pollers a group on an executor of {@code threads} threads (0: unbounded) gets: one per CPU this JVM may
     * use, and at least one thread of a bounded executor left for the handlers handed to it (accepts, connects).
     */
    static int pollers(int threads) {
        int cpus = Runtime.getRuntime().availableProcessors();
        return Math.max(1, threads > 0 ? Math.min(cpus, threads - 1) : cpus);
    }

    /** The loop a new channel's requests go to. */
    EventLoop nextLoop() {
        return uring.loop();
    }

    AsyncHandlers handlers() {
        return handlers;
    }

    /** The ring a new channel's reads and writes go to: the rings in turn. */
    int nextRing() {
        return Math.floorMod(ringTurn.getAndIncrement(), rings.length());
    }

    /** Whether the calling thread is polling ring {@code index} now. */
    boolean onPoller(int index) {
        return polling(index) != null;
    }

    /** Ring {@code index} if the calling thread is polling it now, else null. */
    AsyncRing polling(int index) {
        AsyncRing r = rings.get(index);
        return r != null && r.onPoller() ? r : null;
    }

    /** Whether the calling thread is polling one of the group's rings now. */
    boolean onAnyPoller() {
        for (int i = 0; i < rings.length(); i++) {
            if (onPoller(i)) {
                return true;
            }
        }
        return false;
    }

    /** A thread about to block for an outcome one of the group's rings reaps: a poller steps down first. */
    void beforeBlocking() {
        for (int i = 0; i < rings.length(); i++) {
            AsyncRing r = rings.get(i);
            if (r != null) {
                r.beforeBlocking();
            }
        }
    }

    /** Ring {@code index}, started on first use (by a channel's operation, so the group is not terminated). */
    AsyncRing ring(int index) throws IOException {
        AsyncRing r = rings.get(index);
        return r != null ? r : startRing(index);
    }

    private synchronized AsyncRing startRing(int index) throws IOException {
        if (rings.get(index) == null) {
            AsyncRing r = new AsyncRing(executor, uring.engine());
            try {
                r.start();
            } catch (RejectedExecutionException e) {
                throw new IOException("the channel group's executor refused its poller", e);
            }
            rings.set(index, r);
        }
        return rings.get(index);
    }

    /** Admits a new channel, or refuses it once the group is shut down. */
    void register(Closeable channel) {
        users.incrementAndGet();
        if (shutdown) {
            leave();
            throw new ShutdownChannelGroupException();
        }
        channels.add(channel);
    }

    /** A channel has closed (its pending operations are counted on their own until they are delivered). */
    void unregister(Closeable channel) {
        if (channels.remove(channel)) {
            leave();
        }
    }

    /** An operation has started on one of the group's channels (which is registered, so the group is not ending). */
    void operationStarted() {
        users.incrementAndGet();
    }

    /** An operation's outcome has been handed over: to the executor, or to its future. */
    void operationEnded() {
        leave();
    }

    private void leave() {
        if (users.decrementAndGet() == 0 && shutdown) {
            shutDownExecutor();
        }
    }

    private void shutDownExecutor() {
        if (executorShut.compareAndSet(false, true)) {
            synchronized (this) {
                for (int i = 0; i < rings.length(); i++) {
                    AsyncRing r = rings.get(i);
                    if (r != null) {
                        r.stop();       // its poller ends once its last request has, and leaves the executor
                    }
                }
            }
            executor.shutdown();
            synchronized (executorShutLock) {
                executorShutLock.notifyAll();
            }
        }
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return executorShut.get() && executor.isTerminated();
    }

    @Override
    public void shutdown() {
        shutdown = true;
        if (users.get() == 0) {
            shutDownExecutor();
        }
    }

    @Override
    public void shutdownNow() throws IOException {
        shutdown();
        for (Closeable channel : List.copyOf(channels)) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // as the JDK's: the channel is closed whatever close reported
            }
        }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (executorShutLock) {
            while (!executorShut.get()) {       // the executor is shut only once the last channel has gone
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(executorShutLock, left);
            }
        }
        return executor.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    @Override
    public String toString() {
        return "UringAsynchronousChannelGroup[" + (isTerminated() ? "terminated" : shutdown ? "shut down" : "open")
                + ", " + channels.size() + " channel(s)]";
    }
}
