package io.uring4j.serve;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/** A running {@code serve} server of either style. */
interface Server extends AutoCloseable {
    /** The bound address (with the port picked when asked for port 0). */
    InetSocketAddress address();

    /** Stops accepting and ends the connections; the runtime stays open. */
    @Override
    void close() throws IOException;

    /**
     * How often an HTTP server looks for connections idle past {@code idleTimeout}: a quarter of it, from 10 ms
     * to 1 s. A connection is closed between one timeout and a timeout and a period after its last response.
     */
    static Duration sweepPeriod(Duration idleTimeout) {
        return Duration.ofNanos(Math.clamp(idleTimeout.toNanos() / 4, 10_000_000L, 1_000_000_000L));
    }
}
