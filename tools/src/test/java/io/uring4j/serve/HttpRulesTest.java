package io.uring4j.serve;

import io.uring4j.runtime.Uring;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

import static io.uring4j.serve.Servers.readToEnd;
import static io.uring4j.serve.Servers.responses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP/1.1 rules {@code serve http} keeps, in both styles, as a client on the wire sees them: the connection
 * ends (end of stream after the last response) when the request says so, a body is skipped by its length,
 * what it cannot frame is refused and the connection ended, and connections idle or dribbling a header for the
 * idle timeout are closed. A server that broke a rule would leave the client waiting: the socket's 30 s read
 * timeout (and the test's) turns that into a failure.
 */
@Timeout(60)
class HttpRulesTest {
    private static final Duration IDLE_TIMEOUT = Duration.ofMillis(500);

    private Uring uring;

    @BeforeEach
    void open() throws Exception {
        uring = Uring.builder().loops(2).build();
    }

    @AfterEach
    void close() {
        uring.close();
    }

    /** Sends {@code request} and reads until the server ends the stream. */
    private String exchange(String style, String request) throws IOException {
        try (Server server = Servers.start(uring, style, true, Duration.ofSeconds(30));
             Socket socket = Servers.connect(server)) {
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            return readToEnd(socket);
        }
    }

    @Test
    void theDateIsAnImfFixdate() {
        ZonedDateTime fourth = ZonedDateTime.of(2026, 12, 4, 23, 5, 9, 0, ZoneOffset.UTC);
        assertThat(HttpResponse.IMF_FIXDATE.format(fourth)).isEqualTo("Fri, 04 Dec 2026 23:05:09 GMT");
    }

    /** The Date header may change between two responses. */
    private static String withoutDate(String response) {
        return response.replaceAll("\r\nDate: [^\r]*", "");
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void connectionCloseEndsTheConnectionAfterItsResponse(String style) throws IOException {
        String got = exchange(style, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" + Servers.GET);
        assertThat(responses(got)).as(got).isEqualTo(1);
        assertThat(got).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nConnection: close\r\n").endsWith("Hello, World!");
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void http10EndsTheConnectionUnlessAskedToKeepIt(String style) throws IOException {
        String kept = "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";
        String got = exchange(style, kept + kept + "GET / HTTP/1.0\r\n\r\n" + kept);
        assertThat(responses(got)).as(got).isEqualTo(3);
        assertThat(got.split("\r\nConnection: keep-alive\r\n", -1)).as(got).hasSize(3);
        assertThat(got).endsWith("Hello, World!");
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void aBodyIsSkippedByItsLength(String style) throws IOException {
        // The body is five empty lines, what a server that ignored Content-Length would read as requests.
        String got = exchange(style, "POST /form HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n"
                + "\r\n\r\n".repeat(5) + "GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
        assertThat(responses(got)).as(got).isEqualTo(2);
    }

    /**
     * A HEAD request gets the header section a GET would get and no body (RFC 9110 9.3.2): a body after it
     * would be read as the start of the next response.
     */
    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void headGetsTheHeadersOfGetAndNoBody(String style) throws IOException {
        String got = exchange(style, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n" + Servers.GET
                + "HEAD / HTTP/1.1\r\nConnection: close\r\n\r\n");
        assertThat(responses(got)).as(got).isEqualTo(3);
        String[] parts = got.split("(?=HTTP/1\\.1 )");
        assertThat(parts[1]).as("the GET between them").endsWith("\r\n\r\nHello, World!");
        String getHeaders = parts[1].substring(0, parts[1].length() - "Hello, World!".length());
        assertThat(withoutDate(parts[0])).as(got).isEqualTo(withoutDate(getHeaders));
        assertThat(parts[2]).as(got).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nContent-Length: 13\r\n")
                .endsWith("\r\nConnection: close\r\n\r\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void transferEncodingIsRefusedAndTheConnectionEnded(String style) throws IOException {
        String got = exchange(style, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nGET\r\n0\r\n\r\n" + Servers.GET);
        assertThat(responses(got)).as(got).isEqualTo(1);
        assertThat(got).startsWith("HTTP/1.1 501 Not Implemented\r\n").contains("\r\nConnection: close\r\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void anOversizedHeaderSectionIsRefusedAndTheConnectionEnded(String style) throws IOException {
        String got = exchange(style, "GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + "a".repeat(HttpRequests.MAX_HEADER_BYTES));
        assertThat(responses(got)).as(got).isEqualTo(1);
        assertThat(got).startsWith("HTTP/1.1 431 Request Header Fields Too Large\r\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void garbageIsRefusedAndTheConnectionEnded(String style) throws IOException {
        String got = exchange(style, "\u0000\u0001\u00ff\u0016\u0003\u0001 hello\r\n\r\n" + Servers.GET);
        assertThat(responses(got)).as(got).isEqualTo(1);
        assertThat(got).startsWith("HTTP/1.1 400 Bad Request\r\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void idleConnectionsAreClosedAfterTheIdleTimeout(String style) throws Exception {
        try (Server server = Servers.start(uring, style, true, IDLE_TIMEOUT);
             Socket silent = Servers.connect(server); Socket keptAlive = Servers.connect(server)) {
            keptAlive.getOutputStream().write(Servers.GET.getBytes(StandardCharsets.US_ASCII));
            assertThat(readToEnd(silent)).isEmpty();
            String got = readToEnd(keptAlive);
            assertThat(responses(got)).as(got).isEqualTo(1);
        }
    }

    /** Slowloris: a header that never ends, a byte at a time, well inside the timeout each. */
    @ParameterizedTest
    @ValueSource(strings = {"loop", "vthread"})
    void aHeaderDribbledSlowerThanTheIdleTimeoutIsClosed(String style) throws Exception {
        try (Server server = Servers.start(uring, style, true, IDLE_TIMEOUT); Socket socket = Servers.connect(server)) {
            OutputStream out = socket.getOutputStream();
            Thread dribbler = Thread.ofVirtual().start(() -> {
                try {
                    out.write("GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
                    byte[] field = "X-Dribble: 1\r\n".getBytes(StandardCharsets.US_ASCII);
                    for (int i = 0; ; i++) {
                        out.write(field[i % field.length]);
                        Thread.sleep(IDLE_TIMEOUT.toMillis() / 10);
                    }
                } catch (IOException | InterruptedException closed) {
                    // the server ended the connection (or the test did)
                }
            });
            try {
                assertThat(readToEnd(socket)).isEmpty();
            } finally {
                dribbler.interrupt();
            }
        }
    }
}
