package io.uring4j.bench;

import io.uring4j.fs.UringFileSystemProvider;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code --app h2|mvstore|lucene}: an application nobody here wrote — the H2 database running {@link H2Workload},
 * H2's MVStore running {@link MVStoreWorkload}, the Lucene search engine running {@link LuceneWorkload} — on the
 * JDK's files and, unmodified, on uring4j's through one JVM
 * flag; each run in a JVM of its own on a fresh directory, alternating round by round (who goes first alternates
 * too). Every run must give the same results; the table has the medians of each phase and of the per-round speed
 * ratios.
 */
final class CompareFlag {
    /** The JVM flag that puts an unmodified application on uring4j's files. */
    static final String FLAG = "-Djava.nio.file.spi.DefaultFileSystemProvider=" + UringFileSystemProvider.class.getName();

    /**
     * One timing an application reports (a key of its JSON line): {@code *_per_s} higher is better, {@code *_ms}
     * lower; {@code target} is the least uring4j/JDK speed that meets the goal.
     */
    record Phase(String key, double target) {
        boolean isRate() {
            return key.endsWith("_per_s");
        }
    }

    /**
     * An application: its main class, the arguments after its directory, and its phases. The goal for
     * every phase of every application: at least {@value #TARGET} × the JDK's speed (a noise allowance).
     */
    record App(String name, String mainClass, List<String> args, List<Phase> phases) {
        static final double TARGET = 0.97;

        static App h2(int rows) {
            return new App("H2 (" + rows + " rows)", H2Workload.class.getName(), List.of(Integer.toString(rows)),
                    phases("insert_per_s", "query_per_s", "update_per_s", "restart_ms", "total_ms"));
        }

        static App mvstore(int ops) {
            return new App("MVStore (" + ops + " ops per phase, commit and sync every "
                    + MVStoreWorkload.COMMIT_EVERY + ")", MVStoreWorkload.class.getName(),
                    List.of(Integer.toString(ops)), phases("put_per_s", "mixed_per_s", "reopen_ms", "total_ms"));
        }

        /** A short program's few file calls: what matters is the whole process, start to exit. */
        static App startup() {
            return new App("A short program (write, read, copy, list, delete a small file)",
                    StartupWorkload.class.getName(), List.of(), phases("total_ms", "process_ms"));
        }

        static App lucene(int docs) {
            return new App("Lucene (" + docs + " documents, NIOFSDirectory, commit every "
                    + LuceneWorkload.COMMIT_EVERY + ")", LuceneWorkload.class.getName(), List.of(Integer.toString(docs)),
                    phases("index_per_s", "query_per_s", "update_per_s", "merge_ms", "reopen_ms", "total_ms"));
        }

        /** The application {@code --app} names, sized by the options. */
        static App named(String name, BenchOptions o) {
            return switch (name) {
                case "h2" -> h2(o.h2Rows);
                case "mvstore" -> mvstore(o.mvstoreOps);
                case "lucene" -> lucene(o.luceneDocs);
                case "startup" -> startup();
                default -> throw new IllegalArgumentException("unknown application " + name);
            };
        }

        private static List<Phase> phases(String... keys) {
            return Stream.of(keys).map(k -> new Phase(k, TARGET)).toList();
        }
    }

    private final BenchOptions options;
    private final PrintStream out;
    private final PrintStream err;

    CompareFlag(BenchOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    /**
     * One run: the result lines (provider-independent) and the JSON summary, with {@code process_ms}, the child
     * JVM's whole run (start to exit) as measured here, added.
     */
    record Run(String results, Map<String, String> summary) {
    }

    /** Runs {@code app} on a fresh directory in {@code parent}, with or without the flag. */
    static Run run(Path parent, boolean uring, App app) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory(parent, uring ? "uring4j-" : "jdk-");
        try {
            List<String> command = new ArrayList<>(uring ? Child.javaCommand(app.mainClass(), FLAG)
                    : Child.javaCommand(app.mainClass()));
            command.add(dir.toString());
            command.addAll(app.args());
            long start = System.nanoTime();
            String output = Child.output(command, 600);
            double processMillis = (System.nanoTime() - start) / 1e6;
            String results = output.lines().filter(l -> !l.startsWith("{")).reduce("", (a, b) -> a + b + "\n");
            Map<String, String> summary = new LinkedHashMap<>(Child.parseJson(output));
            summary.put("process_ms", String.format(Locale.ROOT, "%.1f", processMillis));
            return new Run(results, summary);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /**
     * The FileChannel class an application in this JVM gets, for its JSON line: the class of a channel opened in
     * {@code dir} as H2 opens its files.
     */
    static String channelClass(Path dir) {
        try {
            Path probe = Files.createTempFile(dir, "probe", ".dat");
            try (FileChannel ch = FileChannel.open(probe)) {
                return ch.getClass().getName();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int run(App app) throws IOException, InterruptedException {
        int rounds = options.rounds;
        out.printf("%s: the JDK's files vs uring4j's through %s, %d rounds, alternating%n", app.name(), FLAG, rounds);
        List<Phase> phases = app.phases();
        double[][] jdk = new double[phases.size()][rounds];
        double[][] uring = new double[phases.size()][rounds];
        String expected = null;
        Path parent = Files.createTempDirectory("uring4j-flag-");
        try {
            for (int round = 0; round < rounds; round++) {
                for (int k = 0; k < 2; k++) {
                    boolean isUring = (k == 0) == (round % 2 == 1);
                    Run r = run(parent, isUring, app);
                    // the channel class the child got, or its provider's where opening a channel would wait
                    String files = r.summary().getOrDefault("channel", r.summary().get("provider"));
                    if (isUring != files.startsWith("io.uring4j.")) {
                        throw new BenchException(app.name() + " got " + files + (isUring ? " despite " : " without ")
                                + FLAG);
                    }
                    if (expected == null) {
                        expected = r.results();
                    } else if (!expected.equals(r.results())) {
                        throw new BenchException(app.name() + " gave different results on " + files + ":\n"
                                + r.results() + "expected:\n" + expected);
                    }
                    for (int i = 0; i < phases.size(); i++) {
                        (isUring ? uring : jdk)[i][round] = Double.parseDouble(r.summary().get(phases.get(i).key()));
                    }
                    err.printf(Locale.ROOT, "round %d/%d, %s: total %.0f ms%n", round + 1, rounds,
                            isUring ? "uring4j" : "JDK", Double.parseDouble(r.summary().get("total_ms")));
                }
            }
        } finally {
            Files.deleteIfExists(parent);
        }
        List<String> json = printTable(phases, jdk, uring);
        out.print(expected);
        if (options.json) {
            out.println("{\"flag\":[" + String.join(",", json) + "]}");
        }
        out.flush();
        return 0;
    }

    /** Per phase: the medians, the median and range of the per-round speed ratios, the target; returns the JSON. */
    private List<String> printTable(List<Phase> phases, double[][] jdk, double[][] uring) {
        String fmt = "%-14s %12s %12s %7s %13s  %s%n";
        out.printf(fmt, "phase", "JDK", "uring4j", "speed", "speed range", "target");
        List<String> json = new ArrayList<>();
        for (int i = 0; i < phases.size(); i++) {
            Phase phase = phases.get(i);
            double[] speed = new double[jdk[i].length];
            for (int r = 0; r < speed.length; r++) {
                speed[r] = phase.isRate() ? uring[i][r] / jdk[i][r] : jdk[i][r] / uring[i][r];
            }
            double med = CompareC.median(speed);
            String target = ">= " + phase.target() + " JDK " + (med >= phase.target() ? "met" : "MISSED");
            out.printf(Locale.ROOT, fmt, phase.key(), f(CompareC.median(jdk[i]), 1), f(CompareC.median(uring[i]), 1),
                    f(med, 2), f(CompareC.min(speed), 2) + ".." + f(CompareC.max(speed), 2), target);
            json.add(String.format(Locale.ROOT, "{\"phase\":\"%s\",\"jdk\":%.1f,\"uring4j\":%.1f,\"speed\":%.4f,"
                            + "\"target\":%.2f,\"ratios\":%s}", phase.key(), CompareC.median(jdk[i]),
                    CompareC.median(uring[i]), med, phase.target(), SideBySide.jsonArray(speed)));
        }
        out.println("Medians over the rounds; *_per_s higher is better, *_ms lower. speed: uring4j's over the JDK's");
        out.println("in the same round (for *_ms, the JDK's time over uring4j's). Results identical in every run:");
        return json;
    }

    private static String f(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
