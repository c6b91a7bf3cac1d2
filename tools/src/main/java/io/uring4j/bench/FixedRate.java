package io.uring4j.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bench http --rate N}: the same request rate offered to every server, by a {@link FixedRateClient} in a JVM
 * of its own, so that servers compare by latency and CPU at equal load rather than by how much load they absorb.
 */
final class FixedRate implements HttpLoad {
    private static final Pattern SUMMARY = Pattern.compile(FixedRateClient.SUMMARY + " requests=(\\d+) measured=(\\d+)"
            + " rate=([0-9.]+) mean=([0-9.]+) p50=(\\d+) p99=(\\d+) p99\\.9=(\\d+) max=(\\d+) errors=(\\d+)");

    private final List<String> prefix;
    private final int connections;
    private final int rate;

    /** {@code rate} requests a second in all, over {@code connections}; {@code prefix}: taskset, say, or nothing. */
    FixedRate(List<String> prefix, int connections, int rate) {
        this.prefix = List.copyOf(prefix);
        this.connections = connections;
        this.rate = rate;
    }

    @Override
    public Result run(int port, int seconds) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(Child.javaCommand(FixedRateClient.class.getName()));
        command.addAll(List.of(Integer.toString(port), Integer.toString(connections), Integer.toString(rate),
                Integer.toString(seconds)));
        return parse(Child.output(command, seconds + 30));
    }

    /** Reads the client's summary line; output without one is an error that quotes it. */
    static Result parse(String output) {
        Matcher m = SUMMARY.matcher(output);
        if (!m.find()) {
            throw new BenchException("no summary from the fixed-rate client:\n" + output);
        }
        return new Result(Long.parseLong(m.group(1)), Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)),
                Long.parseLong(m.group(9)), Long.parseLong(m.group(5)), Long.parseLong(m.group(6)),
                Long.parseLong(m.group(7)));
    }

    @Override
    public String describe(int seconds) {
        return String.format(Locale.ROOT, "%,d requests/s offered over %d connections for %d s (open loop; latency"
                + " from each request's scheduled time)", rate, connections, seconds);
    }
}
