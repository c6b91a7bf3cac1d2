package io.uring4j.serve;

import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The responses of {@code serve http} as ready bytes: the plaintext benchmark's {@code 200 text/plain
 * "Hello, World!"} (as is, or saying the connection closes or, to an HTTP/1.0 client, stays open) and the
 * refusals of requests it will not serve; each also without its body, the answer to a HEAD request (RFC 9110
 * 9.3.2: the header section GET would get). The Date header (required of an HTTP/1.1 origin server with a
 * clock) changes once a second; a daemon thread rebuilds them all then, so the request path only reads a
 * volatile reference and allocates nothing. Public for the benchmark's peer servers ({@code io.uring4j.bench.peers}),
 * which send the very same bytes.
 */
public final class HttpResponse {
    /** RFC 9110's IMF-fixdate: a two-digit day, where the JDK's RFC_1123_DATE_TIME writes "4 Dec". */
    static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC);

    /** One second's responses with their bodies, or without (for HEAD): they share their Date. */
    private record Responses(byte[] keepAlive, byte[] keepAlive10, byte[] closing, byte[] badRequest,
                             byte[] headersTooLarge, byte[] notImplemented) {
    }

    private record Second(Responses withBody, Responses head) {
    }

    private static volatile Second current = build();

    static {
        Thread.ofPlatform().daemon().name("uring4j-http-date").start(() -> {
            while (true) {
                try {
                    Thread.sleep(1000 - System.currentTimeMillis() % 1000);
                } catch (InterruptedException e) {
                    return;
                }
                current = build();
            }
        });
    }

    private HttpResponse() {
    }

    /** The current response; a new array once a second, never changed after it is published. Do not modify. */
    public static byte[] bytes() {
        return current.withBody.keepAlive;
    }

    /** {@link #bytes()}, or for {@code head} its header section alone. */
    static byte[] keepAlive(boolean head) {
        return of(head).keepAlive;
    }

    /** {@link #keepAlive} with {@code Connection: close}: the last response on its connection. */
    static byte[] closing(boolean head) {
        return of(head).closing;
    }

    /** {@link #keepAlive} with {@code Connection: keep-alive}: an HTTP/1.0 client needs it to keep its connection. */
    static byte[] keepAlive10(boolean head) {
        return of(head).keepAlive10;
    }

    /**
     * The refusal with {@code status} (400, 431 or 501): its reason as the body (none for {@code head}), and
     * {@code Connection: close}.
     */
    static byte[] refusal(int status, boolean head) {
        Responses r = of(head);
        return switch (status) {
            case 400 -> r.badRequest;
            case 431 -> r.headersTooLarge;
            case 501 -> r.notImplemented;
            default -> throw new IllegalArgumentException("no refusal with status " + status);
        };
    }

    private static Responses of(boolean head) {
        Second s = current;
        return head ? s.head : s.withBody;
    }

    private static Second build() {
        String date = "Date: " + IMF_FIXDATE.format(ZonedDateTime.now(ZoneOffset.UTC)) + "\r\n";
        return new Second(build(date, false), build(date, true));
    }

    private static Responses build(String date, boolean head) {
        return new Responses(hello(date, "", head), hello(date, "Connection: keep-alive\r\n", head),
                hello(date, "Connection: close\r\n", head), refusal(date, "400 Bad Request", head),
                refusal(date, "431 Request Header Fields Too Large", head), refusal(date, "501 Not Implemented", head));
    }

    private static byte[] hello(String date, String connection, boolean head) {
        return response("200 OK", date, connection, "Hello, World!", head);
    }

    private static byte[] refusal(String date, String status, boolean head) {
        return response(status, date, "Connection: close\r\n", status + "\n", head);
    }

    /** The response; for {@code head}, its header section alone (Content-Length still the body's). */
    private static byte[] response(String status, String date, String connection, String body, boolean head) {
        return ("HTTP/1.1 " + status + "\r\n"
                + "Server: uring4j\r\n"
                + "Content-Type: text/plain\r\n"
                + "Content-Length: " + body.length() + "\r\n"
                + date
                + connection
                + "\r\n"
                + (head ? "" : body)).getBytes(StandardCharsets.US_ASCII);
    }
}
