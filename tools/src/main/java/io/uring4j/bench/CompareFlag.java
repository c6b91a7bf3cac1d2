package io.uring4j.bench;

import io.uring4j.fs.UringFileSystemProvider;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code --h2}: an application nobody here wrote — the H2 database running {@link H2Workload} — on the JDK's
 * files and, unmodified, on uring4j's through one JVM flag; each run in a JVM of its own on a fresh database,
 * alternating round by round. Every run must give the same results; the table has the medians of each phase.
 */
final class CompareFlag {
    /** The JVM flag that puts an unmodified application on uring4j's files. */
    static final String FLAG = "-Djava.nio.file.spi.DefaultFileSystemProvider=" + UringFileSystemProvider.class.getName();
    private static final String[] PHASES = {"insert_per_s", "query_per_s", "update_per_s", "restart_ms", "total_ms"};

    private final BenchOptions options;
    private final PrintStream out;
    private final PrintStream err;

    CompareFlag(BenchOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    /** One run: the result lines (provider-independent) and the JSON summary. */
    record Run(String results, Map<String, String> summary) {
    }

    /** Runs H2Workload on a fresh database in {@code parent}, with or without the flag. */
    static Run run(Path parent, boolean uring, int rows) throws IOException, InterruptedException {
        Path db = Files.createTempDirectory(parent, uring ? "h2-uring4j-" : "h2-jdk-");
        try {
            List<String> command = new ArrayList<>(uring ? Child.javaCommand(H2Workload.class.getName(), FLAG)
                    : Child.javaCommand(H2Workload.class.getName()));
            command.addAll(List.of(db.toString(), Integer.toString(rows)));
            String output = Child.output(command, 600);
            String results = output.lines().filter(l -> !l.startsWith("{")).reduce("", (a, b) -> a + b + "\n");
            return new Run(results, Child.parseJson(output));
        } finally {
            try (Stream<Path> files = Files.walk(db)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    int run() throws IOException, InterruptedException {
        int rows = options.h2Rows;
        out.printf("H2 (%d rows): the JDK's files vs uring4j's through %s, %d rounds, alternating%n", rows, FLAG,
                options.rounds);
        double[][] jdk = new double[PHASES.length][options.rounds];
        double[][] uring = new double[PHASES.length][options.rounds];
        String expected = null;
        Path parent = Files.createTempDirectory("uring4j-h2-");
        try {
            for (int round = 0; round < options.rounds; round++) {
                for (int k = 0; k < 2; k++) {
                    boolean isUring = (k == 0) == (round % 2 == 1);
                    Run r = run(parent, isUring, rows);
                    String channel = r.summary().get("channel");
                    if (isUring != channel.startsWith("io.uring4j.")) {
                        throw new BenchException("H2 got " + channel + (isUring ? " despite " : " without ") + FLAG);
                    }
                    if (expected == null) {
                        expected = r.results();
                    } else if (!expected.equals(r.results())) {
                        throw new BenchException("H2 gave different results on " + channel + ":\n" + r.results()
                                + "expected:\n" + expected);
                    }
                    for (int i = 0; i < PHASES.length; i++) {
                        (isUring ? uring : jdk)[i][round] = Double.parseDouble(r.summary().get(PHASES[i]));
                    }
                    err.printf(Locale.ROOT, "round %d/%d, %s: total %.0f ms%n", round + 1, options.rounds,
                            isUring ? "uring4j" : "JDK", Double.parseDouble(r.summary().get("total_ms")));
                }
            }
        } finally {
            Files.deleteIfExists(parent);
        }
        String fmt = "%-14s %12s %12s %8s%n";
        out.printf(fmt, "phase", "JDK", "uring4j", "uring4j/JDK");
        for (int i = 0; i < PHASES.length; i++) {
            double j = CompareC.median(jdk[i]);
            double u = CompareC.median(uring[i]);
            out.printf(Locale.ROOT, fmt, PHASES[i], String.format(Locale.ROOT, "%.1f", j),
                    String.format(Locale.ROOT, "%.1f", u), String.format(Locale.ROOT, "%.2f", u / j));
        }
        out.println("Medians over the rounds; *_per_s higher is better, *_ms lower. Results identical in every run:");
        out.print(expected);
        out.flush();
        return 0;
    }
}
