package io.uring4j.bench;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The applications of {@code bench http} (Jetty, Netty's HTTP codec, Tomcat on NIO2), each started as the bench
 * starts it — a child JVM, flag off — answer kept-alive and pipelined requests as the peers do, and stop on
 * SIGTERM.
 */
class ApplicationServersTest {
    private static final int SIGTERM_STATUS = 128 + 15;

    @ParameterizedTest
    @FieldSource("io.uring4j.bench.peers.Peer#APPS")
    void answersAsThePeersDoAndStopsOnSigterm(String app) throws Exception {
        ServerProcess server = ServerProcess.start(app, BenchOptions.EngineName.kernel, 1);
        try {
            PlaintextExchange.run(server.port());
        } finally {
            int status = server.stop();
            assertThat(status).as("exit status after SIGTERM:\n%s", server.output()).isEqualTo(SIGTERM_STATUS);
        }
    }
}
