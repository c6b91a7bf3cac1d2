package io.uring4j.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** Reading wrk's summary: requests, throughput, mean latency in any unit, errors counted from both error lines. */
class WrkTest {
    @Test
    void readsRateAndLatencyOfACleanRun() {
        HttpLoad.Result r = Wrk.parse("""
                Running 1s test @ http://127.0.0.1:18080/
                  1 threads and 8 connections
                  Thread Stats   Avg      Stdev     Max   +/- Stdev
                    Latency    19.39ms   50.62ms 236.82ms   88.53%
                    Req/Sec    31.16k    17.32k   48.14k    75.00%
                  25021 requests in 1.03s, 3.13MB read
                Requests/sec:  24354.66
                Transfer/sec:      3.04MB
                """);
        assertThat(r.requests()).isEqualTo(25021);
        assertThat(r.requestsPerSecond()).isEqualTo(24354.66);
        assertThat(r.latencyMicros()).isCloseTo(19390, within(1e-6));
        assertThat(r.errors()).isZero();
    }

    @Test
    void addsSocketErrorsAndNon2xxAnswers() {
        HttpLoad.Result r = Wrk.parse("""
                Running 2s test @ http://127.0.0.1:8080/
                  1 threads and 64 connections
                  Thread Stats   Avg      Stdev     Max   +/- Stdev
                    Latency   812.50us  100.00us   3.00ms   80.00%
                    Req/Sec    70.00k     1.00k   72.00k    70.00%
                  140000 requests in 2.00s, 17.36MB read
                  Socket errors: connect 1, read 2, write 3, timeout 4
                  Non-2xx or 3xx responses: 5
                Requests/sec:  70000.00
                Transfer/sec:      8.68MB
                """);
        assertThat(r.requests()).isEqualTo(140000);
        assertThat(r.requestsPerSecond()).isEqualTo(70000.0);
        assertThat(r.latencyMicros()).isCloseTo(812.5, within(1e-9));
        assertThat(r.errors()).isEqualTo(15);
    }

    @Test
    void readsThePercentilesOurScriptPrints() {
        HttpLoad.Result r = Wrk.parse("""
                  140000 requests in 2.00s, 17.36MB read
                Requests/sec:  70000.00
                uring4j-latency p50=640 p99=2210 p99.9=5120
                """);
        assertThat(r.p50Micros()).isEqualTo(640);
        assertThat(r.p99Micros()).isEqualTo(2210);
        assertThat(r.p999Micros()).isEqualTo(5120);
        assertThat(Pinning.parseCpuList("0-2,5")).containsExactly(0, 1, 2, 5);
    }

    @Test
    void outputWithoutARateIsAnErrorQuotingIt() {
        assertThatThrownBy(() -> Wrk.parse("unable to connect to 127.0.0.1:18081 Connection refused\n"))
                .isInstanceOf(BenchException.class)
                .hasMessageContaining("no Requests/sec").hasMessageContaining("Connection refused");
    }
}
