package io.uring4j.bench;

import org.HdrHistogram.Histogram;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Runs one workload: {@code -n} driver threads, each warming up and then measuring on its own ring, while
 * this thread prints (or hands to {@code tick}) one line per second. The driver threads never print and
 * never allocate while measured: everything else happens here.
 */
final class Runner {
    private static final long SECOND = 1_000_000_000L;
    private static final int WARMUP_RUNS = 4;
    private static final long WARMUP_OPS = 250_000;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final BenchOptions options;
    private final List<ReadTarget> targets;
    private final Reporter reporter;

    Runner(BenchOptions options, List<ReadTarget> targets, Reporter reporter) {
        this.options = options;
        this.targets = targets;
        this.reporter = reporter;
    }

    /** Runs for {@code seconds} (0: until Ctrl-C) after the warm-up; {@code onSecond} sees elapsed seconds. */
    Result run(int seconds, LongConsumer onSecond) throws InterruptedException {
        int n = options.threads;
        Counters[] counters = new Counters[n];
        Histogram[] histograms = new Histogram[n];
        String[] setup = new String[2];
        Throwable[] failure = new Throwable[1];
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        long warmup = (long) (options.warmup * SECOND);
        long duration = seconds * SECOND;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Counters c = counters[i] = new Counters();
            List<ReadTarget> mine = targetsOf(i, n);
            int index = i;
            threads.add(Thread.ofPlatform().name("uring4j-bench-" + i).start(() -> {
                boolean counted = false;
                try (Driver driver = Driver.create(options, mine)) {
                    if (index == 0) {
                        setup[0] = driver.describe();
                        setup[1] = driver.engine();
                    }
                    warmUp(driver, warmup);
                    counted = true;
                    ready.countDown();
                    go.await();
                    if (failure[0] == null) {
                        long before = driver.allocatedBytes();
                        long cpu = Counters.processCpuNanos();
                        driver.run(duration, c);
                        boolean counts = index == 0 || !driver.countsEveryThread();
                        c.allocatedBytes = counts ? driver.allocatedBytes() - before : 0;
                        if (driver.countsEveryThread()) {       // its work is on other threads: the process's CPU
                            c.cpuNanos = counts ? Counters.processCpuNanos() - cpu : 0;
                        }
                        histograms[index] = driver.latencies();
                    }
                } catch (Throwable t) {
                    synchronized (failure) {
                        if (failure[0] == null) {
                            failure[0] = t;
                        }
                    }
                    for (Counters other : counters) {
                        if (other != null) {
                            other.requestStop();
                        }
                    }
                } finally {
                    if (!counted) {
                        ready.countDown();
                    }
                }
            }));
        }
        ready.await();
        if (setup[0] != null) {
            reporter.header(setup[0]);
        }
        Thread stopper = duration == 0 ? stopOnCtrlC(counters, threads) : null;
        go.countDown();
        long start = System.nanoTime();
        reporter.startSeconds();
        for (long k = 1; seconds == 0 || k < seconds; k++) {
            if (waitUntil(start + k * SECOND, threads)) {
                break;
            }
            reporter.second(sum(counters, Counters::calls), sum(counters, Counters::done),
                    sum(counters, Counters::reaps), System.nanoTime());
            onSecond.accept(k);
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure[0] != null) {
            throw failure[0] instanceof RuntimeException r ? r : new BenchException(failure[0].getMessage(), failure[0]);
        }
        if (seconds > 0) {
            // The last second ends at the deadline: its line uses the frozen totals.
            long end = 0;
            for (Counters c : counters) {
                end = Math.max(end, c.stopNanos);
            }
            reporter.second(sum(counters, c -> c.totalCalls), sum(counters, c -> c.totalDone),
                    sum(counters, c -> c.totalReaps), end);
            onSecond.accept(seconds);
        }
        Result result = Result.of(options, setup[1], counters, merge(histograms), reporter.maxIops());
        if (stopper != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running and waits for the summary, which the caller prints next
            }
        }
        return result;
    }

    /** With no runtime, Ctrl-C stops the drivers and lets the summary print before the JVM exits. */
    private Thread stopOnCtrlC(Counters[] counters, List<Thread> threads) {
        Thread hook = new Thread(() -> {
            for (Counters c : counters) {
                c.requestStop();
            }
            try {
                for (Thread t : threads) {
                    t.join(5000);
                }
                reporter.awaitSummary(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    /**
     * The JIT warm-up, in short runs: the first run's end deoptimizes the loop (its exit branch had never been
     * taken), so the JIT recompiles with the exit profiled before the measured run starts instead of during it.
     * It goes on, up to ten times {@code nanos}, until {@value #WARMUP_OPS} ops have run and a whole run saw no
     * JIT compilation (slow io-wq chains, or compiler threads starved on a busy machine): before that, part of
     * the loop may still run interpreted or C1-compiled, which is slower and allocates (the JDK slices the
     * errno capture buffer on every downcall; only C2 removes that).
     */
    private static void warmUp(Driver driver, long nanos) throws io.uring4j.sys.ErrnoException {
        long ops = 0;
        long limit = System.nanoTime() + 10 * nanos;
        boolean compiling = true;
        for (int w = 0; nanos > 0 && (w < WARMUP_RUNS || (ops < WARMUP_OPS || compiling) && System.nanoTime() < limit);
             w++) {
            long jitBefore = jitMillis();
            Counters c = new Counters();
            driver.run(nanos / WARMUP_RUNS, c);
            ops += c.totalReaps;
            // On a busy machine the compiler threads lag: go on until a whole run saw no compilation.
            compiling = jitMillis() != jitBefore;
        }
    }

    /** Total JIT compilation time so far, or -1 where the JVM does not track it (never "still compiling"). */
    static long jitMillis() {
        var jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    /** Thread {@code i} of {@code n} reads targets i, i+n, ... (the first one if there are fewer). */
    private List<ReadTarget> targetsOf(int i, int n) {
        if (targets.isEmpty()) {
            return targets;
        }
        List<ReadTarget> mine = new ArrayList<>();
        for (int j = i; j < targets.size(); j += n) {
            mine.add(targets.get(j));
        }
        return mine.isEmpty() ? List.of(targets.get(i % targets.size())) : mine;
    }

    /**
     * Waits until {@code when}; true if every driver thread ended first. Joins a live driver with a timeout
     * instead of polling, so this thread wakes once per second and not in between.
     */
    private static boolean waitUntil(long when, List<Thread> threads) throws InterruptedException {
        while (true) {
            Thread alive = null;
            for (Thread t : threads) {
                if (t.isAlive()) {
                    alive = t;
                    break;
                }
            }
            if (alive == null) {
                return true;
            }
            long left = when - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            alive.join(java.time.Duration.ofNanos(left));
        }
    }

    private static long sum(Counters[] counters, java.util.function.ToLongFunction<Counters> f) {
        long s = 0;
        for (Counters c : counters) {
            s += f.applyAsLong(c);
        }
        return s;
    }

    private static Histogram merge(Histogram[] histograms) {
        Histogram all = null;
        for (Histogram h : histograms) {
            if (h != null) {
                if (all == null) {
                    all = h.copy();
                } else {
                    all.add(h);
                }
            }
        }
        return all;
    }
}
