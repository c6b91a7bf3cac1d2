package io.uring4j.serve;

import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The responses of {@code serve http} as ready bytes: the plaintext benchmark's {@code 200 text/plain
 * "Hello, World!"} (as is, or saying the connection closes or, to an HTTP/1.0 client, stays open) and the
 * refusals of requests it will not serve. The Date header (required of an HTTP/1.1 origin server with a clock)
 * changes once a second; a daemon thread rebuilds them all then, so the request path only reads a volatile
 * reference and allocates nothing. Public for the benchmark's peer servers ({@code io.uring4j.bench.peers}),
 * which send the very same bytes.
 */
public final class HttpResponse {
    /** One second's responses: they share their Date. */
    private record Responses(byte[] keepAlive, byte[] keepAlive10, byte[] closing, byte[] badRequest,
                             byte[] headersTooLarge, byte[] notImplemented) {
    }

    private static volatile Responses current = build();

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
        return current.keepAlive;
    }

    /** {@link #bytes()} with {@code Connection: close}: the last response on its connection. */
    static byte[] closing() {
        return current.closing;
    }

    /** {@link #bytes()} with {@code Connection: keep-alive}, which an HTTP/1.0 client needs to keep its connection. */
    static byte[] keepAlive10() {
        return current.keepAlive10;
    }

    /** The refusal with {@code status} (400, 431 or 501): its reason as the body, and {@code Connection: close}. */
    static byte[] refusal(int status) {
        Responses r = current;
        return switch (status) {
            case 400 -> r.badRequest;
            case 431 -> r.headersTooLarge;
            case 501 -> r.notImplemented;
            default -> throw new IllegalArgumentException("no refusal with status " + status);
        };
    }

    private static Responses build() {
        String date = "Date: " + DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)) + "\r\n";
        return new Responses(hello(date, ""), hello(date, "Connection: keep-alive\r\n"),
                hello(date, "Connection: close\r\n"), refusal(date, "400 Bad Request"),
                refusal(date, "431 Request Header Fields Too Large"), refusal(date, "501 Not Implemented"));
    }

    private static byte[] hello(String date, String connection) {
        return ("HTTP/1.1 200 OK\r\n"
                + "Server: uring4j\r\n"
                + "Content-Type: text/plain\r\n"
                + "Content-Length: 13\r\n"
                + date
                + connection
                + "\r\n"
                + "Hello, World!").getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] refusal(String date, String status) {
        String body = status + "\n";
        return ("HTTP/1.1 " + status + "\r\n"
                + "Server: uring4j\r\n"
                + "Content-Type: text/plain\r\n"
                + "Content-Length: " + body.length() + "\r\n"
                + date
                + "Connection: close\r\n"
                + "\r\n"
                + body).getBytes(StandardCharsets.US_ASCII);
    }
}
