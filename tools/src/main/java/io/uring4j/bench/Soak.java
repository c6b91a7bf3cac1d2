package io.uring4j.bench;

import io.uring4j.serve.Serve;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./uring4j soak}: {@code serve http} in each style in a child JVM, under keep-alive load and connection
 * churn ({@link SoakLoad}) for a while, its RSS, open descriptors and threads sampled from {@code /proc} at a
 * fixed period; a table per style and a verdict ({@link Trend}): after the warm-up they must not grow.
 * Exit status: 0 flat, 1 something grew or a server failed, 2 bad options.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 110,
        description = {"serve http in both styles under load with connection churn; RSS, descriptors and threads",
            "sampled from /proc must not grow after the warm-up.", "",
            "  ./uring4j soak                                   3 minutes per style, 50,000 connects each",
            "  ./uring4j soak --duration 20s --connects 5000    a quick look", ""})
public final class Soak implements Callable<Integer> {
    private static final Pattern LISTENING = Pattern.compile(" on [^ ]+:(\\d+), ");
    private static final int START_SECONDS = 60;

    @Option(names = "--duration", defaultValue = "3m", converter = DurationConverter.class, paramLabel = "TIME",
            description = "per style, as 90s, 3m or 500ms (default ${DEFAULT-VALUE})")
    Duration duration;

    @Option(names = "--connects", defaultValue = "50000", paramLabel = "N",
            description = "connections opened and closed per style, spread evenly over the run, one request each"
                    + " (default ${DEFAULT-VALUE})")
    long connects;

    @Option(names = "--keep-alive", defaultValue = "16", paramLabel = "N",
            description = "connections sending requests back to back all along (default ${DEFAULT-VALUE})")
    int keepAlive;

    @Option(names = "--warmup", defaultValue = "30s", converter = DurationConverter.class, paramLabel = "TIME",
            description = "samples not judged, at most a third of the duration (default ${DEFAULT-VALUE})")
    Duration warmup;

    @Option(names = "--sample", converter = DurationConverter.class, paramLabel = "TIME",
            description = "time between samples (default: 5s, or a twelfth of a shorter run)")
    Duration sample;

    @Option(names = "--heap", defaultValue = "64m", paramLabel = "SIZE",
            description = "the server JVM's heap, fixed and touched up front (-Xms -Xmx -XX:+AlwaysPreTouch), so"
                    + " RSS shows what grows beside it; a heap that fills fails the run (default ${DEFAULT-VALUE})")
    String heap;

    @Option(names = "--styles", defaultValue = "loop,vthread", split = ",", paramLabel = "STYLE",
            description = "serve's styles to soak, in order (default ${DEFAULT-VALUE})")
    List<String> styles;

    @Spec
    CommandSpec spec;

    private final PrintStream out;

    Soak(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    static int run(String[] args, PrintStream out) {
        return new CommandLine(new Soak(out)).execute(args);
    }

    /** One style's run: its samples and what the load saw. */
    record Run(String style, List<Trend.Sample> samples, Trend.Verdict verdict, String failure) {
    }

    @Override
    public Integer call() throws Exception {
        validate();
        Duration judgedAfter = warmup.compareTo(duration.dividedBy(3)) > 0 ? duration.dividedBy(3) : warmup;
        List<Run> runs = new ArrayList<>();
        for (String style : styles) {
            out.printf(Locale.ROOT, "%nserve http --style %s (heap %s): %d s under load — %d keep-alive connections,"
                            + " %d connects (one request each), samples every %s, judged after %d s%n", style, heap,
                    duration.toSeconds(), keepAlive, connects, seconds(sample), judgedAfter.toSeconds());
            Run run = soak(style, judgedAfter);
            runs.add(run);
            out.println(run.failure() != null ? style + ": FAILED: " + run.failure()
                    : style + ": " + run.verdict().describe());
            out.flush();
        }
        boolean flat = runs.stream().allMatch(r -> r.failure() == null && r.verdict().flat());
        out.println();
        out.println("verdict: " + (flat ? "flat" : "NOT flat") + " — "
                + String.join("; ", runs.stream().map(r -> r.style() + (r.failure() != null ? " failed"
                : r.verdict().flat() ? " flat" : r.verdict().enoughSamples() ? " grows" : " not judged")).toList()));
        out.flush();
        return flat ? 0 : 1;
    }

    private void validate() {
        String bad = "";
        if (sample == null) {
            Duration twelfth = duration.dividedBy(12);
            sample = twelfth.compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5)
                    : twelfth.compareTo(Duration.ofMillis(100)) < 0 ? Duration.ofMillis(100) : twelfth;
        }
        if (!heap.matches("\\d+[kmg]?")) {
            bad += "--heap must be a size such as 256m or 1g, not " + heap + "; ";
        }
        if (duration.isNegative() || duration.compareTo(Duration.ofSeconds(1)) < 0) {
            bad += "--duration must be 1s or more; ";
        }
        if (sample.compareTo(Duration.ofMillis(100)) < 0) {
            bad += "--sample must be 100ms or more; ";
        }
        if (warmup.isNegative()) {
            bad += "--warmup must not be negative; ";
        }
        if (connects < 0) {
            bad += "--connects must be 0 or more; ";
        }
        if (keepAlive < 0 || keepAlive > 10_000) {
            bad += "--keep-alive must be 0..10000; ";
        }
        for (String s : styles) {
            if (!s.equals("loop") && !s.equals("vthread")) {
                bad += "--styles: no style named '" + s + "' (loop, vthread); ";
            }
        }
        if (!bad.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), bad.substring(0, bad.length() - 2));
        }
    }

    /** Starts the server, loads it for the duration while sampling, stops it. */
    private Run soak(String style, Duration judgedAfter) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("uring4j-soak");
        List<String> command = Child.javaCommand(Serve.class.getName(), "-Xms" + heap, "-Xmx" + heap,
                "-XX:+AlwaysPreTouch", "-XX:+ExitOnOutOfMemoryError");
        command.addAll(List.of("http", "--style", style, "--port", "0", "--threads", "1"));
        Process server = new ProcessBuilder(command).redirectOutput(dir.resolve("out").toFile())
                .redirectError(dir.resolve("err").toFile()).start();
        Thread stopOnExit = new Thread(server::destroyForcibly);
        Runtime.getRuntime().addShutdownHook(stopOnExit);          // Ctrl-C must not leave a server running
        List<Trend.Sample> samples = new ArrayList<>();
        try {
            int port = awaitPort(server, dir.resolve("out"));
            if (port < 0) {
                return new Run(style, samples, null, "the server did not start: " + read(dir.resolve("err")));
            }
            String fmt = "%8s %9s %6s %8s %9s %9s %7s%n";
            out.printf(fmt, "time", "rss MiB", "fds", "threads", "req/s", "connects", "errors");
            long start = System.nanoTime();
            long nanos = duration.toNanos();
            try (SoakLoad load = new SoakLoad(new InetSocketAddress("127.0.0.1", port), keepAlive, connects, nanos)) {
                long lastRequests = 0;
                double lastSeconds = 0;
                for (long next = start + sample.toNanos(); next <= start + nanos; next += sample.toNanos()) {
                    TimeUnit.NANOSECONDS.sleep(next - System.nanoTime());
                    if (!server.isAlive()) {
                        return new Run(style, samples, null, "the server exited with status " + server.exitValue()
                                + ": " + read(dir.resolve("err")));
                    }
                    double t = (next - start) / 1e9;
                    Trend.Sample s = sample(server.pid(), t, load);
                    samples.add(s);
                    out.printf(Locale.ROOT, fmt, seconds(Duration.ofNanos(next - start)),
                            String.format(Locale.ROOT, "%.1f", s.rssKib() / 1024.0), s.fds(), s.threads(),
                            Math.round((s.requests() - lastRequests) / (t - lastSeconds)), s.connects(), s.errors());
                    out.flush();
                    lastRequests = s.requests();
                    lastSeconds = t;
                }
                if (load.requests.get() == 0) {
                    return new Run(style, samples, null, "no request was answered: " + load.firstError);
                }
                if (load.errors.get() > 0) {
                    out.println(style + ": the load's first error: " + load.firstError);
                }
            }
            int fdSlack = SoakLoad.CHURN_WORKERS + 4;
            return new Run(style, samples, Trend.judge(samples, judgedAfter.toNanos() / 1e9, fdSlack), null);
        } finally {
            server.destroy();                                       // SIGTERM: serve closes cleanly
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly().waitFor();
            }
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
            for (String f : List.of("out", "err")) {
                Files.deleteIfExists(dir.resolve(f));
            }
            Files.deleteIfExists(dir);
        }
    }

    /** The server's RSS, threads and open descriptors, and the load's counters so far. */
    private static Trend.Sample sample(long pid, double seconds, SoakLoad load) throws IOException {
        ProcessStatus p = ProcessStatus.of(pid);
        return new Trend.Sample(seconds, p.rssKib(), p.fds(), p.threads(), load.requests.get(), load.connects.get(),
                load.errors.get());
    }

    /** The port from serve's "… on HOST:PORT, …" line, or -1 if it exited or said nothing for a minute. */
    private static int awaitPort(Process server, Path out) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (System.nanoTime() < deadline) {
            boolean alive = server.isAlive();
            Matcher m = LISTENING.matcher(read(out));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!alive) {
                return -1;
            }
            Thread.sleep(20);
        }
        return -1;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1e3);
    }

    /** 90s, 3m, 1h, 500ms, or a bare number of seconds. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        private static final Pattern FORM = Pattern.compile("(\\d+)(ms|s|m|h)?");

        @Override
        public Duration convert(String value) {
            Matcher m = FORM.matcher(value.strip());
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a time such as 90s, 3m or 500ms");
            }
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2) == null ? "s" : m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofSeconds(n);
            };
        }
    }
}
