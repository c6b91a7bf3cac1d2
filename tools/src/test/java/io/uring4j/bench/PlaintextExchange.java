package io.uring4j.bench;

import io.uring4j.serve.HttpResponse;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every server of {@code bench http} must do on one connection — answer a request, then pipelined ones,
 * one of them split inside its terminator — and what it must answer: {@code serve http}'s response (which the
 * peers send byte for byte) as an application sends it: the same status, the same header fields and values in
 * any order (a current Date), the same body bytes.
 */
final class PlaintextExchange {
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n";

    /** A parsed response: its status code, its header fields by name, its body. */
    record Answer(int status, Map<String, String> headers, byte[] body) {
    }

    private PlaintextExchange() {
    }

    /** Four requests on one kept-alive connection to {@code port} on 127.0.0.1, each answer checked. */
    static void run(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());

            out.write(ascii(GET));
            assertIsTheResponse(read(in));

            out.write(ascii(GET + GET + GET.substring(0, GET.length() - 3)));
            out.flush();
            assertIsTheResponse(read(in));
            assertIsTheResponse(read(in));
            out.write(ascii("\n\r\n"));
            assertIsTheResponse(read(in));
        }
    }

    static void assertIsTheResponse(Answer answer) throws IOException {
        Answer expected = read(new ByteArrayInputStream(HttpResponse.bytes()));
        assertThat(answer.status()).isEqualTo(expected.status());
        assertThat(answer.body()).as("body").isEqualTo(expected.body());
        assertThat(answer.headers()).containsOnlyKeys(expected.headers().keySet());
        Map<String, String> withoutDate = new TreeMap<>(answer.headers());
        withoutDate.put("Date", expected.headers().get("Date"));
        assertThat(withoutDate).isEqualTo(expected.headers());
        assertThat(ZonedDateTime.parse(answer.headers().get("Date"), DateTimeFormatter.RFC_1123_DATE_TIME))
                .isBetween(ZonedDateTime.now().minusMinutes(1), ZonedDateTime.now().plusMinutes(1));
    }

    /** One response: its head up to the blank line, then the body its Content-Length announces. */
    static Answer read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        for (int tail = 0; tail != 0x0d0a0d0a; ) {
            int b = in.read();
            assertThat(b).as("EOF inside a response head: %s", head).isNotNegative();
            head.write(b);
            tail = tail << 8 | b;
        }
        String[] lines = head.toString(StandardCharsets.US_ASCII).split("\r\n");
        assertThat(lines[0]).as("status line").matches("HTTP/1\\.1 \\d{3} ?.*");
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            assertThat(headers.put(lines[i].substring(0, colon), lines[i].substring(colon + 1).trim()))
                    .as("%s sent twice", lines[i]).isNull();
        }
        assertThat(headers).containsKey("Content-Length");
        byte[] body = in.readNBytes(Integer.parseInt(headers.get("Content-Length")));
        return new Answer(Integer.parseInt(lines[0].substring(9, 12)), headers, body);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
