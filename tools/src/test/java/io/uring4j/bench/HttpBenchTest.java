package io.uring4j.bench;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@code ./uring4j bench http}: its options, and one short real run of two servers in child JVMs under wrk. */
class HttpBenchTest {
    @Test
    void unknownServerAndBadRangesExitWith2AndSayWhich() {
        BenchRun run = BenchRun.of("http", "--servers", "uring4j-loop,apache", "--rounds", "0", "--wrk-threads", "65",
                "--pipeline", "0");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("no server named 'apache'").contains("--rounds must be 1..1000")
                .contains("--wrk-threads must be 1..connections").contains("--pipeline must be 1..1024")
                .contains("Usage: uring4j bench http");
    }

    @Test
    void aServerNamedTwiceIsRefused() {
        BenchRun run = BenchRun.of("http", "--servers", "netty-nio,netty-nio");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("at most once");
    }

    @Test
    void appsAddsEachApplicationWithItsTwinAfterTheServersNamed() {
        assertThat(validated("--apps").servers).containsExactly("jetty", "jetty+uring4j", "netty-codec",
                "netty-codec+uring4j", "tomcat-nio2", "tomcat-nio2+uring4j", "tomcat-nio", "tomcat-nio+uring4j");
        assertThat(validated("--servers", "uring4j-loop,netty-codec", "--apps").servers).containsExactly(
                "uring4j-loop", "netty-codec", "jetty", "jetty+uring4j", "netty-codec+uring4j", "tomcat-nio2",
                "tomcat-nio2+uring4j", "tomcat-nio", "tomcat-nio+uring4j");
    }

    @Test
    void onlyTheJdksAndOtherProjectsServersHaveTwins() {
        BenchRun run = BenchRun.of("http", "--servers", "netty-epoll+uring4j,uring4j-loop+uring4j");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("no server named 'netty-epoll+uring4j'")
                .contains("no server named 'uring4j-loop+uring4j'");
    }

    /**
     * A twin and its application side by side: the flag-on / flag-off ratios once uring4j's selector provider is
     * built; until then the bench refuses before any server runs, naming the class missing.
     */
    @Test
    void anApplicationAndItsTwinGetTheirRatioOrAClearRefusal() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/wrk")), "wrk is not installed (apt-get install wrk)");
        BenchRun run = BenchRun.of("http", "--duration", "1", "--warmup", "0", "--rounds", "1", "--connections", "4",
                "--servers", "jetty,jetty+uring4j", "--json");
        try {
            Class.forName("io.uring4j.net.UringSelectorProvider");
        } catch (ClassNotFoundException notBuiltYet) {
            assertThat(run.status()).as(run.out()).isEqualTo(1);
            assertThat(run.err()).contains("jetty+uring4j must run on io.uring4j.net.UringSelectorProvider"
                    + " (-Djava.nio.channels.spi.SelectorProvider=io.uring4j.net.UringSelectorProvider) but"
                    + " io.uring4j.net.UringSelectorProvider is not on the class path.");
            assertThat(run.out()).doesNotContain("req/s");
            return;
        }
        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(run.out()).contains("jetty+uring4j / jetty").containsPattern(
                "\"ratios\":\\{\"jetty\\+uring4j/jetty\":\\{\"req_per_s\":[0-9.]+,\"cpu_per_req\":[0-9.]+,\"p99\":[0-9.]+}}");
    }

    private static HttpBench validated(String... args) {
        HttpBench bench = new HttpBench(System.out, System.err);
        new CommandLine(bench).parseArgs(args);
        bench.validate();
        return bench;
    }

    /** Pinned (the server on one CPU, wrk on the other): rates, latency percentiles, CPU per request, the ratio. */
    @Test
    void oneRoundOfTwoPinnedServersPrintsTheirRatesAndTheRatio() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/wrk")), "wrk is not installed (apt-get install wrk)");
        assumeTrue(Pinning.allowedCpus().size() >= 2, "--pin needs two CPUs");
        BenchRun run = BenchRun.of("http", "--duration", "1", "--warmup", "0", "--rounds", "1", "--connections", "8",
                "--servers", "uring4j-loop,netty-iouring", "--pin", "--json");

        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(run.out()).contains("wrk -t1 -c8 -d1s").contains("uring4j-loop / netty-iouring")
                .containsPattern("server on CPU \\d+, wrk on CPU \\d");
        var json = Child.parseJson(run.out());
        assertThat(json).containsEntry("engine", "kernel").containsEntry("rounds", "1");
        for (String server : new String[]{"uring4j-loop", "netty-iouring"}) {
            Matcher m = Pattern.compile("\"" + server + "\":\\{\"req_per_s\":([0-9.]+),\"latency_us\":[0-9.]+,"
                    + "\"p50_us\":(\\d+),\"p99_us\":(\\d+),\"p999_us\":(\\d+),"
                    + "\"cpu_us_per_req\":([0-9.]+),\"errors\":(\\d+),\"cpu_us_per_req_by_thread\":\\{\"app\":[0-9.]+,"
                    + "\"uring4j\":([0-9.]+),\"jit\":[0-9.]+,\"gc\\+vm\":[0-9.]+}}").matcher(run.out());
            assertThat(m.find()).as(run.out()).isTrue();
            assertThat(Double.parseDouble(m.group(1))).as("req/s").isPositive();
            long p50 = Long.parseLong(m.group(2));
            long p99 = Long.parseLong(m.group(3));
            assertThat(p50).as("p50 us").isPositive().isLessThanOrEqualTo(p99);
            assertThat(Long.parseLong(m.group(4))).as("p99.9 us").isGreaterThanOrEqualTo(p99);
            assertThat(Double.parseDouble(m.group(5))).as("cpu us/req").isPositive();
            assertThat(m.group(6)).as("errors").isEqualTo("0");
            if (server.equals("uring4j-loop")) {
                assertThat(Double.parseDouble(m.group(7))).as("its loops' CPU per request").isPositive();
            }
        }
        assertThat(run.out()).contains("cpu us/req by thread").containsPattern(
                "\"ratios\":\\{\"uring4j-loop/netty-iouring\":\\{\"req_per_s\":[0-9.]+,\"cpu_per_req\":[0-9.]+,\"p99\":[0-9.]+}}");
    }

    /**
     * --rate: every server gets the same offered load from the fixed-rate client; the answers can never outrun it,
     * and every request scheduled is answered.
     */
    @Test
    void aFixedRateIsOfferedToEachServer() {
        BenchRun run = BenchRun.of("http", "--rate", "2000", "--duration", "1", "--warmup", "0", "--rounds", "1",
                "--connections", "8", "--servers", "uring4j-vthread,jdk-vthread", "--json");

        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(run.out()).contains("2,000 requests/s offered over 8 connections for 1 s")
                .contains("uring4j-vthread / jdk-vthread").containsPattern("\"p99\":[0-9.]*[1-9]");
        for (String server : new String[]{"uring4j-vthread", "jdk-vthread"}) {
            Matcher m = Pattern.compile("\"" + server + "\":\\{\"req_per_s\":([0-9.]+),\"latency_us\":[0-9.]+,"
                    + "\"p50_us\":(\\d+),\"p99_us\":(\\d+),.*?\"errors\":(\\d+),").matcher(run.out());
            assertThat(m.find()).as(run.out()).isTrue();
            assertThat(Double.parseDouble(m.group(1))).as("answers/s").isPositive().isLessThanOrEqualTo(2000 * 1.05);
            assertThat(Long.parseLong(m.group(2))).as("p50").isPositive()
                    .isLessThanOrEqualTo(Long.parseLong(m.group(3)));
            assertThat(m.group(4)).as("errors").isEqualTo("0");
        }
    }

    @Test
    void aFixedRateTakesNoWrkOptions() {
        BenchRun run = BenchRun.of("http", "--rate", "1000", "--pipeline", "16");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--rate offers its own load");
    }

    /** --idle: connections that asked once and stay open; memory per connection, CPU and iowait while idle. */
    @Test
    void idleConnectionsAreMeasuredPerServer() {
        BenchRun run = BenchRun.of("http", "--idle", "300", "--duration", "1", "--rounds", "1",
                "--servers", "uring4j-loop,netty-iouring");

        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(run.out()).contains("300 idle connections for 1 s per run")
                .containsPattern("(?m)^uring4j-loop +300 +[0-9.]+ +[0-9.]+ +-?[0-9.]+ +\\d+ +\\d+$")
                .containsPattern("(?m)^netty-iouring +300 ")
                .containsPattern("uring4j-loop / netty-iouring, memory per idle connection: -?[0-9.]+");
        assertThat(BenchRun.of("http", "--idle", "-1").err()).contains("--idle must be 0..");
    }

    @Test
    void pipelinedRequestsAreAllAnsweredByBothStylesOfServer() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/wrk")), "wrk is not installed (apt-get install wrk)");
        BenchRun run = BenchRun.of("http", "--duration", "1", "--warmup", "0", "--rounds", "1", "--connections", "4",
                "--pipeline", "8", "--servers", "uring4j-loop,uring4j-vthread", "--json");

        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(run.out()).contains("wrk -t1 -c4 -d1s, 8 requests pipelined");
        for (String server : new String[]{"uring4j-loop", "uring4j-vthread"}) {
            Matcher m = Pattern.compile("\"" + server + "\":\\{\"req_per_s\":([0-9.]+),.*?\"errors\":(\\d+),")
                    .matcher(run.out());
            assertThat(m.find()).as(run.out()).isTrue();
            // wrk writes a connection's next 8 only once all 8 are answered: a server answering fewer stalls at 4
            assertThat(Double.parseDouble(m.group(1))).as("req/s: more than one pipeline per connection")
                    .isGreaterThan(4 * 8);
            assertThat(m.group(2)).as("non-2xx answers and socket errors").isEqualTo("0");
        }
    }
}
