package io.uring4j.bench.peers;

import io.uring4j.serve.HttpResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

import static org.assertj.core.api.Assertions.assertThat;

/** Every peer of {@code bench http} answers as {@code ./uring4j serve http} does: same bytes, kept alive, pipelined. */
class PeerTest {
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n";

    @ParameterizedTest
    @FieldSource("io.uring4j.bench.peers.Peer#NAMES")
    void answersKeptAliveAndPipelinedRequestsWithUring4jsBytes(String name) throws Exception {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (Peer.Server server = Peer.start(name, any, 1); Socket socket = new Socket()) {
            socket.connect(server.address(), 10_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());

            out.write(ascii(GET));
            assertIsTheResponse(readResponse(in));

            // the same connection: two pipelined requests in one write, then one split inside its terminator
            out.write(ascii(GET + GET + GET.substring(0, GET.length() - 3)));
            out.flush();
            assertIsTheResponse(readResponse(in));
            assertIsTheResponse(readResponse(in));
            out.write(ascii("\n\r\n"));
            assertIsTheResponse(readResponse(in));
        }
    }

    /** The bytes of {@link HttpResponse} exactly, but for the Date, which must be a current RFC 1123 date. */
    private static void assertIsTheResponse(String response) {
        String expected = new String(HttpResponse.bytes(), StandardCharsets.US_ASCII);
        assertThat(withoutDate(response)).isEqualTo(withoutDate(expected));
        String date = response.replaceFirst("(?s).*\r\nDate: ([^\r]*)\r\n.*", "$1");
        assertThat(ZonedDateTime.parse(date, DateTimeFormatter.RFC_1123_DATE_TIME))
                .isBetween(ZonedDateTime.now().minusMinutes(1), ZonedDateTime.now().plusMinutes(1));
    }

    private static String withoutDate(String response) {
        return response.replaceFirst("\r\nDate: [^\r]*\r\n", "\r\nDate: -\r\n");
    }

    /** One response: the head up to its blank line, then the 13 bytes of body its Content-Length announces. */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream response = new ByteArrayOutputStream();
        int tail = 0;
        while (tail != 0x0d0a0d0a) {
            int b = in.read();
            assertThat(b).as("EOF inside a response head: %s", response).isNotNegative();
            response.write(b);
            tail = tail << 8 | b;
        }
        assertThat(response.toString(StandardCharsets.US_ASCII)).contains("\r\nContent-Length: 13\r\n");
        response.write(in.readNBytes(13));
        return response.toString(StandardCharsets.US_ASCII);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
