package io.uring4j.bench;

import java.io.IOException;

/** What loads a server under {@code bench http}: wrk's closed loop ({@link Wrk}) or a fixed rate ({@link FixedRate}). */
interface HttpLoad {
    /**
     * One run's summary: the requests answered (what CPU per request divides by), the measured throughput, mean
     * latency and its percentiles (microseconds; 0 where the load reports none), and what went wrong (socket errors,
     * non-2xx answers, requests never answered).
     */
    record Result(long requests, double requestsPerSecond, double latencyMicros, long errors, long p50Micros,
                  long p99Micros, long p999Micros) {
    }

    /** Loads {@code http://127.0.0.1:port/} for {@code seconds}. */
    Result run(int port, int seconds) throws IOException, InterruptedException;

    /** The load in a few words, for the table's heading. */
    String describe(int seconds);
}
