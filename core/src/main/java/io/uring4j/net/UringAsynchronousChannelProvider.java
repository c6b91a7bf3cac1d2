package io.uring4j.net;

import io.uring4j.runtime.Uring;

import java.io.IOException;
import java.nio.channels.AsynchronousChannelGroup;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.IllegalChannelGroupException;
import java.nio.channels.spi.AsynchronousChannelProvider;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Asynchronous socket channels on io_uring for unmodified applications: select it with
 * {@code -Djava.nio.channels.spi.AsynchronousChannelProvider=io.uring4j.net.UringAsynchronousChannelProvider}
 * and {@code AsynchronousSocketChannel.open()}, {@code AsynchronousChannelGroup.withThreadPool(...)} and the rest
 * come from here. Every read and write the socket is not ready for is one request on one of the group's own rings
 * (one per CPU), each polled by one of the group's threads; every accept and connect one request on an event loop of a uring4j runtime —
 * {@link Uring#shared()}, or the runtime given to {@link #UringAsynchronousChannelProvider(Uring)}. Completion
 * handlers run on the group's threads, never on a loop (see {@link UringAsynchronousChannelGroup}).
 *
 * <p>Groups: {@code withFixedThreadPool(n, factory)} runs handlers on n threads of the factory, started at once as
 * the JDK's are; {@code withThreadPool} and {@code withCachedThreadPool} on the executor given. The default group
 * (channels opened without a group) runs them on a cached pool of daemon threads, as the JDK's — of the factory
 * the JDK's {@code java.nio.channels.DefaultThreadPool.threadFactory} property names, if it names one.
 * TCP only, IPv4 and IPv6 (dual-stack sockets, as the JDK's).
 */
public final class UringAsynchronousChannelProvider extends AsynchronousChannelProvider {
    private static final String THREAD_FACTORY = "java.nio.channels.DefaultThreadPool.threadFactory";

    /** The runtime given, or null for the shared one (started on first use, not when the JDK loads this class). */
    private final Uring uring;
    private UringAsynchronousChannelGroup defaultGroup;

    /** The provider the JDK instantiates by name: on {@link Uring#shared()}. */
    public UringAsynchronousChannelProvider() {
        this.uring = null;
    }

    /**
     * A provider whose groups accept and connect on {@code uring} (which must outlive them); their reads and writes
     * run on each group's own ring.
     */
    public UringAsynchronousChannelProvider(Uring uring) {
        this.uring = Objects.requireNonNull(uring, "uring");
    }

    private Uring runtime() throws IOException {
        return uring != null ? uring : Uring.shared();
    }

    @Override
    public AsynchronousChannelGroup openAsynchronousChannelGroup(int nThreads, ThreadFactory threadFactory)
            throws IOException {
        if (nThreads <= 0) {
            throw new IllegalArgumentException("'nThreads' must be > 0");
        }
        ThreadPoolExecutor pool = new ThreadPoolExecutor(nThreads, nThreads, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), Objects.requireNonNull(threadFactory, "'threadFactory' is null"));
        pool.prestartAllCoreThreads();
        return new UringAsynchronousChannelGroup(this, runtime(), pool,
                UringAsynchronousChannelGroup.pollers(nThreads));
    }

    /** {@code initialSize} is not used: the runtime's loops do the polling the JDK starts that many threads for. */
    @Override
    public AsynchronousChannelGroup openAsynchronousChannelGroup(ExecutorService executor, int initialSize)
            throws IOException {
        Objects.requireNonNull(executor, "'executor' is null");
        int threads = switch (executor) {
            case ThreadPoolExecutor pool -> pool.getMaximumPoolSize();
            case ForkJoinPool pool -> pool.getParallelism();
            default -> 0;               // taken as unbounded, as withThreadPool asks of an executor
        };
        return new UringAsynchronousChannelGroup(this, runtime(), executor,
                UringAsynchronousChannelGroup.pollers(threads));
    }

    @Override
    public AsynchronousServerSocketChannel openAsynchronousServerSocketChannel(AsynchronousChannelGroup group)
            throws IOException {
        return new UringAsynchronousServerSocketChannel(groupOf(group));
    }

    @Override
    public AsynchronousSocketChannel openAsynchronousSocketChannel(AsynchronousChannelGroup group) throws IOException {
        return new UringAsynchronousSocketChannel(groupOf(group));
    }

    /** The group a channel joins: {@code group}, which must be one of ours, or the default group for null. */
    private UringAsynchronousChannelGroup groupOf(AsynchronousChannelGroup group) throws IOException {
        if (group == null) {
            return defaultGroup();
        }
        if (!(group instanceof UringAsynchronousChannelGroup ours)) {
            throw new IllegalChannelGroupException();
        }
        return ours;
    }

    private synchronized UringAsynchronousChannelGroup defaultGroup() throws IOException {
        if (defaultGroup == null) {
            defaultGroup = new UringAsynchronousChannelGroup(this, runtime(), defaultExecutor(),
                    UringAsynchronousChannelGroup.pollers(0));
        }
        return defaultGroup;
    }

    /**
     * The default group's threads: a cached pool of daemon threads, as the JDK's default group — of the
     * {@link ThreadFactory} the JDK's property {@value #THREAD_FACTORY} names, if it names one.
     */
    private static ExecutorService defaultExecutor() {
        String factory = System.getProperty(THREAD_FACTORY);
        if (factory == null) {
            // Platform threads, as the JDK's default group has: one of them polls the group's ring, and a virtual
            // thread waiting in io_uring_enter would hold its carrier.
            return Executors.newCachedThreadPool(Thread.ofPlatform().daemon(true).name("uring4j-async-handler-", 0)
                    .factory());
        }
        try {
            Class<?> c = Class.forName(factory, true, ClassLoader.getSystemClassLoader());
            return Executors.newCachedThreadPool((ThreadFactory) c.getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new Error(THREAD_FACTORY + "=" + factory + " is not a ThreadFactory with a public no-arg"
                    + " constructor on the class path", e);     // as the JDK's default group fails
        }
    }
}
