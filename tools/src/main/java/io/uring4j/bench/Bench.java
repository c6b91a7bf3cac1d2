package io.uring4j.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code ./uring4j bench}: fio's t/io_uring for Java. No arguments run the suite; options run one workload;
 * {@code --compare-c} runs the C reference beside Java; {@code --jmh} runs the microbenchmarks; {@code http}
 * compares the HTTP servers under wrk ({@link HttpBench}).
 * Exit status: 0 ok, 1 the benchmark failed, 2 bad options.
 */
@Command(name = "uring4j bench", sortOptions = false, usageHelpWidth = 110,
        description = {"io_uring peak-IOPS benchmark, t/io_uring's options; no arguments: the ~20 s suite.", ""},
        footer = {"", "Examples:",
            "  ./uring4j bench                              the suite: nops, QD1, linked nops, reads; one table",
            "  ./uring4j bench -N1 -d128 -s32 -c32 -r5     nops at depth 128, batches of 32, 5 seconds",
            "  ./uring4j bench -L100 -A1 -r5               chains of 100 linked nops through io-wq",
            "  ./uring4j bench -r5 /dev/nvme0n1            4 KiB random O_DIRECT reads of a device",
            "  ./uring4j bench --compare-c                 Java vs the C reference on the five suite workloads",
            "  ./uring4j bench --compare-c -N1 -d1 -s1 -c1 Java vs C on one workload",
            "  ./uring4j bench --compare-jdk               uring4j's FileChannel and futures vs the JDK's, d64",
            "  ./uring4j bench --compare-jdk --write       small writes and write+force, platform thread, vs the JDK's",
            "  ./uring4j bench --compare-jdk --matrix      every cell and bulk row vs the JDK's, and reads vs C (~15 min)",
            "  ./uring4j bench --compare-jdk --matrix --cells 'VT x64' -r2 --rounds 5   some cells, longer",
            "  ./uring4j bench --compare-portable          the portable engine: links in place vs re-queued, waiters",
            "  ./uring4j bench --app h2 --rounds 3         the H2 database on the JDK's files and on uring4j's",
            "  ./uring4j bench --app mvstore               H2's MVStore, commit+sync every 10,000 writes, the same way",
            "  ./uring4j bench --app lucene                a Lucene index (NIOFSDirectory), the same way",
            "  ./uring4j bench --jmh -prof gc              JMH microbenchmarks of the ring's hot path",
            "  ./uring4j bench http                        HTTP under wrk: uring4j, Netty, the JDK (http -h)"})
public final class Bench implements Callable<Integer> {
    @Mixin
    BenchOptions options;

    @Spec
    CommandSpec spec;

    private final PrintStream out;
    private final PrintStream err;

    private Bench(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs with the given arguments and streams; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length > 0 && args[0].equals("--jmh")) {
            return jmh(Arrays.copyOfRange(args, 1, args.length), err);
        }
        CommandLine cl = new CommandLine(new Bench(out, err));
        cl.addSubcommand("http", new HttpBench(out, err));     // before the settings below, which it inherits
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            err.println("uring4j bench: " + e.getMessage());
            if (!(e instanceof BenchException || e instanceof IOException)) {
                e.printStackTrace(err);
            }
            return 1;
        });
        return cl.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        BenchOptions o = options;
        String bad = o.validate();
        if (bad != null) {
            throw new ParameterException(spec.commandLine(), bad);
        }
        if (o.engine != null) {
            // Before any ring exists; the comparisons' child JVMs inherit uring4j.* properties.
            System.setProperty("uring4j.engine", o.engine.name());
        }
        if (o.jmh) {
            throw new ParameterException(spec.commandLine(), "--jmh must be the first argument");
        }
        if (o.compareC) {
            if (o.threads != 1) {
                throw new ParameterException(spec.commandLine(), "--compare-c runs one thread (the C reference has no -n)");
            }
            List<Workload> workloads = workloadGiven()
                    ? List.of(new Workload(o.normalize().name(), o.workloadArgs(), 0, "")) : Workload.STANDARD;
            return new CompareC(o, out, err).run(workloads);
        }
        if (o.application() != null) {
            return new CompareFlag(o, out, err).run(CompareFlag.App.named(o.application(), o));
        }
        if (o.bulk != null) {
            return new Matrix(o, out, err).bulkSide();
        }
        if (o.compareJdk && o.matrix) {
            var parsed = spec.commandLine().getParseResult();
            o.rounds = parsed.hasMatchedOption("--rounds") ? o.rounds : 3;
            o.warmup = parsed.hasMatchedOption("--warmup") ? o.warmup : 0.2;
            return new Matrix(o, out, err).run();
        }
        if (o.compareJdk && o.write) {
            return new SideBySide(o, out, err).run("uring4j (A) vs the JDK (B), small positional writes from a platform"
                    + " thread", SideBySide.writePairs());
        }
        if (o.compareJdk) {
            boolean depthGiven = spec.commandLine().getParseResult().hasMatchedOption("-d");
            return new SideBySide(o, out, err).run("uring4j (A) vs the JDK (B), 4 KiB random reads",
                    SideBySide.jdkPairs(depthGiven ? o.depth : 64));
        }
        if (o.comparePortable) {
            return new SideBySide(o, out, err).run("the portable engine's designs (A) vs the variants they replace (B)",
                    SideBySide.portablePairs());
        }
        if (o.suite || !workloadGiven() && !spec.commandLine().getParseResult().hasMatchedOption("-n")) {
            return new Suite(o, out, err).run();
        }
        return single(o.normalize());
    }

    /** Whether the caller chose a workload (a shared workload option, or a FILE); without one the suite runs. */
    private boolean workloadGiven() {
        var parsed = spec.commandLine().getParseResult();
        return !options.files.isEmpty() || BenchOptions.WORKLOAD_OPTIONS.stream().anyMatch(parsed::hasMatchedOption);
    }

    /**
     * One workload, t/io_uring style; read mode without FILE reads a temporary file. The files are checked before
     * anything is measured (or a temporary file filled): each opens, and O_DIRECT reads of -b bytes suit it.
     */
    private int single(BenchOptions o) throws IOException, InterruptedException {
        if (o.writeFile != null) {
            o.files = List.of(o.writeFile);
        }
        if (!o.isNop() && o.files.isEmpty()) {
            try (TempFile file = TempFile.empty()) {
                o.files = List.of(file.path());
                checkDirectAlignment(o);
                file.fill(o.size, o.writeData, err);
                return measure(o, targets(o));
            }
        }
        List<ReadTarget> targets = targets(o);
        checkDirectAlignment(o);
        return measure(o, targets);
    }

    private int measure(BenchOptions o, List<ReadTarget> targets) throws InterruptedException {
        Reporter reporter = new Reporter(out, o, false);
        Result result = new Runner(o, targets, reporter).run(o.runtime == null ? 0 : o.runtime, s -> { });
        reporter.summary(result);
        return 0;
    }

    /** -O1: -b must be a multiple of each file's O_DIRECT alignment (a usage error, exit status 2, if not). */
    private void checkDirectAlignment(BenchOptions o) throws IOException {
        if (o.isNop() || o.direct == 0) {
            return;
        }
        for (Path file : o.files) {
            int align = DirectAlignment.of(file);
            if (align > 0 && o.blockSize % align != 0) {
                throw new ParameterException(spec.commandLine(), "-b " + o.blockSize + " is not a multiple of "
                        + align + ", the O_DIRECT alignment of " + file + " (its logical block size): use a multiple"
                        + " of it, or -O0");
            }
        }
    }

    static List<ReadTarget> targets(BenchOptions o) throws IOException {
        List<ReadTarget> targets = new ArrayList<>();
        if (!o.isNop()) {
            for (Path p : o.files) {
                targets.add(ReadTarget.of(p));
            }
        }
        return targets;
    }

    /** Options for one of the standard workloads, normalized as the C reference does. */
    static BenchOptions parseWorkload(List<String> args) {
        BenchOptions o = new BenchOptions();
        new CommandLine(o).parseArgs(args.toArray(String[]::new));
        return o.normalize();
    }

    /** The executable {@code name} on PATH, or null. */
    static String onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name).toString();
            }
        }
        return null;
    }

    /** {@code --jmh [JMH options]}: org.openjdk.jmh.Main with the benchmarks compiled into this module. */
    private static int jmh(String[] args, PrintStream err) {
        try {
            org.openjdk.jmh.Main.main(args);
            return 0;
        } catch (Exception e) {
            err.println("uring4j bench --jmh: " + e);
            return 1;
        }
    }
}
