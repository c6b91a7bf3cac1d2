package io.uring4j.bench;

import org.HdrHistogram.Histogram;

import java.util.Locale;

/**
 * One run's outcome, in the C reference's terms: {@code ops} are completions up to the deadline, {@code
 * seconds} the measured time, {@code ns_per_op} = seconds × threads / ops (per submitter thread, so it
 * equals the C's elapsed/ops for {@code -n1}), {@code syscalls} the io_uring_enter calls, {@code engine} the
 * kernel side the rings got ({@code kernel}, {@code portable}; {@code jdk} for the JDK's channels).
 */
record Result(BenchOptions options, String engine, long ops, double seconds, long iopsMax, long syscalls,
              long submitted, long cpuNanos, long allocatedBytes, Histogram latencies) {

    static Result of(BenchOptions options, String engine, Counters[] counters, Histogram latencies, long iopsMax) {
        long ops = 0;
        long calls = 0;
        long done = 0;
        long allocated = 0;
        long cpu = 0;
        long elapsed = 0;
        for (Counters c : counters) {
            ops += c.totalReaps;
            calls += c.totalCalls;
            done += c.totalDone;
            allocated += c.allocatedBytes;
            cpu += c.cpuNanos;
            elapsed = Math.max(elapsed, c.stopNanos - c.startNanos);
        }
        double seconds = elapsed / 1e9;
        long avg = seconds > 0 ? (long) (ops / seconds) : 0;
        return new Result(options, engine, ops, seconds, iopsMax > 0 ? iopsMax : avg, calls, done, cpu, allocated, latencies);
    }

    double iopsAvg() {
        return ops == 0 ? 0 : ops / seconds;
    }

    double nsPerOp() {
        return ops == 0 ? 0 : seconds * 1e9 * options.threads / ops;
    }

    /**
     * CPU time of the submitter threads per op (user + system, so the kernel's share of the work too). Unlike
     * ns/op it leaves out time the threads spent preempted, which makes it steadier on a busy machine.
     */
    double cpuNsPerOp() {
        return ops == 0 ? 0 : (double) cpuNanos / ops;
    }

    double iosPerCallSubmit() {
        return syscalls == 0 ? 0 : (double) submitted / syscalls;
    }

    double iosPerCallReap() {
        return syscalls == 0 ? 0 : (double) ops / syscalls;
    }

    double syscallsPerOp() {
        return ops == 0 ? 0 : (double) syscalls / ops;
    }

    /** Heap bytes the driver threads allocated while measured, per op: 0 for {@code --api raw}. */
    double allocBytesPerOp() {
        return ops == 0 ? 0 : (double) allocatedBytes / ops;
    }

    long percentile(double p) {
        return latencies == null ? 0 : latencies.getValueAtPercentile(p);
    }

    /** The C reference's keys, in its order, then Java's own. */
    String toJson() {
        BenchOptions o = options;
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "{\"impl\":\"java\",\"api\":\"%s\",\"mode\":\"%s\",\"depth\":%d,\"submit_batch\":%d,"
                        + "\"complete_batch\":%d,\"link\":%d,\"async\":%d,\"ops\":%d,\"seconds\":%.6f,"
                        + "\"iops_max\":%d,\"iops_avg\":%.1f,\"ns_per_op\":%.3f,\"ios_per_call_submit\":%.3f,"
                        + "\"ios_per_call_reap\":%.3f,\"syscalls\":%d,\"cpu_ns_per_op\":%.3f,\"threads\":%d,"
                        + "\"alloc_bytes_per_op\":%.4f,\"engine\":\"%s\"",
                o.api, o.mode(), o.depth, o.submitBatch, o.completeBatch, o.link, o.async, ops, seconds, iopsMax,
                iopsAvg(), nsPerOp(), iosPerCallSubmit(), iosPerCallReap(), syscalls, cpuNsPerOp(), o.threads,
                allocBytesPerOp(), engine));
        if (latencies != null) {
            b.append(String.format(Locale.ROOT, ",\"p50_ns\":%d,\"p99_ns\":%d,\"p999_ns\":%d", percentile(50),
                    percentile(99), percentile(99.9)));
        }
        return b.append('}').toString();
    }
}
