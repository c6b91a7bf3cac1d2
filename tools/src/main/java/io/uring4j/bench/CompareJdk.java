package io.uring4j.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code --compare-jdk}: uring4j's file APIs against the JDK's on 4 KiB random reads of one file, each program
 * in a process of its own, alternating ours and the JDK's round by round (who goes first alternates too) so
 * that whatever else the machine does hits both. Reports median IOPS and the median of the per-round ratios.
 */
final class CompareJdk {
    /** One comparison: our {@code --api} against the JDK's on the same options, and the ratio it should reach. */
    record Pair(String name, BenchOptions.Api ours, BenchOptions.Api jdk, List<String> args, double target) {
    }

    private final BenchOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final int seconds;

    CompareJdk(BenchOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.seconds = options.runtime != null && options.runtime > 0 ? options.runtime : 2;
    }

    /** The targets at depth {@code depth}: FileChannel on virtual threads, and futures against the JDK's async channel. */
    static List<Pair> pairs(int depth) {
        String d = "-d" + depth;
        return List.of(
                new Pair("FileChannel O_DIRECT " + d, BenchOptions.Api.filechannel, BenchOptions.Api.jdk_filechannel,
                        List.of(d, "-O1"), 2.0),
                new Pair("FileChannel buffered " + d, BenchOptions.Api.filechannel, BenchOptions.Api.jdk_filechannel,
                        List.of(d, "-O0"), 1.5),
                new Pair("future vs async O_DIRECT " + d, BenchOptions.Api.future, BenchOptions.Api.jdk_async,
                        List.of(d, "-O1"), 2.0),
                new Pair("future vs async buffered " + d, BenchOptions.Api.future, BenchOptions.Api.jdk_async,
                        List.of(d, "-O0"), 2.0));
    }

    int run(List<Pair> pairs) throws IOException, InterruptedException {
        out.printf("uring4j vs JDK: %d rounds x %d s per program, alternating, 4 KiB random reads%n",
                options.rounds, seconds);
        List<String[]> rows = new ArrayList<>();
        List<String> json = new ArrayList<>();
        String file = options.files.isEmpty() ? null : options.files.getFirst().toString();
        try (TempFile temp = file == null ? TempFile.create(options.size, options.writeData, err) : null) {
            String path = file != null ? file : temp.path().toString();
            for (Pair pair : pairs) {
                compare(pair, path, rows, json);
            }
        }
        String fmt = "%-28s %12s %12s %9s %13s  %s%n";
        out.printf(fmt, "comparison", "uring4j IOPS", "JDK IOPS", "ratio", "ratio range", "target");
        for (String[] r : rows) {
            out.printf(fmt, (Object[]) r);
        }
        out.println("IOPS are medians over the rounds; the ratio is the median of uring4j's over the JDK's in the same round.");
        if (options.json) {
            out.println("{\"compare_jdk\":[" + String.join(",", json) + "]}");
        }
        out.flush();
        return 0;
    }

    private void compare(Pair pair, String path, List<String[]> rows, List<String> json)
            throws IOException, InterruptedException {
        double[] ours = new double[options.rounds];
        double[] jdk = new double[options.rounds];
        double[] ratio = new double[options.rounds];
        for (int round = 0; round < options.rounds; round++) {
            for (int k = 0; k < 2; k++) {
                boolean isOurs = (k == 0) == (round % 2 == 0);
                List<String> command = new ArrayList<>(Child.javaCommand());
                command.addAll(pair.args());
                command.addAll(List.of("-r" + seconds, "--warmup", Double.toString(options.warmup), "--json",
                        "--api", (isOurs ? pair.ours() : pair.jdk()).toString(), path));
                double iops = Double.parseDouble(Child.run(command, seconds + options.warmup + 60).get("iops_avg"));
                (isOurs ? ours : jdk)[round] = iops;
                err.printf(Locale.ROOT, "%s, round %d/%d, %s: %.0f IOPS%n", pair.name(), round + 1, options.rounds,
                        isOurs ? pair.ours() : pair.jdk(), iops);
            }
            ratio[round] = ours[round] / jdk[round];
        }
        double med = CompareC.median(ratio);
        rows.add(new String[]{pair.name(), String.format(Locale.ROOT, "%.0f", CompareC.median(ours)),
            String.format(Locale.ROOT, "%.0f", CompareC.median(jdk)), String.format(Locale.ROOT, "%.2f", med),
            String.format(Locale.ROOT, "%.2f..%.2f", CompareC.min(ratio), CompareC.max(ratio)),
            String.format(Locale.ROOT, ">= %.1f %s", pair.target(), med >= pair.target() ? "met" : "MISSED")});
        json.add(String.format(Locale.ROOT, "{\"comparison\":\"%s\",\"ours\":\"%s\",\"jdk\":\"%s\",\"ours_iops\":%.0f,"
                + "\"jdk_iops\":%.0f,\"ratio\":%.4f,\"target\":%.2f,\"rounds\":%d}", pair.name(), pair.ours(), pair.jdk(),
                CompareC.median(ours), CompareC.median(jdk), med, pair.target(), options.rounds));
    }
}
