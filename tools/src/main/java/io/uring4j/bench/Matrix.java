package io.uring4j.bench;

import io.uring4j.sys.SyscallCost;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * {@code --compare-jdk --matrix}: uring4j's FileChannel against the JDK's cell by cell — platform and virtual
 * threads × 1, 8 and 64 threads × O_DIRECT and cached × 4 KiB and 128 KiB × reads, writes and writes each followed
 * by force — then AsynchronousFileChannel against the JDK's in the same shape (1, 8 and 64 in flight), then
 * uring4j's futures at 64 in flight against the JDK's AsynchronousFileChannel, then the sequential and bulk paths
 * ({@link BulkOps}). Both sides run in this JVM, alternating within each round (who goes first alternates too), so
 * a cell costs no JVM start and the matrix fits in minutes; each cell's figure is the median of its per-round
 * ratios. Each read cell is also a fraction of the C ceiling: the C reference as two processes at depth 32, summed,
 * on the same file and block size ({@link Ceiling}); a cell with a target for that fraction measures its ceiling in
 * every round.
 */
final class Matrix {
    private static final long WRITE_FILE = 64L << 20;
    /** A forked side's least warm-up: a fresh JVM's JIT needs more than a warm one's 0.2 s. */
    private static final double FORK_WARMUP_SECONDS = 2;

    /** One cell: its name, our side and the JDK's, and the least A/B ratio that meets the issue's target. */
    record Cell(String name, BenchOptions a, BenchOptions b, double target, double ceilingTarget) {
        boolean reads() {
            return !a.write;
        }
    }

    private final BenchOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final int seconds;
    private final Pattern filter;

    Matrix(BenchOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.seconds = options.runtime != null && options.runtime > 0 ? options.runtime : 1;
        this.filter = options.cells == null ? null : Pattern.compile(options.cells);
    }

    /** The FileChannel cells, then the AsynchronousFileChannel ones; {@code slowCalls}: a system call costs ≥ 1 µs. */
    static List<Cell> cells(boolean slowCalls) {
        List<Cell> cells = new ArrayList<>();
        for (String mode : List.of("read", "write", "write+force")) {
            for (boolean platform : new boolean[]{true, false}) {
                for (int depth : new int[]{1, 8, 64}) {
                    for (int direct : new int[]{1, 0}) {
                        for (int bs : new int[]{4096, 128 << 10}) {
                            String name = String.format(Locale.ROOT, "FC %s x%d %s %s %s", platform ? "PT" : "VT",
                                    depth, direct == 1 ? "O_DIRECT" : "cached", bs == 4096 ? "4K" : "128K", mode);
                            boolean issueCell = !platform && depth == 64 && bs == 4096 && mode.equals("read");
                            double target = issueCell && slowCalls ? (direct == 1 ? 2.0 : 1.5) : 0.97;
                            double ceiling = issueCell && direct == 1 ? 0.75 : 0;
                            cells.add(new Cell(name, side(BenchOptions.Api.filechannel, platform, depth, direct, bs, mode),
                                    side(BenchOptions.Api.jdk_filechannel, platform, depth, direct, bs, mode), target,
                                    ceiling));
                        }
                    }
                }
            }
        }
        for (String mode : List.of("read", "write")) {
            for (int depth : new int[]{1, 8, 64}) {
                for (int direct : new int[]{1, 0}) {
                    for (int bs : new int[]{4096, 128 << 10}) {
                        String name = String.format(Locale.ROOT, "AFC x%d %s %s %s", depth,
                                direct == 1 ? "O_DIRECT" : "cached", bs == 4096 ? "4K" : "128K", mode);
                        cells.add(new Cell(name, side(BenchOptions.Api.async_filechannel, false, depth, direct, bs, mode),
                                side(BenchOptions.Api.jdk_async, false, depth, direct, bs, mode), 0.97, 0));
                    }
                }
            }
        }
        // The issue's "future API": uring4j's own futures (--api future) against the JDK's AsynchronousFileChannel at
        // 64 in flight, in the C ceiling's shape: a loop per C process, each at its share of the depth.
        BenchOptions futures = side(BenchOptions.Api.future, false, 64 / Ceiling.PROCESSES, 1, 4096, "read");
        futures.threads = Ceiling.PROCESSES;
        cells.add(new Cell(String.format(Locale.ROOT, "future %dx%d O_DIRECT 4K read", futures.threads, futures.depth),
                futures, side(BenchOptions.Api.jdk_async, false, 64, 1, 4096, "read"), 0.97, 0.9));
        return cells;
    }

    private static BenchOptions side(BenchOptions.Api api, boolean platform, int depth, int direct, int bs, String mode) {
        BenchOptions o = new BenchOptions();
        o.api = api;
        o.platform = platform && (api == BenchOptions.Api.filechannel || api == BenchOptions.Api.jdk_filechannel);
        o.depth = depth;
        o.direct = direct;
        o.blockSize = bs;
        o.write = !mode.equals("read");
        o.force = mode.equals("write+force");
        return o;
    }

    int run() throws IOException, InterruptedException {
        long syscall = SyscallCost.nanos();
        List<Cell> cells = cells(syscall >= 1000).stream().filter(c -> selected(c.name())).toList();
        List<BulkOps.Row> bulk = BulkOps.rows().stream().filter(r -> selected(r.name())).toList();
        out.printf(Locale.ROOT, "uring4j (A) vs the JDK (B), %d cells and %d bulk rows: %d rounds x %d s per side,"
                + " alternating %s; a system call costs %d ns here%n", cells.size(), bulk.size(), options.rounds,
                seconds, options.fork ? "(each side of a cell or row in a JVM of its own)"
                        : "in one JVM", syscall);
        List<String[]> rows = new ArrayList<>();
        List<String> json = new ArrayList<>();
        try (TempFile readFile = TempFile.create(options.size, options.writeData, err);
             TempFile writeFile = TempFile.create(WRITE_FILE, true, err)) {
            ReadTarget reads = ReadTarget.of(readFile.path());
            ReadTarget writes = ReadTarget.of(writeFile.path());
            if (cells.stream().anyMatch(Cell::reads)) {
                cache(readFile.path(), options.size);
            }
            Ceiling ceiling = new Ceiling(options, err, seconds, readFile.path());
            for (Cell cell : cells) {
                compare(cell, cell.reads() ? reads : writes, ceiling, rows, json);
            }
        }
        for (BulkOps.Row row : bulk) {
            compare(row, rows, json);
        }
        Suite.progressDone(err);
        String fmt = "%-34s %11s %11s %6s %11s %6s %6s %6s  %s%n";
        out.printf(fmt, "cell", "A ops/s", "B ops/s", "A/B", "A/B range", "cpu", "A/C", "B/C", "target");
        for (String[] r : rows) {
            out.printf(fmt, (Object[]) r);
        }
        out.println("A/B: the median of the per-round ratios. cpu: the median per-round ratio of B's process CPU time"
                + " per op over A's (above 1: A spends less). A/C, B/C: each side over the C ceiling (two C processes"
                + " at depth 32, summed, same file and block size), read cells only; a cell with an A/C target measures"
                + " its ceiling before A in every round and gives the median of the per-round fractions.");
        if (options.json) {
            out.println("{\"syscall_ns\":" + syscall + ",\"matrix\":[" + String.join(",", json) + "]}");
        }
        out.flush();
        return 0;
    }

    private boolean selected(String name) {
        return filter == null || filter.matcher(name).find();
    }

    /** Reads the whole file once, so that the cached cells find it in the page cache from their first round. */
    private static void cache(Path path, long size) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            for (long at = 0; at < size; at += chunk.capacity()) {
                ch.read(chunk.clear(), at);
            }
        }
    }

    private void compare(Cell cell, ReadTarget target, Ceiling ceiling, List<String[]> rows, List<String> json)
            throws IOException, InterruptedException {
        // A cell with a ceiling target measures its ceiling in every round, just before its own side: the C
        // reference's IOPS on this machine's storage move by half between minutes, a ceiling measured once by more.
        double[] c = new double[options.rounds];
        boolean perRound = cell.ceilingTarget() > 0 && ceiling.available();
        Sample[][] samples = rounds((side, round) -> {
            if (side == 0 && perRound) {
                c[round] = ceiling.once(cell.a().direct, cell.a().blockSize);
            }
            return measure(side == 0 ? cell.a() : cell.b(), target);
        }, cell.name());
        if (!perRound) {
            Arrays.fill(c, cell.reads() ? ceiling.iops(cell.a().direct, cell.a().blockSize) : 0);
        }
        add(cell.name(), samples, c, cell.target(), cell.ceilingTarget(), rows, json);
    }

    private void compare(BulkOps.Row row, List<String[]> rows, List<String> json)
            throws IOException, InterruptedException {
        Sample[][] samples;
        if (options.fork) {
            samples = rounds((side, round) -> forked(bulkArgs(row, side == 0)), row.name());
        } else {
            try (BulkOps bulk = BulkOps.open(row)) {
                samples = rounds((side, round) -> bulk.measure(side == 0, this, seconds), row.name());
            }
        }
        add(row.name(), samples, new double[samples[0].length], 0.97, 0, rows, json);
    }

    /** The bench's options that run one side of a bulk row, uring4j's ({@code ours}) or the JDK's. */
    static List<String> bulkArgs(BulkOps.Row row, boolean ours) {
        return List.of("--bulk", row.name(), "--api",
                (ours ? BenchOptions.Api.filechannel : BenchOptions.Api.jdk_filechannel).toString());
    }

    /**
     * {@code --bulk}: one side of a bulk row, on files of its own, warmed up and measured as the matrix does in its
     * JVM; what {@code --fork} runs in a child for each side of a row. Prints its ops per second and, with
     * {@code --json}, a summary as the bench's other runs do.
     */
    int bulkSide() throws IOException, InterruptedException {
        BulkOps.Row row = BulkOps.row(options.bulk).orElseThrow();     // validated: a row's name
        boolean ours = options.api == BenchOptions.Api.filechannel;
        Sample s;
        try (BulkOps bulk = BulkOps.open(row)) {
            s = bulk.measure(ours, this, seconds);
        }
        out.printf(Locale.ROOT, "%s on %s's paths: %.0f ops/s, %.0f ns of process CPU per op%n", row.name(),
                ours ? "uring4j" : "the JDK", s.opsPerSecond(), s.cpuNsPerOp());
        if (options.json) {
            out.printf(Locale.ROOT, "{\"iops_avg\":%.1f,\"ns_per_op\":%.3f,\"cpu_ns_per_op\":%.3f}%n",
                    s.opsPerSecond(), 1e9 / s.opsPerSecond(), s.cpuNsPerOp());
        }
        out.flush();
        return 0;
    }

    interface Measure {
        Sample sample(int side, int round) throws IOException, InterruptedException;
    }

    /**
     * One side's run: its ops per second, and the CPU time of the whole process per op (every thread's: the
     * readers', the event loops', the JIT's and the GC's), which a busy machine's preemptions leave out.
     */
    record Sample(double opsPerSecond, double cpuNsPerOp) {
        static Sample of(long ops, long nanos, long cpuNanos) {
            return new Sample(ops * 1e9 / nanos, ops == 0 ? 0 : (double) cpuNanos / ops);
        }
    }

    /** Per side and round: A and B alternately, who goes first alternating by round. */
    private Sample[][] rounds(Measure measure, String name) throws IOException, InterruptedException {
        int n = options.rounds;
        Sample[][] samples = new Sample[2][n];
        for (int round = 0; round < n; round++) {
            for (int k = 0; k < 2; k++) {
                int side = (k + round) % 2;
                samples[side][round] = measure.sample(side, round);
            }
            Suite.progress(err, String.format(Locale.ROOT, "%s, round %d/%d: A/B %.3f", name, round + 1, n,
                    samples[0][round].opsPerSecond() / samples[1][round].opsPerSecond()));
        }
        return samples;
    }

    /**
     * One side's run: fresh drivers (each of ours with its own runtime), one per {@code side.threads}, warmed up,
     * then measured at once, their ops summed.
     */
    private Sample measure(BenchOptions side, ReadTarget target) throws IOException, InterruptedException {
        if (options.fork) {
            return forked(side, target);
        }
        List<Driver> drivers = new ArrayList<>();
        try {
            for (int i = 0; i < Math.max(1, side.threads); i++) {
                drivers.add(Driver.create(side, List.of(target)));
            }
            warmUp((nanos, unused) -> runAll(drivers, nanos));
            long cpu = Counters.processCpuNanos();
            Counters[] counters = runAll(drivers, seconds * 1_000_000_000L);
            cpu = Counters.processCpuNanos() - cpu;
            long ops = 0;
            long nanos = 0;
            for (Counters c : counters) {
                ops += c.totalDone;
                nanos = Math.max(nanos, c.stopNanos - c.startNanos);
            }
            return Sample.of(ops, nanos, cpu);
        } finally {
            for (Driver driver : drivers) {
                driver.close();
            }
        }
    }

    /**
     * {@code --fork}: one side's run in a JVM of its own, through the bench's options — its call sites see only
     * its own channel, as an application's do under the flag — warmed up there first, as a fresh JVM needs. It reads
     * or writes the matrix's own file, as this JVM's sides do.
     */
    private Sample forked(BenchOptions side, ReadTarget target) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(args(side));
        if (side.write) {
            args.addAll(List.of("--write-file", target.path().toString()));
        } else {
            args.add(target.path().toString());
        }
        return forked(args);
    }

    /** A child bench of {@code sideArgs} (one side), warmed up as {@link #forked(BenchOptions, ReadTarget)} says. */
    private Sample forked(List<String> sideArgs) throws IOException, InterruptedException {
        double warmup = Math.max(FORK_WARMUP_SECONDS, options.warmup);
        List<String> command = new ArrayList<>(Child.javaCommand());
        command.addAll(List.of("-r" + seconds, "--warmup", Double.toString(warmup), "--json"));
        command.addAll(sideArgs);
        Map<String, String> fields = Child.run(command, seconds + warmup + 120);
        return new Sample(Double.parseDouble(fields.get("iops_avg")),
                Double.parseDouble(fields.getOrDefault("cpu_ns_per_op", "0")));
    }

    /** The bench's options that make {@code side}, a cell's side as {@link #side} makes it. */
    static List<String> args(BenchOptions side) {
        List<String> args = new ArrayList<>(List.of("--api", side.api.toString(), "-d" + side.depth,
                "-O" + side.direct, "-b" + side.blockSize, "-n" + Math.max(1, side.threads)));
        if (side.write) {
            args.add("--write");
        }
        if (side.force) {
            args.add("--force");
        }
        if (side.platform) {
            args.add("--platform");
        }
        return args;
    }

    /** Runs the drivers for {@code nanos}, each on a thread of its own beside the others (one on this thread). */
    private static Counters[] runAll(List<Driver> drivers, long nanos) throws IOException, InterruptedException {
        Counters[] counters = new Counters[drivers.size()];
        for (int i = 0; i < counters.length; i++) {
            counters[i] = new Counters();
        }
        List<Thread> others = new ArrayList<>();
        AtomicReference<Exception> failure = new AtomicReference<>();
        for (int i = 1; i < drivers.size(); i++) {
            Driver driver = drivers.get(i);
            Counters c = counters[i];
            others.add(Thread.ofPlatform().start(() -> {
                try {
                    driver.run(nanos, c);
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        drivers.getFirst().run(nanos, counters[0]);
        for (Thread t : others) {
            t.join();
        }
        if (failure.get() != null) {
            throw new BenchException("a driver failed: " + failure.get(), failure.get());
        }
        return counters;
    }

    /** One run of a side for {@code nanos}. */
    interface Run {
        void run(long nanos, Counters counters) throws IOException, InterruptedException;
    }

    /**
     * Short runs of {@code --warmup} seconds until one saw no JIT compilation (at most three: on a busy machine the
     * compiler threads never rest): the first cell of a kind compiles its paths, the JVM keeps them for the later
     * rounds and cells, which then warm up in one run.
     */
    void warmUp(Run run) throws IOException, InterruptedException {
        long nanos = (long) (options.warmup * 1e9);
        for (int i = 0; nanos > 0 && i < 3; i++) {
            long jit = Runner.jitMillis();
            run.run(nanos, new Counters());
            if (Runner.jitMillis() == jit) {
                return;
            }
        }
    }

    /** One row; {@code ceilings}: the C ceiling of each round (0: none), A/C and B/C the medians over them. */
    private void add(String name, Sample[][] samples, double[] ceilings, double target, double ceilingTarget,
                     List<String[]> rows, List<String> json) {
        int n = samples[0].length;
        double[] ratio = new double[n];
        double[] cpuRatio = new double[n];
        double[][] ops = new double[2][n];
        double[][] ofCeiling = new double[2][n];
        for (int i = 0; i < n; i++) {
            ops[0][i] = samples[0][i].opsPerSecond();
            ops[1][i] = samples[1][i].opsPerSecond();
            ratio[i] = ops[0][i] / ops[1][i];
            cpuRatio[i] = samples[1][i].cpuNsPerOp() / samples[0][i].cpuNsPerOp();
            ofCeiling[0][i] = ceilings[i] > 0 ? ops[0][i] / ceilings[i] : 0;
            ofCeiling[1][i] = ceilings[i] > 0 ? ops[1][i] / ceilings[i] : 0;
        }
        double med = CompareC.median(ratio);
        double cpu = CompareC.median(cpuRatio);
        double a = CompareC.median(ops[0]);
        double b = CompareC.median(ops[1]);
        double ceiling = CompareC.median(ceilings);
        double ac = CompareC.median(ofCeiling[0]);
        double bc = CompareC.median(ofCeiling[1]);
        String verdict = ">= " + target + (med >= target ? " met" : " MISSED")
                + (ceilingTarget > 0 ? ", A/C >= " + ceilingTarget + (ac >= ceilingTarget ? " met" : " MISSED") : "");
        rows.add(new String[]{name, f(a, 0), f(b, 0), f(med, 2), f(CompareC.min(ratio), 2) + ".."
                + f(CompareC.max(ratio), 2), f(cpu, 2), ceiling > 0 ? f(ac, 2) : "", ceiling > 0 ? f(bc, 2) : "",
                verdict});
        json.add(String.format(Locale.ROOT, "{\"cell\":\"%s\",\"a_ops\":%.0f,\"b_ops\":%.0f,\"ratio\":%.4f,"
                + "\"ratios\":%s,\"cpu_ratio\":%.4f,\"c_ceiling\":%.0f,\"target\":%.2f}", name, a, b, med,
                SideBySide.jsonArray(ratio), cpu, ceiling, target));
    }

    private static String f(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
