package io.uring4j.serve;

import io.uring4j.cli.ToolProcess;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./uring4j serve} as a user meets it: bad options refused by name (exit 2) before any work, a server that
 * cannot start says why in one line (exit 1), the default address is loopback, a port in use is refused unless
 * shared on purpose, and SIGTERM stops it with its runtime closed. (A test that started a server in process by
 * mistake would wait for Ctrl-C: the timeout ends it.)
 */
@Timeout(120)
class ServeCommandTest {
    private static final String LISTENING = "Ctrl-C to stop";

    record Outcome(int status, String err) {
    }

    /** In process: only for runs that end before serving. */
    private static Outcome serve(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Serve.run(args, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Outcome(status, err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--port -1        | --port must be 0..65535",
        "--port 65536     | --port must be 0..65535",
        "--threads 0      | --threads must be 1..",
        "--threads -1     | --threads must be 1..",
        "--threads 100000 | --threads must be 1..",
        "--host no-such-host.invalid | --host no-such-host.invalid does not resolve",
        "--batch-wait-us -1 | --batch-wait-us must be 0 (off) or a positive number",
        "--idle-timeout-ms 0 | --idle-timeout-ms must be 1..86400000"})
    void badOptionsAreRefusedByNameWithStatus2(String options, String message) {
        Outcome o = serve(("http " + options).split(" +"));
        assertThat(o.status()).as(o.err()).isEqualTo(2);
        assertThat(o.err().lines().findFirst()).hasValueSatisfying(l -> assertThat(l).contains(message));
        assertThat(o.err()).doesNotContain("Exception", "\tat ");
    }

    @Test
    void theThreadBoundIsFourPerCpu() {
        int max = 4 * Runtime.getRuntime().availableProcessors();
        assertThat(Serve.MAX_THREADS).isEqualTo(max);
        assertThat(serve("http", "--threads", Integer.toString(max + 1)).err()).contains("--threads must be 1.." + max);
    }

    @Test
    void anAddressNotOfThisMachineIsOneLineWithItsErrno() {
        Outcome o = serve("http", "--host", "192.0.2.1", "--port", "8080");   // TEST-NET-1: nobody's address
        assertThat(o.status()).isEqualTo(1);
        assertThat(o.err().strip()).doesNotContain("\n").startsWith("uring4j serve: bind ")
                .contains("EADDRNOTAVAIL", "--host must be an address of this machine");
    }

    @Test
    void bindErrorsSayWhatToDo() {
        assertThat(Serve.describe(new java.net.SocketException("x", new ErrnoException("bind /127.0.0.1:80", Errno.EACCES))))
                .isEqualTo("bind /127.0.0.1:80: EACCES (Permission denied) — ports below 1024 need root or"
                        + " CAP_NET_BIND_SERVICE");
    }

    /** A server already on the port — one that lets others share it, as a first serve does — is not joined silently. */
    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void aPortInUseIsRefusedUnlessSharingIsAskedFor(String style) throws Exception {
        try (ServerSocketChannel first = ServerSocketChannel.open()) {
            first.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            first.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            String port = Integer.toString(((InetSocketAddress) first.getLocalAddress()).getPort());

            try (ToolProcess refused = ToolProcess.run(60, Serve.class, List.of(), "http", "--style", style,
                    "--port", port)) {
                assertThat(refused.status()).as(refused.toString()).isEqualTo(1);
                assertThat(refused.errLines()).singleElement().asString().startsWith("uring4j serve: bind ")
                        .contains("EADDRINUSE", "--reuse-port");
            }

            try (ToolProcess shared = ToolProcess.start(Serve.class, List.of(), "http", "--style", style, "--port", port,
                    "--reuse-port")) {
                assertThat(shared.awaitOutput(60, l -> l.contains(LISTENING))).as(shared.toString()).isTrue();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void servesOnLoopbackByDefaultAndStopsOnSigterm(String style) throws Exception {
        try (ToolProcess server = ToolProcess.start(Serve.class, List.of(), "http", "--style", style, "--port", "0",
                "--threads", "2")) {
            assertThat(server.awaitOutput(60, l -> l.contains(LISTENING))).as(server.toString()).isTrue();
            assertThat(server.out()).contains(" on 127.0.0.1:");
            server.terminate();
            assertThat(server.awaitExit(10)).as("exited after SIGTERM: " + server).isTrue();
            // The shutdown hook ran: it reports each loop, then closes the server and the runtime.
            assertThat(server.err()).contains("loop 0:", "loop 1:").doesNotContain("Exception");
        }
    }
}
