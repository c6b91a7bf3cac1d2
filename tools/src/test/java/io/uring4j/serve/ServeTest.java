package io.uring4j.serve;

import io.uring4j.ring.Engine;
import io.uring4j.runtime.Uring;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** Both server styles of {@code ./uring4j serve}: HTTP keep-alive with pipelining, and echo. */
class ServeTest {
    private static final String GET = Servers.GET;

    private static Server start(Uring uring, String style, boolean http) throws IOException {
        return Servers.start(uring, style, http, Duration.ofSeconds(30));
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

    /**
     * Keep-alive GETs cost the loop no allocation: the request framing, the idle sweep's clock and the
     * responses' bytes are all per connection or per second. The allowance is TcpLoopTest's: the JDK's
     * 40-byte segment per errno-capturing downcall (one per enter).
     */
    @org.junit.jupiter.api.Test
    void loopStyleHttpAllocatesNothingPerRequest() throws Exception {
        assumeFalse(Engine.configured() == Engine.portable(),
                "portable engine: its own system calls run on the loop thread and allocate per downcall");
        try (Uring uring = Uring.builder().loops(1).build(); Server server = start(uring, "loop", true);
             Socket socket = new Socket()) {
            java.util.concurrent.CompletableFuture<Long> loopThread = new java.util.concurrent.CompletableFuture<>();
            uring.loop(0).execute(() -> loopThread.complete(Thread.currentThread().threadId()));
            socket.connect(server.address());
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] request = GET.getBytes(StandardCharsets.US_ASCII);
            int responseLength = HttpResponse.bytes().length;
            byte[] response = new byte[responseLength];
            Runnable roundTrips = () -> {
                try {
                    for (int i = 0; i < 5_000; i++) {
                        out.write(request);
                        // A response's length changes only with the day of the month (the Date).
                        in.readNBytes(response, 0, responseLength);
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            roundTrips.run();                   // warm up: JIT, first-use allocations
            roundTrips.run();
            var mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long enters = uring.loop(0).stats().enters();
            long before = mx.getThreadAllocatedBytes(loopThread.get());
            roundTrips.run();
            long allocated = mx.getThreadAllocatedBytes(loopThread.get()) - before;
            enters = uring.loop(0).stats().enters() - enters;
            assertThat(new String(response, StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200 OK").endsWith("Hello, World!");
            assertThat(allocated).as("bytes the loop allocated for 5,000 requests in %d enters", enters)
                    .isLessThan(48 * enters + 4096);
        }
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
