package io.uring4j.serve;

import io.uring4j.runtime.Uring;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Both server styles of {@code ./uring4j serve}: HTTP keep-alive with pipelining, and echo. */
class ServeTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n";

    private interface Server extends AutoCloseable {
        InetSocketAddress address() throws IOException;

        @Override
        void close() throws IOException;
    }

    private static Server start(Uring uring, String style, boolean http) throws IOException {
        if (style.equals("loop")) {
            LoopStyle s = new LoopStyle(uring, ANY_PORT, http);
            return new Server() {
                public InetSocketAddress address() {
                    return s.address();
                }

                public void close() {
                    s.close();
                }
            };
        }
        ThreadStyle s = new ThreadStyle(uring, ANY_PORT, http, false);
        return new Server() {
            public InetSocketAddress address() throws IOException {
                return s.address();
            }

            public void close() throws IOException {
                s.close();
            }
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void httpAnswersPipelinedRequestsSplitAcrossWrites(String style) throws Exception {
        try (Uring uring = Uring.builder().loops(2).build(); Server server = start(uring, style, true);
             Socket socket = new Socket()) {
            socket.connect(server.address());
            OutputStream out = socket.getOutputStream();
            // 16 pipelined requests, then one cut in the middle of its terminator: 17 answers once it is whole.
            out.write(GET.repeat(16).getBytes(StandardCharsets.US_ASCII));
            out.write(GET.substring(0, GET.length() - 3).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(50);
            out.write("\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String responses = readResponses(socket.getInputStream(), 17);
            assertThat(responses.split("HTTP/1.1 200 OK", -1)).hasSize(18);
            assertThat(responses).contains("Content-Type: text/plain\r\n", "Content-Length: 13\r\n", "Date: ");
            assertThat(responses).endsWith("\r\n\r\nHello, World!");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void echoSendsEveryByteBack(String style) throws Exception {
        byte[] data = new byte[1 << 20];
        new java.util.Random(1).nextBytes(data);
        try (Uring uring = Uring.builder().loops(1).build(); Server server = start(uring, style, false);
             Socket socket = new Socket()) {
            socket.connect(server.address());
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    socket.getOutputStream().write(data);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            byte[] back = socket.getInputStream().readNBytes(data.length);
            writer.join();
            assertThat(back).isEqualTo(data);
        }
    }

    private static String readResponses(InputStream in, int count) throws IOException {
        StringBuilder all = new StringBuilder();
        byte[] buf = new byte[8192];
        while (all.toString().split("Hello, World!", -1).length - 1 < count) {
            int n = in.read(buf);
            assertThat(n).as("EOF before %d responses: %s", count, all).isPositive();
            all.append(new String(buf, 0, n, StandardCharsets.US_ASCII));
        }
        return all.toString();
    }

    @org.junit.jupiter.api.Test
    void aNegativeBatchWaitIsRefusedByName() {
        java.io.StringWriter err = new java.io.StringWriter();
        int exit = new picocli.CommandLine(new Serve()).setErr(new java.io.PrintWriter(err))
                .execute("http", "--port", "0", "--batch-wait-us", "-1");
        assertThat(exit).isNotZero();
        assertThat(err.toString()).contains("--batch-wait-us must be 0 (off) or a positive number");
    }
}
