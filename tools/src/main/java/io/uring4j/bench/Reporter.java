package io.uring4j.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What a run prints, t/io_uring style: the setup, one {@code IOPS=…, BW=…, IOS/call=submitted/reaped} line
 * per second, then {@code Maximum IOPS}, ns/op, B/op, latency percentiles with {@code -t1} and, with
 * {@code --json}, one JSON object as the last line. A quiet reporter (the suite's) prints nothing but still
 * tracks the per-second maximum.
 */
final class Reporter {
    private final PrintStream out;
    private final BenchOptions options;
    private final boolean quiet;
    private final CountDownLatch summarized = new CountDownLatch(1);

    private long lastNanos;
    private long lastCalls;
    private long lastDone;
    private long lastReaps;
    private long maxIops;
    private double lastIops;

    Reporter(PrintStream out, BenchOptions options, boolean quiet) {
        this.out = out;
        this.options = options;
        this.quiet = quiet;
    }

    void header(String setup) {
        if (quiet) {
            return;
        }
        BenchOptions o = options;
        String files = o.files.isEmpty() ? "-" : String.join(",", o.files.stream().map(Object::toString).toList());
        out.printf(Locale.ROOT, "mode=%s, api=%s, file=%s, QD=%d, submit_batch=%d, complete_batch=%d, bs=%d, "
                        + "polled=%d, fixedbufs=%d, register_files=%d, buffered=%d, random=%d, async=%d, link=%d, "
                        + "threads=%d%n", o.mode(), o.api, files, o.depth, o.submitBatch, o.completeBatch, o.blockSize,
                o.polled, o.fixedBuffers, o.registeredFiles, 1 - o.direct, o.random, o.async, o.link, o.threads);
        out.println(setup);
        out.flush();
    }

    void startSeconds() {
        lastNanos = System.nanoTime();
        lastCalls = lastDone = lastReaps = 0;
        maxIops = 0;
    }

    /** One per-second line from running totals sampled at {@code nanos}. */
    void second(long calls, long done, long reaps, long nanos) {
        double iops = (reaps - lastReaps) * 1e9 / Math.max(1, nanos - lastNanos);
        long dc = calls - lastCalls;
        lastIops = iops;
        maxIops = Math.max(maxIops, (long) iops);
        if (!quiet) {
            StringBuilder line = new StringBuilder("IOPS=").append(iops(iops)).append(", ");
            if (!options.isNop()) {
                line.append("BW=").append(bandwidth(iops * options.blockSize)).append(", ");
            }
            line.append("IOS/call=").append(dc == 0 ? "-1/-1" : (done - lastDone) / dc + "/" + (reaps - lastReaps) / dc);
            out.println(line);
            out.flush();
        }
        lastNanos = nanos;
        lastCalls = calls;
        lastDone = done;
        lastReaps = reaps;
    }

    long maxIops() {
        return maxIops;
    }

    double lastIops() {
        return lastIops;
    }

    void summary(Result r) {
        try {
            if (!quiet) {
                out.println("Maximum IOPS=" + r.iopsMax());
                out.printf(Locale.ROOT, "ns/op=%.2f, cpu ns/op=%.2f, syscalls/op=%.4f, B/op=%.4f (heap bytes "
                        + "allocated per op)%n", r.nsPerOp(), r.cpuNsPerOp(), r.syscallsPerOp(), r.allocBytesPerOp());
                if (r.latencies() != null) {
                    out.printf(Locale.ROOT, "latency: p50=%d ns, p90=%d ns, p99=%d ns, p99.9=%d ns, p99.99=%d ns, "
                                    + "max=%d ns (%d samples)%n", r.percentile(50), r.percentile(90), r.percentile(99),
                            r.percentile(99.9), r.percentile(99.99), r.latencies().getMaxValue(),
                            r.latencies().getTotalCount());
                }
            }
            if (options.json) {
                out.println(r.toJson());
            }
            out.flush();
        } finally {
            summarized.countDown();
        }
    }

    /** Ctrl-C: the shutdown hook waits here for the summary. */
    void awaitSummary(long timeout, TimeUnit unit) throws InterruptedException {
        summarized.await(timeout, unit);
    }

    /** t/io_uring's format: {@code %.2fM} above a million, {@code %.2fK} above 100,000, else an integer. */
    static String iops(double iops) {
        if (iops > 1_000_000) {
            return String.format(Locale.ROOT, "%.2fM", iops / 1_000_000);
        }
        if (iops > 100_000) {
            return String.format(Locale.ROOT, "%.2fK", iops / 1000);
        }
        return Long.toString((long) iops);
    }

    /** MiB/s, or GiB/s above 2000 MiB/s, as t/io_uring prints it. */
    static String bandwidth(double bytesPerSecond) {
        long mib = (long) (bytesPerSecond / (1 << 20));
        return mib > 2000 ? String.format(Locale.ROOT, "%.2fGiB/s", mib / 1024.0) : mib + "MiB/s";
    }
}
