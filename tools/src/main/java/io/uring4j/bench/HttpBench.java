package io.uring4j.bench;

import io.uring4j.bench.peers.Peer;
import io.uring4j.serve.Serve;
import io.uring4j.sys.LibC;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

import static io.uring4j.bench.CompareC.max;
import static io.uring4j.bench.CompareC.median;
import static io.uring4j.bench.CompareC.min;

/**
 * {@code ./uring4j bench http}: uring4j's HTTP/1.1 plaintext server in both styles against its peers (Netty on
 * io_uring, epoll and NIO; the JDK's virtual-thread server), all answering the same bytes. Each server runs
 * alone in a child JVM (this JVM's java and class path) while wrk loads it over loopback; the servers take
 * turns, in the given order and then backwards round after round (compared servers sit side by side in the
 * default order), so whatever else the machine does hits them all. Prints medians, the server's CPU time per
 * request (steadier than req/s on a busy machine), and the median per-round ratios the network issue sets
 * targets for. The applications (Jetty, Netty's HTTP codec, Tomcat) run also as {@link UringTwin}s, unmodified
 * on uring4j's java.nio providers through the JDK's provider flags; each pair gets its flag-on / flag-off ratios.
 */
@Command(name = "http", sortOptions = false, usageHelpWidth = 110,
        description = {"HTTP/1.1 plaintext under wrk: uring4j's servers and their peers, alternating; medians"
                + " and ratios.", ""},
        footer = {"", "Examples:",
            "  ./uring4j bench http                                  every server, 3 rounds of 10 s",
            "  ./uring4j bench http --duration 5 --servers uring4j-loop,netty-iouring",
            "  ./uring4j bench http --engine portable                uring4j on the portable engine",
            "  ./uring4j bench http --apps                           Jetty, Netty's codec, Tomcat: flag off and on",
            "  ./uring4j bench http --servers jetty,jetty+uring4j    one application, flag off and on",
            "  ./uring4j bench http --wrk-threads 2 --pipeline 16    load that wrk alone cannot give on 2 cores",
            "  ./uring4j bench http --pin --rate 20000               p99 latency at the same offered load"})
final class HttpBench implements Callable<Integer> {
    static final List<String> SERVERS = Stream.of(Stream.of("uring4j-loop", "uring4j-vthread"), Peer.NAMES.stream(),
            Peer.APPS.stream(), UringTwin.ALL.stream().map(UringTwin::name)).flatMap(s -> s).toList();

    /** {@code --apps}: each application without and with its provider flag. */
    static final List<String> APP_PAIRS =
            Peer.APPS.stream().flatMap(app -> Stream.of(app, app + UringTwin.SUFFIX)).toList();

    /** A ratio the table reports: {@code numerator / denominator}, with the target (kernel engine). */
    private record Ratio(String numerator, String denominator, double target, boolean portableOnly) {
    }

    private static final List<Ratio> RATIOS = List.of(
            new Ratio("uring4j-loop", "netty-iouring", 1.1, false),
            new Ratio("uring4j-vthread", "jdk-vthread", 1.3, false),
            new Ratio("uring4j-loop", "netty-epoll", 0, true));

    @Option(names = "--duration", paramLabel = "SECONDS", description = "measured seconds per run (default: 10)")
    int duration = 10;

    @Option(names = "--warmup", paramLabel = "SECONDS",
            description = "unmeasured wrk runs before each measurement, for the JIT: two of SECONDS each, the "
                    + "second on new connections (default: 2)")
    int warmup = 2;

    @Option(names = "--connections", paramLabel = "N", description = "wrk -c: connections (default: 64)")
    int connections = 64;

    @Option(names = "--wrk-threads", paramLabel = "N", description = "wrk -t: load threads (default: 1)")
    int wrkThreads = 1;

    @Option(names = "--pipeline", paramLabel = "N",
            description = "requests each connection writes at once, as TechEmpower's plaintext test does with 16"
                    + " (default: 1)")
    int pipeline = 1;

    @Option(names = "--threads", paramLabel = "N",
            description = "event loops per server (default: 1); jdk-vthread has none")
    int threads = 1;

    @Option(names = "--rounds", paramLabel = "N", description = "runs per server, alternating (default: 3)")
    int rounds = 3;

    @Option(names = "--servers", paramLabel = "NAME", split = ",",
            defaultValue = "uring4j-loop,netty-iouring,uring4j-vthread,jdk-vthread,netty-epoll,netty-nio",
            description = "which, comma-separated (default: ${DEFAULT-VALUE}); also jetty, netty-codec,"
                    + " tomcat-nio2, tomcat-nio and, on uring4j's java.nio providers, jetty+uring4j,"
                    + " netty-codec+uring4j, tomcat-nio2+uring4j, tomcat-nio+uring4j, netty-nio+uring4j,"
                    + " jdk-vthread+uring4j")
    List<String> servers;

    @Option(names = "--apps", description = "the applications jetty, netty-codec, tomcat-nio2 and tomcat-nio, each"
            + " without and"
            + " with its '+uring4j' twin; after the --servers named, or alone instead of the default servers")
    boolean apps;

    @Option(names = "--engine", paramLabel = "ENGINE",
            description = "uring4j's engine (-During4j.engine): ${COMPLETION-CANDIDATES} (default: kernel)")
    BenchOptions.EngineName engine = BenchOptions.EngineName.kernel;

    @Option(names = "--pin", description = "each server on one CPU, wrk on the others (taskset): the server is the"
            + " bottleneck, so req/s, CPU per request and latency are its own, not a share of a CPU fought over")
    boolean pin;

    @Option(names = "--rate", paramLabel = "N", description = "instead of wrk: N requests per second offered in all"
            + " over --connections, whatever the server answers (open loop); latency runs from each request's"
            + " scheduled time, so p99 compares servers at equal load. Best with --pin: the client spins on its CPU")
    int rate;

    @Option(names = "--idle", paramLabel = "N", description = "instead of wrk: N connections that each ask once and"
            + " stay open; prints each server's memory per idle connection, its CPU and the iowait over --duration idle s")
    int idle;

    @Option(names = "--json", description = "print a JSON summary as the last line")
    boolean json;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
    boolean help;

    @Spec
    CommandSpec spec;

    private final PrintStream out;
    private final PrintStream err;

    HttpBench(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() throws Exception {
        validate();
        servers.stream().flatMap(s -> UringTwin.named(s).stream()).forEach(UringTwin::requireOnClassPath);
        Pinning pinning = pin ? Pinning.split() : Pinning.NONE;
        if (idle > 0) {
            return idleRounds(pinning);
        }
        HttpLoad load = rate > 0 ? new FixedRate(pinning.wrk(), connections, rate) : wrk(pinning);
        int n = servers.size();
        out.printf(Locale.ROOT, "uring4j bench http: %s (after 2 x %d s of warm-up) per run, %d round(s), %d loop(s)"
                + " per server, %s engine%s%n", load.describe(duration), warmup, rounds, threads, engine,
                pinning.describe());
        Sample[][] results = new Sample[n][rounds];
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < n; k++) {
                int i = round % 2 == 0 ? k : n - 1 - k;
                String name = servers.get(i);
                Suite.progress(err, String.format(Locale.ROOT, "round %d/%d, %s: running", round + 1, rounds, name));
                results[i][round] = measure(name, load, pinning);
                Suite.progress(err, String.format(Locale.ROOT, "round %d/%d, %s: %.0f req/s", round + 1, rounds, name,
                        results[i][round].requestsPerSecond()));
            }
        }
        Suite.progressDone(err);
        printTables(load, results);
        return 0;
    }

    private HttpLoad wrk(Pinning pinning) {
        String binary = Wrk.find();
        if (binary == null) {
            throw new BenchException("wrk not found (on PATH or /usr/bin/wrk): apt-get install wrk");
        }
        return new Wrk(pinning.wrk(), binary, wrkThreads, connections, pipeline);
    }

    /** {@code --idle}: the servers take turns holding idle connections, as they take turns under wrk. */
    private int idleRounds(Pinning pinning) throws IOException, InterruptedException {
        out.printf(Locale.ROOT, "uring4j bench http --idle: %d idle connections for %d s per run, %d round(s), %d loop(s)"
                + " per server, %s engine%s%n", idle, duration, rounds, threads, engine, pinning.describe());
        int n = servers.size();
        IdleConnections.Sample[][] results = new IdleConnections.Sample[n][rounds];
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < n; k++) {
                int i = round % 2 == 0 ? k : n - 1 - k;
                String name = servers.get(i);
                Suite.progress(err, String.format(Locale.ROOT, "round %d/%d, %s: %d idle connections", round + 1,
                        rounds, name, idle));
                try (ServerProcess server = ServerProcess.start(name, engine, threads, pinning.server())) {
                    results[i][round] = IdleConnections.measure(server, idle, duration);
                }
            }
        }
        Suite.progressDone(err);
        IdleConnections.print(out, servers, results, duration);
        return 0;
    }

    void validate() {
        if (apps) {
            boolean named = spec.commandLine().getParseResult().hasMatchedOption("--servers");
            servers = Stream.concat(named ? servers.stream() : Stream.empty(),
                    APP_PAIRS.stream().filter(a -> !named || !servers.contains(a))).toList();
        }
        String bad = "";
        if (duration < 1 || duration > 3600) {
            bad += "--duration must be 1..3600 seconds; ";
        }
        if (warmup < 0 || warmup > 600) {
            bad += "--warmup must be 0..600 seconds; ";
        }
        if (connections < 1 || connections > 100_000) {
            bad += "--connections must be 1..100000; ";
        }
        if (wrkThreads < 1 || wrkThreads > connections) {
            bad += "--wrk-threads must be 1..connections; ";
        }
        if (pipeline < 1 || pipeline > 1024) {
            bad += "--pipeline must be 1..1024; ";
        }
        if (threads < 1 || threads > Serve.MAX_THREADS) {
            bad += "--threads must be 1.." + Serve.MAX_THREADS + " (serve's bound: 4 per CPU); ";
        }
        long[] limit = LibC.getrlimit(LibC.RLIMIT_NOFILE);
        long descriptors = limit == null ? 1024 : limit[0] < 0 ? Long.MAX_VALUE : limit[0];      // -1: unlimited
        if (idle < 0 || idle > descriptors - 1000) {
            bad += "--idle must be 0.." + (descriptors - 1000) + " (this process may open " + descriptors
                    + " descriptors, and each connection takes one; raise ulimit -n for more); ";
        }
        if (rate < 0 || rate > 10_000_000) {
            bad += "--rate must be 0..10000000 requests per second (0: wrk's closed loop); ";
        }
        if (rate > 0 && (pipeline != 1 || wrkThreads != 1 || idle > 0)) {
            bad += "--rate offers its own load: without --pipeline, --wrk-threads and --idle; ";
        }
        if (rounds < 1 || rounds > 1000) {
            bad += "--rounds must be 1..1000; ";
        }
        for (String s : servers) {
            if (!SERVERS.contains(s)) {
                bad += "--servers: no server named '" + s + "' (" + String.join(", ", SERVERS) + "); ";
            }
        }
        if (servers.isEmpty() || servers.stream().distinct().count() != servers.size()) {
            bad += "--servers must name each server at most once; ";
        }
        if (!bad.isEmpty()) {
            throw new ParameterException(spec.commandLine(), bad.substring(0, bad.length() - 2));
        }
    }

    /**
     * One server's run: the load's summary, the server JVM's CPU time (all its threads) per request, and that time
     * by the threads' groups.
     */
    record Sample(HttpLoad.Result wrk, double cpuMicrosPerRequest, Map<ThreadCpu.Group, Double> cpuByGroup) {
        double requestsPerSecond() {
            return wrk.requestsPerSecond();
        }
    }

    /** Starts the server in its own JVM, waits for its port, warms it up, measures it, and stops it. */
    private Sample measure(String name, HttpLoad wrk, Pinning pinning) throws IOException, InterruptedException {
        try (ServerProcess server = ServerProcess.start(name, engine, threads, pinning.server())) {
            // Closing the first run's connections takes paths the JIT has not seen: it throws the hot code away
            // (uncommon traps). The second run has it compiled again before the measured one starts.
            for (int run = 0; run < 2 && warmup > 0; run++) {
                wrk.run(server.port(), warmup);
            }
            ThreadCpu threadsBefore = server.threadCpu();
            long cpuBefore = server.cpuNanos();
            HttpLoad.Result result = wrk.run(server.port(), duration);
            long cpu = server.cpuNanos() - cpuBefore;
            Map<ThreadCpu.Group, Long> byGroup = server.threadCpu().since(threadsBefore);
            if (result.requests() == 0) {
                throw new BenchException(name + " answered no request in " + duration + " s:\n" + server.output());
            }
            Map<ThreadCpu.Group, Double> perRequest = new EnumMap<>(ThreadCpu.Group.class);
            byGroup.forEach((group, nanos) -> perRequest.put(group, nanos / 1e3 / result.requests()));
            return new Sample(result, cpu / 1e3 / result.requests(), perRequest);
        }
    }

    private void printTables(HttpLoad wrk, Sample[][] results) {
        List<String> serverJson = printServers(results);
        printThreads(results);
        List<String> ratioJson = printRatios(results);
        out.println();
        out.println("req/s, latency and cpu: medians over the rounds; range: the lowest and highest round's req/s;");
        if (rate > 0) {
            out.println("req/s: answers per second (the offered rate, if the server keeps up); avg, p50, p99, p99.9:");
            out.println("latency from each request's scheduled time; errors include requests never answered.");
        } else {
            out.println("avg, p50, p99, p99.9: wrk's latency, mean and percentiles (none when pipelined: wrk gets them");
            out.println("wrong there).");
        }
        out.println("cpu: the server JVM's CPU time (every thread, user + kernel) per request. A ratio is the median");
        out.println("of the per-round ratios; cpu/req below 1: the first server spends less CPU per request; p99");
        out.println("below 1: its 99th latency percentile is lower. errors: socket errors and non-2xx answers, over");
        out.println("all rounds. cpu us/req by thread: the same time by the threads' names, medians: the");
        out.println("application's, uring4j's own (its send flusher, loops), the JIT compilers', the GC's and VM's.");
        if (servers.stream().anyMatch(s -> UringTwin.named(s).isPresent())) {
            out.println("NAME+uring4j / NAME: the same application, unmodified, with uring4j's java.nio provider flag");
            out.println("over without it: req/s above 1 and cpu/req below 1: it serves faster and cheaper on uring4j.");
        }
        if (json) {
            out.printf(Locale.ROOT, "{\"http\":{\"load\":\"%s\",\"rounds\":%d,\"threads\":%d,\"engine\":\"%s\","
                            + "\"servers\":{%s},\"ratios\":{%s}}}%n", wrk.describe(duration), rounds, threads, engine,
                    String.join(",", serverJson), String.join(",", ratioJson));
        }
        out.flush();
    }

    /** One row per server; returns their JSON members. */
    private List<String> printServers(Sample[][] results) {
        List<String> json = new ArrayList<>();
        String fmt = "%-20s %8s  %-13s %8s %8s %8s %8s %10s %6s%n";
        out.printf(fmt, "server", "req/s", "range", "avg us", "p50 us", "p99 us", "p99.9 us", "cpu us/req", "errors");
        for (int i = 0; i < servers.size(); i++) {
            Sample[] runs = results[i];
            double[] rps = Arrays.stream(runs).mapToDouble(Sample::requestsPerSecond).toArray();
            double latency = medianOf(runs, r -> r.wrk().latencyMicros());
            double p50 = medianOf(runs, r -> r.wrk().p50Micros());
            double p99 = medianOf(runs, r -> r.wrk().p99Micros());
            double p999 = medianOf(runs, r -> r.wrk().p999Micros());
            double cpu = medianOf(runs, Sample::cpuMicrosPerRequest);
            long errors = Arrays.stream(runs).mapToLong(r -> r.wrk().errors()).sum();
            out.printf(fmt, servers.get(i), whole(median(rps)), whole(min(rps)) + ".." + whole(max(rps)),
                    whole(latency), orDash(p50), orDash(p99), orDash(p999), String.format(Locale.ROOT, "%.2f", cpu), errors);
            json.add(String.format(Locale.ROOT, "\"%s\":{\"req_per_s\":%.1f,\"latency_us\":%.1f,\"p50_us\":%.0f,"
                    + "\"p99_us\":%.0f,\"p999_us\":%.0f,\"cpu_us_per_req\":%.3f,\"errors\":%d,"
                    + "\"cpu_us_per_req_by_thread\":{%s}}", servers.get(i), median(rps), latency, p50, p99, p999, cpu,
                    errors, String.join(",", Arrays.stream(ThreadCpu.Group.values())
                            .map(g -> String.format(Locale.ROOT, "\"%s\":%.3f", g.label, cpuOf(runs, g))).toList())));
        }
        return json;
    }

    /** The median over {@code runs} of the CPU per request of {@code group}'s threads. */
    private static double cpuOf(Sample[] runs, ThreadCpu.Group group) {
        return medianOf(runs, r -> r.cpuByGroup().get(group));
    }

    /** The servers' CPU per request by thread group: what the application spent, and what ran beside it. */
    private void printThreads(Sample[][] results) {
        String fmt = "%-20s %10s %10s %10s %10s%n";
        out.println();
        out.printf(fmt, "cpu us/req by thread", ThreadCpu.Group.APP.label, ThreadCpu.Group.URING4J.label,
                ThreadCpu.Group.JIT.label, ThreadCpu.Group.JVM.label);
        for (int i = 0; i < servers.size(); i++) {
            Sample[] runs = results[i];
            String[] cells = Arrays.stream(ThreadCpu.Group.values())
                    .map(g -> String.format(Locale.ROOT, "%.2f", cpuOf(runs, g))).toArray(String[]::new);
            out.printf(fmt, servers.get(i), cells[0], cells[1], cells[2], cells[3]);
        }
    }

    /** One row per ratio whose servers both ran; returns their JSON members. */
    private List<String> printRatios(Sample[][] results) {
        List<String> json = new ArrayList<>();
        Stream<Ratio> twins = UringTwin.ALL.stream().map(t -> new Ratio(t.name(), t.app(), 0, false));
        for (Ratio r : Stream.concat(RATIOS.stream(), twins).toList()) {
            int a = servers.indexOf(r.numerator());
            int b = servers.indexOf(r.denominator());
            if (a < 0 || b < 0 || r.portableOnly() && engine != BenchOptions.EngineName.portable) {
                continue;
            }
            double[] ratios = new double[rounds];
            double[] cpuRatios = new double[rounds];
            double[] p99Ratios = new double[rounds];
            for (int round = 0; round < rounds; round++) {
                Sample x = results[a][round];
                Sample y = results[b][round];
                ratios[round] = x.requestsPerSecond() / y.requestsPerSecond();
                cpuRatios[round] = x.cpuMicrosPerRequest() / y.cpuMicrosPerRequest();
                p99Ratios[round] = y.wrk().p99Micros() == 0 ? 0 : x.wrk().p99Micros() / (double) y.wrk().p99Micros();
            }
            double p99 = median(p99Ratios);
            double median = median(ratios);
            // At a fixed rate every server answers the same req/s; the target is then a p99 no higher than its peer's.
            String target = r.target() == 0 || engine != BenchOptions.EngineName.kernel ? ""
                    : rate > 0 ? "p99 <= 1 " + (p99 > 0 && p99 <= 1 ? "met" : "MISSED")
                    : String.format(Locale.ROOT, ">= %.1f %s", r.target(), median >= r.target() ? "met" : "MISSED");
            String fmt = "%-36s %6s  %-15s %9s %7s  %s%n";
            if (json.isEmpty()) {
                out.printf("%n" + fmt, "ratio (req/s)", "median", "range", "cpu/req", "p99", "target");
            }
            out.printf(fmt, r.numerator() + " / " + r.denominator(), f3(median),
                    f3(min(ratios)) + ".." + f3(max(ratios)), f3(median(cpuRatios)), p99 == 0 ? "-" : f3(p99), target);
            json.add(String.format(Locale.ROOT, "\"%s/%s\":{\"req_per_s\":%.4f,\"cpu_per_req\":%.4f,"
                    + "\"p99\":%.4f}", r.numerator(), r.denominator(), median, median(cpuRatios), p99));
        }
        return json;
    }

    private static double medianOf(Sample[] runs, ToDoubleFunction<Sample> value) {
        return median(Arrays.stream(runs).mapToDouble(value).toArray());
    }

    private static String f3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** A percentile, or "-" where wrk gave none (pipelined runs). */
    private static String orDash(double v) {
        return v == 0 ? "-" : whole(v);
    }

    private static String whole(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
