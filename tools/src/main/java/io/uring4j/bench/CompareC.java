package io.uring4j.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code --compare-c}: the same workloads in {@code bench/c/uring4j_ref.c} and in Java, as separate
 * processes, alternating C and Java round by round (who goes first alternates too) so that whatever else
 * the machine does hits both. Each program's JSON is read only after it has exited: a parser running beside
 * the measured program would take CPU from it. Reports the medians and the median of the per-round Java/C
 * ratios.
 */
final class CompareC {
    private final BenchOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final int seconds;

    CompareC(BenchOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.seconds = options.runtime != null && options.runtime > 0 ? options.runtime : 2;
    }

    /** One program's outcome in one round. */
    record Sample(double nsPerOp, double iops, double cpuNsPerOp, double allocPerOp) {
    }

    /** {@code workloads}: the five standard ones, or the one the options describe. */
    int run(List<Workload> workloads) throws IOException, InterruptedException {
        Path source = findSource();
        if (source == null) {
            err.println("uring4j bench: bench/c/uring4j_ref.c not found (run from a uring4j checkout): "
                    + "skipping the comparison with C");
            return 0;
        }
        String compiler = findCompiler();
        if (compiler == null) {
            err.println("uring4j bench: no C compiler (gcc, cc or clang) on PATH: skipping the comparison with C");
            return 0;
        }
        Path binary = build(compiler, source);
        out.printf("Java vs C: %d rounds x %d s per program and workload, alternating C and Java%n",
                options.rounds, seconds);
        List<String[]> rows = new ArrayList<>();
        List<String> json = new ArrayList<>();
        TempFile file = null;
        try {
            for (Workload w : workloads) {
                List<String> args = new ArrayList<>(w.args());
                if (w.readsFile() && options.files.isEmpty()) {
                    if (file == null) {
                        file = TempFile.create(options.size, options.writeData, err);
                    }
                    args.add(file.path().toString());
                }
                compare(w, args, binary, rows, json);
            }
        } finally {
            if (file != null) {
                file.close();
            }
        }
        printTable(rows);
        if (options.json) {
            out.println("{\"compare\":[" + String.join(",", json) + "]}");
        }
        return 0;
    }

    private void compare(Workload w, List<String> args, Path binary, List<String[]> rows, List<String> json)
            throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of(binary.toString()));
        c.addAll(args);
        c.addAll(List.of("-r" + seconds, "--json"));
        List<String> java = new ArrayList<>(Child.javaCommand());
        java.addAll(args);
        java.addAll(List.of("-r" + seconds, "--json", "--api", options.api.name(),
                "--warmup", Double.toString(options.warmup)));
        Sample[] cs = new Sample[options.rounds];
        Sample[] js = new Sample[options.rounds];
        for (int round = 0; round < options.rounds; round++) {
            boolean cFirst = round % 2 == 0;
            for (int k = 0; k < 2; k++) {
                boolean isC = (k == 0) == cFirst;
                Sample s = runOnce(isC ? c : java);
                (isC ? cs : js)[round] = s;
                Suite.progress(err, String.format(Locale.ROOT, "%s, round %d/%d, %s: %.1f ns/op", w.name(),
                        round + 1, options.rounds, isC ? "C" : "Java", s.nsPerOp()));
            }
        }
        double[] cNs = Arrays.stream(cs).mapToDouble(Sample::nsPerOp).toArray();
        double[] jNs = Arrays.stream(js).mapToDouble(Sample::nsPerOp).toArray();
        double[] nsRatio = new double[options.rounds];
        double[] speed = new double[options.rounds];
        double[] cpuRatio = new double[options.rounds];
        for (int i = 0; i < options.rounds; i++) {
            nsRatio[i] = jNs[i] / cNs[i];
            speed[i] = cNs[i] / jNs[i];
            cpuRatio[i] = js[i].cpuNsPerOp() / cs[i].cpuNsPerOp();
        }
        double alloc = Arrays.stream(js).mapToDouble(Sample::allocPerOp).max().orElse(0);
        double medSpeed = median(speed);
        String verdict = w.minSpeed() == 0 ? "" : medSpeed >= w.minSpeed() ? "met" : "MISSED";
        rows.add(new String[]{w.name(), f1(median(cNs)), f1(median(jNs)), f3(medSpeed), f3(median(nsRatio)),
            f3(min(speed)) + ".." + f3(max(speed)), f3(median(cpuRatio)), String.format(Locale.ROOT, "%.2f", alloc),
            w.target().isEmpty() ? "" : w.target() + " " + verdict});
        json.add(String.format(Locale.ROOT, "{\"workload\":\"%s\",\"c_ns_per_op\":%.3f,\"java_ns_per_op\":%.3f,"
                        + "\"java_c_iops\":%.4f,\"java_c_ns\":%.4f,\"java_c_cpu\":%.4f,\"java_alloc_bytes_per_op\":%.4f,"
                        + "\"rounds\":%d}", w.name(), median(cNs), median(jNs), medSpeed, median(nsRatio),
                median(cpuRatio), alloc, options.rounds));
    }

    private void printTable(List<String[]> rows) {
        Suite.progressDone(err);
        String fmt = "%-25s %8s %10s %11s %9s %12s %10s %5s  %s%n";
        out.printf(fmt, "workload", "C ns/op", "Java ns/op", "Java/C IOPS", "Java/C ns", "IOPS range", "Java/C cpu",
                "B/op", "target");
        for (String[] r : rows) {
            out.printf(fmt, (Object[]) r);
        }
        out.println("ns/op and the ratios are medians over the rounds; a ratio is Java's over C's in the same round.");
        out.println("IOPS range: the lowest and highest per-round ratio. cpu: the submitter thread's CPU time per op");
        out.println("(user + kernel), which leaves out time spent preempted. B/op: Java's largest, over the rounds.");
        out.flush();
    }

    /** Runs one program to completion and reads its JSON summary. */
    private Sample runOnce(List<String> command) throws IOException, InterruptedException {
        Map<String, String> fields = Child.run(command, seconds + options.warmup + 60);
        double alloc = fields.containsKey("alloc_bytes_per_op")
                ? Double.parseDouble(fields.get("alloc_bytes_per_op")) : 0;
        return new Sample(Double.parseDouble(fields.get("ns_per_op")), Double.parseDouble(fields.get("iops_avg")),
                Double.parseDouble(fields.getOrDefault("cpu_ns_per_op", "0")), alloc);
    }

    /** bench/c/uring4j_ref.c, looked for above this class's location and then above the working directory. */
    static Path findSource() {
        List<Path> starts = new ArrayList<>();
        try {
            starts.add(Path.of(Bench.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        } catch (Exception e) {
            // no code source (unusual class loader): the working directory is still tried
        }
        starts.add(Path.of("").toAbsolutePath());
        for (Path start : starts) {
            for (Path p = start; p != null; p = p.getParent()) {
                Path source = p.resolve("bench/c/uring4j_ref.c");
                if (Files.isRegularFile(source)) {
                    return source;
                }
            }
        }
        return null;
    }

    static String findCompiler() {
        for (String name : List.of("gcc", "cc", "clang")) {
            String compiler = Bench.onPath(name);
            if (compiler != null) {
                return compiler;
            }
        }
        return null;
    }

    /** Compiles into tools/target/bench-c (or a temporary directory), unless the binary is up to date. */
    Path build(String compiler, Path source) throws IOException, InterruptedException {
        Path target = source.getParent().getParent().getParent().resolve("tools/target");
        Path dir = Files.isDirectory(target) && Files.isWritable(target) ? target.resolve("bench-c")
                : Files.createTempDirectory("uring4j-bench-c");
        Files.createDirectories(dir);
        Path binary = dir.resolve("uring4j_ref");
        if (Files.isExecutable(binary)
                && Files.getLastModifiedTime(binary).compareTo(Files.getLastModifiedTime(source)) > 0) {
            out.println("C reference: " + binary + " (up to date)");
            return binary;
        }
        List<String> cmd = List.of(compiler, "-O2", "-std=c11", "-Wall", "-Wextra", "-o", binary.toString(),
                source.toString());
        out.println("C reference: building with " + String.join(" ", cmd));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new BenchException("building the C reference failed:\n" + log);
        }
        return binary;
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    static double min(double[] v) {
        return Arrays.stream(v).min().orElse(0);
    }

    static double max(double[] v) {
        return Arrays.stream(v).max().orElse(0);
    }

    private static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
