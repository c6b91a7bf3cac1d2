package io.uring4j.serve;

import io.uring4j.cli.ToolProcess;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code serve} run out of descriptors by more clients than its RLIMIT_NOFILE allows (issue 26 finding 1), as a
 * user sees it: a fresh process, its limit lowered from outside once it listens, 200 clients at once that then let
 * go. Service must resume by itself. What a fresh process has not loaded yet matters here: a class path of
 * directories needs a descriptor for each class it loads, so a path first taken while descriptors are out (a
 * connection's close, say) could fail for good and leak the connection's descriptor.
 */
class ServeOutOfDescriptorsTest {
    private static final Pattern PORT = Pattern.compile("on 127\\.0\\.0\\.1:(\\d+)");
    private static final byte[] GET = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void serviceResumesOnceClientsLetGo(String style) throws Exception {
        try (ToolProcess server = ToolProcess.start(Serve.class, List.of(), "http", "--style", style, "--port", "0")) {
            assertThat(server.awaitOutput(60, l -> l.contains("Ctrl-C to stop"))).as(server.toString()).isTrue();
            Matcher m = PORT.matcher(server.out());
            assertThat(m.find()).as(server.out()).isTrue();
            int port = Integer.parseInt(m.group(1));
            long inUse;
            try (Stream<Path> fds = Files.list(Path.of("/proc/" + server.pid() + "/fd"))) {
                inUse = fds.count();
            }
            long limit = inUse + 24;
            Process prlimit = new ProcessBuilder("prlimit", "--pid", Long.toString(server.pid()),
                    "--nofile=" + limit + ":" + limit).inheritIO().start();
            assertThat(prlimit.waitFor()).as("prlimit").isZero();

            List<Socket> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    clients.add(new Socket(InetAddress.getLoopbackAddress(), port));    // the backlog holds them
                }
                Thread.sleep(500);                  // the server accepts until it runs out
            } finally {
                for (Socket c : clients) {
                    c.close();
                }
            }
            for (int i = 0; i < 20; i++) {
                assertThat(answered(port)).as("fresh request %d after the clients let go: %s", i, server).isTrue();
            }
        }
    }

    /** Whether a fresh connection gets an HTTP answer within 20 s (the acceptor pauses up to a second at a time). */
    private static boolean answered(int port) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(GET);
            InputStream in = s.getInputStream();
            byte[] head = in.readNBytes(12);
            return new String(head, StandardCharsets.US_ASCII).equals("HTTP/1.1 200");
        } catch (java.net.SocketTimeoutException e) {
            return false;
        }
    }
}
