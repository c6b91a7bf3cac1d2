package io.uring4j.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a driver thread tells the reporter: running totals published every few dozen loop iterations
 * (release stores, a plain move on x86, so publishing costs the hot loop nothing), the totals frozen at the
 * deadline, and a stop request going the other way (Ctrl-C when the runtime is unlimited).
 *
 * <p>The names are t/io_uring's: {@code calls} are io_uring_enter calls, {@code done} SQEs the kernel
 * consumed, {@code reaps} CQEs reaped (one per op).
 */
final class Counters {
    private static final VarHandle CALLS;
    private static final VarHandle DONE;
    private static final VarHandle REAPS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            CALLS = lookup.findVarHandle(Counters.class, "calls", long.class);
            DONE = lookup.findVarHandle(Counters.class, "done", long.class);
            REAPS = lookup.findVarHandle(Counters.class, "reaps", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through the VarHandles
    private long calls;
    @SuppressWarnings("unused")
    private long done;
    @SuppressWarnings("unused")
    private long reaps;
    private volatile boolean stopRequested;

    // Written by the driver thread before it ends; read after Thread.join.
    long startNanos;
    long stopNanos;
    long totalCalls;
    long totalDone;
    long totalReaps;
    /** CPU time (user + system) the driver thread used from the start to the deadline. */
    long cpuNanos;
    /** Heap bytes the driver thread allocated during the measured run. */
    long allocatedBytes;

    static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    /** The calling thread's CPU time: clock_gettime(CLOCK_THREAD_CPUTIME_ID), no allocation. */
    static long threadCpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    /** The CPU time of the whole process: every thread's, the JIT's and the GC's too. */
    static long processCpuNanos() {
        return OS.getProcessCpuTime();
    }

    void start(long nanos) {
        startNanos = nanos;
        cpuNanos = threadCpuNanos();
        publish(0, 0, 0);
    }

    void publish(long calls, long done, long reaps) {
        CALLS.setRelease(this, calls);
        DONE.setRelease(this, done);
        REAPS.setRelease(this, reaps);
    }

    /** The totals at the deadline; the in-flight work drained after it is not counted. */
    void finish(long nanos, long calls, long done, long reaps) {
        publish(calls, done, reaps);
        stopNanos = nanos;
        cpuNanos = threadCpuNanos() - cpuNanos;
        totalCalls = calls;
        totalDone = done;
        totalReaps = reaps;
    }

    long calls() {
        return (long) CALLS.getAcquire(this);
    }

    long done() {
        return (long) DONE.getAcquire(this);
    }

    long reaps() {
        return (long) REAPS.getAcquire(this);
    }

    void requestStop() {
        stopRequested = true;
    }

    boolean stopRequested() {
        return stopRequested;
    }
}
