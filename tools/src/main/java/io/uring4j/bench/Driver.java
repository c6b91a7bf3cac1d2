package io.uring4j.bench;

import io.uring4j.sys.ErrnoException;
import org.HdrHistogram.Histogram;

/**
 * One submitter thread's workload for one {@code --api}: created, run and closed on that thread (a
 * SINGLE_ISSUER ring belongs to the thread that made it). {@link Runner} runs it twice — an unmeasured warm-up
 * for the JIT, then the measurement — and reads the progress and totals from the {@link Counters}.
 */
interface Driver extends AutoCloseable {
    /** What was set up, t/io_uring style: {@code Engine=io_uring, sq_ring=128, cq_ring=128, ...}. */
    String describe();

    /**
     * Runs until {@code durationNanos} have passed (0: until {@link Counters#requestStop()}), publishing
     * progress to {@code counters} as it goes and its totals at the deadline; in-flight work is drained
     * before it returns. Latencies, when tracked, start afresh with each run.
     */
    void run(long durationNanos, Counters counters) throws ErrnoException;

    /**
     * A monotonic count of heap bytes allocated by the threads doing this driver's work: by default the
     * calling (driver) thread; drivers whose work runs elsewhere count every thread.
     */
    default long allocatedBytes() {
        return Counters.THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Whether {@link #allocatedBytes} counts every thread: drivers running side by side then each count what all
     * allocate, so one count stands for them all.
     */
    default boolean countsEveryThread() {
        return false;
    }

    /** The engine this driver's rings got ({@code kernel} or {@code portable}; {@code jdk} when it has none). */
    String engine();

    /** Completion latencies of the last run in nanoseconds, or null without {@code -t1}. */
    Histogram latencies();

    @Override
    void close();

    /** The driver for {@code options.api}, on the calling thread. */
    static Driver create(BenchOptions options, java.util.List<ReadTarget> targets) throws ErrnoException {
        return switch (options.api) {
            case raw -> new RawDriver(options, targets);
            case loop, future, vthread -> new RuntimeDriver(options, targets);
            case filechannel, jdk_filechannel, async_filechannel, jdk_async -> new ChannelDriver(options, targets);
        };
    }
}
