package io.uring4j.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code ./uring4j bench} with no arguments: the five standard workloads, {@value #SECONDS} s each after a
 * warm-up, in about 20 s, with a progress line on stderr and one table on stdout.
 */
final class Suite {
    static final int SECONDS = 3;

    private final BenchOptions base;
    private final PrintStream out;
    private final PrintStream err;

    Suite(BenchOptions base, PrintStream out, PrintStream err) {
        this.base = base;
        this.out = out;
        this.err = err;
    }

    int run() throws IOException, InterruptedException {
        int seconds = base.runtime != null && base.runtime > 0 ? base.runtime : SECONDS;
        List<Workload> workloads = Workload.STANDARD;
        out.printf("uring4j bench suite: %d workloads, %d s each after a %.1f s warm-up, --api %s%n",
                workloads.size(), seconds, base.warmup, base.api);
        List<Result> results = new ArrayList<>();
        try (TempFile file = TempFile.create(base.size, base.writeData, err)) {
            for (int i = 0; i < workloads.size(); i++) {
                Workload w = workloads.get(i);
                List<String> args = new ArrayList<>(w.args());
                if (w.readsFile()) {
                    args.add(file.path().toString());
                }
                BenchOptions o = Bench.parseWorkload(args);
                o.api = base.api;
                o.warmup = base.warmup;
                Reporter reporter = new Reporter(out, o, true);
                String step = String.format("[%d/%d] %s", i + 1, workloads.size(), w.name());
                progress(err, step + ": warming up");
                Result r = new Runner(o, Bench.targets(o), reporter).run(seconds,
                        s -> progress(err, String.format(Locale.ROOT, "%s: %d/%d s, IOPS=%s", step, s, seconds,
                                Reporter.iops(reporter.lastIops()))));
                results.add(r);
            }
        } finally {
            progressDone(err);
        }
        printTable(workloads, results);
        return 0;
    }

    private void printTable(List<Workload> workloads, List<Result> results) {
        out.printf("%-26s %10s %10s %12s %8s%n", "workload", "IOPS", "ns/op", "syscalls/op", "B/op");
        for (int i = 0; i < results.size(); i++) {
            Result r = results.get(i);
            out.printf(Locale.ROOT, "%-26s %10s %10.1f %12.4f %8.2f%n", workloads.get(i).name(),
                    Reporter.iops(r.iopsAvg()), r.nsPerOp(), r.syscallsPerOp(), r.allocBytesPerOp());
        }
        out.println("read mode reads a preallocated temporary file (no device I/O); --write-data fills it first.");
        if (base.json) {
            results.forEach(r -> out.println(r.toJson()));
        }
        out.flush();
    }

    /** One line rewritten in place on a terminal; plain lines otherwise. */
    static void progress(PrintStream err, String line) {
        if (terminal()) {
            err.print("\r\033[K" + line);
        } else {
            err.println(line);
        }
        err.flush();
    }

    /** Clears the progress line before a table. */
    static void progressDone(PrintStream err) {
        if (terminal()) {
            err.print("\r\033[K");
            err.flush();
        }
    }

    static boolean terminal() {
        java.io.Console console = System.console();
        return console != null && console.isTerminal();
    }
}
