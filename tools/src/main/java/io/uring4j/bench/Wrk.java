package io.uring4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** wrk, the HTTP load generator {@code ./uring4j bench http} drives: finding it, running it, reading its summary. */
final class Wrk implements HttpLoad {
    private static final Pattern RATE = Pattern.compile("(?m)^Requests/sec:\\s+([0-9.]+)");
    private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in ");
    private static final Pattern LATENCY = Pattern.compile("(?m)^\\s*Latency\\s+([0-9.]+)(us|ms|s)\\b");
    private static final Pattern SOCKET_ERRORS =
            Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");
    private static final Pattern PERCENTILES = Pattern.compile("uring4j-latency p50=(\\d+) p99=(\\d+) p99\\.9=(\\d+)");

    private final List<String> prefix;
    private final String binary;
    private final int threads;
    private final int connections;
    private final int pipeline;

    /**
     * {@code pipeline}: requests per write on each connection (1: one at a time, as wrk does without a script);
     * {@code prefix}: what wrk runs under (taskset, say), or nothing.
     */
    Wrk(List<String> prefix, String binary, int threads, int connections, int pipeline) {
        this.prefix = List.copyOf(prefix);
        this.binary = binary;
        this.threads = threads;
        this.connections = connections;
        this.pipeline = pipeline;
    }

    /** wrk on PATH, else /usr/bin/wrk, else null. */
    static String find() {
        String wrk = Bench.onPath("wrk");
        return wrk != null ? wrk : Files.isExecutable(Path.of("/usr/bin/wrk")) ? "/usr/bin/wrk" : null;
    }

    /**
     * Loads {@code http://127.0.0.1:port/} for {@code seconds}; the output is read once wrk has exited. One request
     * at a time, a script reports the percentiles; with a pipeline, the script writes that many requests at a time
     * and there are no percentiles: wrk then records one latency per batch but ranks them by responses, so its
     * percentiles are wrong (p99 comes out as 0).
     */
    @Override
    public Result run(int port, int seconds) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(binary, "-t" + threads, "-c" + connections, "-d" + seconds + "s",
                "http://127.0.0.1:" + port + "/"));
        Path script = Files.createTempFile("uring4j-wrk", ".lua");
        try {
            Files.write(script, resource(pipeline == 1 ? "percentiles.lua" : "pipeline.lua"));
            command.addAll(List.of("-s", script.toString(), "--", Integer.toString(pipeline)));
            return parse(Child.output(command, seconds + 30));
        } finally {
            Files.delete(script);
        }
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream lua = Wrk.class.getResourceAsStream(name)) {
            return lua.readAllBytes();
        }
    }

    /** Reads wrk's summary; a run without a {@code Requests/sec} line is an error that quotes the output. */
    static Result parse(String output) {
        Matcher rate = RATE.matcher(output);
        if (!rate.find()) {
            throw new BenchException("no Requests/sec in wrk's output:\n" + output);
        }
        Matcher requests = REQUESTS.matcher(output);
        long count = requests.find() ? Long.parseLong(requests.group(1)) : 0;
        double latency = 0;
        Matcher l = LATENCY.matcher(output);
        if (l.find()) {
            double scale = switch (l.group(2)) {
                case "us" -> 1;
                case "ms" -> 1e3;
                default -> 1e6;
            };
            latency = Double.parseDouble(l.group(1)) * scale;
        }
        long errors = 0;
        Matcher s = SOCKET_ERRORS.matcher(output);
        if (s.find()) {
            for (int g = 1; g <= 4; g++) {
                errors += Long.parseLong(s.group(g));
            }
        }
        Matcher n = NON_2XX.matcher(output);
        if (n.find()) {
            errors += Long.parseLong(n.group(1));
        }
        Matcher p = PERCENTILES.matcher(output);
        boolean reported = p.find();
        return new Result(count, Double.parseDouble(rate.group(1)), latency, errors,
                reported ? Long.parseLong(p.group(1)) : 0, reported ? Long.parseLong(p.group(2)) : 0,
                reported ? Long.parseLong(p.group(3)) : 0);
    }

    /** {@code wrk -t1 -c64 -d10s}, and the pipeline depth if any. */
    @Override
    public String describe(int seconds) {
        return String.format(Locale.ROOT, "wrk -t%d -c%d -d%ds", threads, connections, seconds)
                + (pipeline == 1 ? "" : ", " + pipeline + " requests pipelined");
    }
}
