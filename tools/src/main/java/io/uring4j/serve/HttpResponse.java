package io.uring4j.serve;

import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The plaintext benchmark's response, {@code 200 text/plain "Hello, World!"}, as ready bytes. The Date header
 * (required of an HTTP/1.1 origin server with a clock) changes once a second; a daemon thread rebuilds the
 * bytes then, so the request path only reads a volatile reference and allocates nothing. Public for the
 * benchmark's peer servers ({@code io.uring4j.bench.peers}), which send the very same bytes.
 */
public final class HttpResponse {
    private static volatile byte[] current = build();

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
        return current;
    }

    private static byte[] build() {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
        return ("HTTP/1.1 200 OK\r\n"
                + "Server: uring4j\r\n"
                + "Content-Type: text/plain\r\n"
                + "Content-Length: 13\r\n"
                + "Date: " + date + "\r\n"
                + "\r\n"
                + "Hello, World!").getBytes(StandardCharsets.US_ASCII);
    }
}
