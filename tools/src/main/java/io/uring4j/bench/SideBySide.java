package io.uring4j.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Two sides of one workload, each run in a JVM of its own, alternating round by round (who goes first alternates
 * too) so that whatever else the machine does hits both; medians and the median of the per-round ratios.
 * {@code --compare-jdk}: uring4j's file APIs against the JDK's. {@code --compare-portable}: the portable engine's
 * design lessons against the variants they replace.
 */
final class SideBySide {
    /** One side: its label, the JVM flags and the bench arguments that make it. */
    record Side(String label, List<String> jvm, List<String> args) {
        static Side api(BenchOptions.Api api) {
            return new Side(api.toString(), List.of(), List.of("--api", api.toString()));
        }

        static Side property(String label, String property) {
            return new Side(label, List.of("-D" + property), List.of());
        }
    }

    /**
     * A against B on {@code args} (plus the read file when {@code readsFile}); {@code target} is the least A/B
     * throughput ratio that meets the goal (0: none).
     */
    record Pair(String name, Side a, Side b, List<String> args, boolean readsFile, double target) {
    }

    private final BenchOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final int seconds;

    SideBySide(BenchOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.seconds = options.runtime != null && options.runtime > 0 ? options.runtime : 2;
    }

    /** The files issue's targets at {@code depth}: FileChannel on virtual threads, futures against AsynchronousFileChannel. */
    static List<Pair> jdkPairs(int depth) {
        String d = "-d" + depth;
        Side fc = Side.api(BenchOptions.Api.filechannel);
        Side jdkFc = Side.api(BenchOptions.Api.jdk_filechannel);
        Side future = Side.api(BenchOptions.Api.future);
        Side jdkAsync = Side.api(BenchOptions.Api.jdk_async);
        return List.of(
                new Pair("FileChannel O_DIRECT " + d, fc, jdkFc, List.of(d, "-O1"), true, 2.0),
                new Pair("FileChannel buffered " + d, fc, jdkFc, List.of(d, "-O0"), true, 1.5),
                new Pair("future vs async O_DIRECT " + d, future, jdkAsync, List.of(d, "-O1"), true, 2.0),
                new Pair("future vs async buffered " + d, future, jdkAsync, List.of(d, "-O0"), true, 2.0));
    }

    /**
     * The files issue's small writes: 8 B, 512 B and 4 KiB positional writes on a platform thread into a buffered
     * file's cached pages (each side fills a 16 MiB file of its own first), and each write followed by force — a
     * write-ahead log's commit. The JDK's channel makes them on the calling thread; so must ours, to keep up.
     */
    static List<Pair> writePairs() {
        Side fc = Side.api(BenchOptions.Api.filechannel);
        Side jdkFc = Side.api(BenchOptions.Api.jdk_filechannel);
        List<String> platform = List.of("--write", "--platform", "-d1", "-O0", "--size", "16M", "--write-data");
        List<Pair> pairs = new ArrayList<>();
        for (boolean force : new boolean[]{false, true}) {
            for (String size : List.of("8", "512", "4K")) {
                List<String> args = concat(platform, "-b" + size);
                if (force) {
                    args.add("--force");
                }
                pairs.add(new Pair((force ? "write+force " : "write ") + size + " platform", fc, jdkFc, args, false,
                        0.97));
            }
        }
        return pairs;
    }

    /**
     * The portable engine: linked NOPs through its io-wq with each successor run in place against re-queued, and
     * O_DIRECT reads (which the poller thread reaps from native AIO while enter waits: -D0, as on a DEFER_TASKRUN
     * ring the issuer would poll itself) with the single published waiter against a condition variable every
     * post signals.
     */
    static List<Pair> portablePairs() {
        Side inPlace = Side.property("in place", "uring4j.portable.links=inplace");
        Side requeue = Side.property("re-queued", "uring4j.portable.links=requeue");
        Side single = Side.property("single waiter", "uring4j.portable.wait=single");
        Side condvar = Side.property("condvar", "uring4j.portable.wait=condvar");
        List<String> portable = List.of("--engine", "portable");
        return List.of(
                new Pair("links L10 -A1", inPlace, requeue, concat(portable, "-L10", "-A1"), false, 0),
                new Pair("links L100 -A1", inPlace, requeue, concat(portable, "-L100", "-A1"), false, 0),
                new Pair("reads QD1 -O1 -D0", single, condvar, concat(portable, "-d1", "-s1", "-c1", "-O1", "-D0"), true, 0),
                new Pair("reads d32 -c32 -O1 -D0", single, condvar,
                        concat(portable, "-d32", "-s32", "-c32", "-O1", "-D0"), true, 0));
    }

    private static List<String> concat(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return all;
    }

    int run(String title, List<Pair> pairs) throws IOException, InterruptedException {
        out.printf("%s: %d rounds x %d s per side, alternating%n", title, options.rounds, seconds);
        List<String[]> rows = new ArrayList<>();
        List<String> json = new ArrayList<>();
        String file = options.files.isEmpty() ? null : options.files.getFirst().toString();
        boolean reads = pairs.stream().anyMatch(Pair::readsFile);
        try (TempFile temp = file == null && reads ? TempFile.create(options.size, options.writeData, err) : null) {
            String path = file != null ? file : temp == null ? null : temp.path().toString();
            for (Pair pair : pairs) {
                compare(pair, path, rows, json);
            }
        }
        String fmt = "%-30s %-14s %-14s %11s %11s %9s %9s %7s %13s  %s%n";
        out.printf(fmt, "comparison", "A", "B", "A IOPS", "B IOPS", "A ns/op", "B ns/op", "A/B", "A/B range", "target");
        for (String[] r : rows) {
            out.printf(fmt, (Object[]) r);
        }
        out.println("Medians over the rounds; A/B is the median of A's IOPS over B's in the same round.");
        if (options.json) {
            out.println("{\"side_by_side\":[" + String.join(",", json) + "]}");
        }
        out.flush();
        return 0;
    }

    private void compare(Pair pair, String path, List<String[]> rows, List<String> json)
            throws IOException, InterruptedException {
        int n = options.rounds;
        double[][] iops = new double[2][n];
        double[][] ns = new double[2][n];
        double[] ratio = new double[n];
        for (int round = 0; round < n; round++) {
            for (int k = 0; k < 2; k++) {
                int side = (k + round) % 2;
                Side s = side == 0 ? pair.a() : pair.b();
                List<String> command = new ArrayList<>(Child.javaCommand(Bench.class.getName(),
                        s.jvm().toArray(String[]::new)));
                command.addAll(pair.args());
                command.addAll(s.args());
                command.addAll(List.of("-r" + seconds, "--warmup", Double.toString(options.warmup), "--json"));
                if (pair.readsFile()) {
                    command.add(path);
                }
                var fields = Child.run(command, seconds + options.warmup + 60);
                iops[side][round] = Double.parseDouble(fields.get("iops_avg"));
                ns[side][round] = Double.parseDouble(fields.get("ns_per_op"));
                err.printf(Locale.ROOT, "%s, round %d/%d, %s: %.0f IOPS%n", pair.name(), round + 1, n, s.label(),
                        iops[side][round]);
            }
            ratio[round] = iops[0][round] / iops[1][round];
            err.printf(Locale.ROOT, "%s, round %d/%d: A/B %.3f%n", pair.name(), round + 1, n, ratio[round]);
        }
        double med = CompareC.median(ratio);
        String target = pair.target() == 0 ? ""
                : ">= " + pair.target() + " " + (med >= pair.target() ? "met" : "MISSED");
        rows.add(new String[]{pair.name(), pair.a().label(), pair.b().label(), f(CompareC.median(iops[0]), 0),
            f(CompareC.median(iops[1]), 0), f(CompareC.median(ns[0]), 1), f(CompareC.median(ns[1]), 1), f(med, 2),
            f(CompareC.min(ratio), 2) + ".." + f(CompareC.max(ratio), 2), target});
        json.add(String.format(Locale.ROOT, "{\"comparison\":\"%s\",\"a\":\"%s\",\"b\":\"%s\",\"a_iops\":%.0f,"
                        + "\"b_iops\":%.0f,\"a_ns_per_op\":%.1f,\"b_ns_per_op\":%.1f,\"ratio\":%.4f,\"target\":%.2f,"
                        + "\"rounds\":%d,\"ratios\":%s}", pair.name(), pair.a().label(), pair.b().label(),
                CompareC.median(iops[0]), CompareC.median(iops[1]), CompareC.median(ns[0]), CompareC.median(ns[1]), med,
                pair.target(), n, jsonArray(ratio)));
    }

    /** The per-round ratios, in round order: {@code [0.9812,1.0034]}. */
    static String jsonArray(double[] values) {
        StringBuilder sb = new StringBuilder("[");
        for (double v : values) {
            sb.append(sb.length() > 1 ? "," : "").append(String.format(Locale.ROOT, "%.4f", v));
        }
        return sb.append(']').toString();
    }

    private static String f(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
