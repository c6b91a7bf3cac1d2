package io.uring4j.serve;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The request framing of {@code serve http} (RFC 9112), fed the bytes of one connection as they arrive and
 * answering each complete request through a {@link Responder}; a request may be split over reads and a read may
 * hold any number of pipelined ones. It keeps what decides the framing and the connection's fate:
 * <ul>
 * <li>a body of {@code Content-Length} bytes is skipped, not parsed as requests;</li>
 * <li>a {@code HEAD} request is answered with the header section alone, as a GET's without its body;</li>
 * <li>the connection ends after the response to a request with {@code Connection: close}, or to an HTTP/1.0
 *     request without {@code Connection: keep-alive};</li>
 * <li>refused, and the connection ended: {@code Transfer-Encoding} (501: no body of unknown length is read),
 *     a header section over {@link #MAX_HEADER_BYTES} (431), and anything not an HTTP/1.0 or 1.1 request
 *     (400), such as a bad {@code Content-Length}, a header line without a colon or folded, or garbage.</li>
 * </ul>
 * Once ended it ignores the rest. Allocation-free: each line keeps at most {@value #KEPT} bytes, enough for the
 * header fields it reads; one per connection.
 */
final class HttpRequests {
    /** The largest header section (request line included) accepted: what many servers default to. */
    static final int MAX_HEADER_BYTES = 8 * 1024;
    /** Bytes of each line kept for reading it: a longer line is only counted (a long target, an unread field). */
    private static final int KEPT = 128;

    /** Where the responses go, in request order. */
    @FunctionalInterface
    interface Responder {
        void respond(byte[] response) throws IOException;
    }

    private static final int REQUEST_LINE = 0;
    private static final int HEADERS = 1;
    private static final int BODY = 2;
    private static final int ENDED = 3;

    /** Eight bytes as read from the stream, the first lowest, for the eight-at-a-time LF search. */
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long HIGHS = 0x8080_8080_8080_8080L;
    private static final long LFS = '\n' * ONES;

    private static final long HTTP_1_1 = ascii("HTTP/1.1");
    private static final long HTTP_1_0 = ascii("HTTP/1.0");
    private static final byte[] CONTENT_LENGTH = bytes("content-length");
    private static final byte[] TRANSFER_ENCODING = bytes("transfer-encoding");
    private static final byte[] CONNECTION = bytes("connection");
    private static final byte[] CLOSE = bytes("close");
    private static final byte[] KEEP_ALIVE = bytes("keep-alive");
    private static final byte[] HEAD = bytes("HEAD");

    private final Responder responder;
    private final byte[] line = new byte[KEPT];
    private int lineLength;
    /** The line's last 8 bytes, the newest lowest: the request line's version. */
    private long tail;
    /** A CR came last: dropped if a LF follows (the line's end), else kept as part of the line. */
    private boolean cr;
    private int state = REQUEST_LINE;
    private int headerBytes;

    // The request being read.
    /** A HEAD request: answered with the header section alone. */
    private boolean head;
    private boolean http10;
    private boolean closeAsked;
    private boolean keepAliveAsked;
    private long contentLength = -1;
    private long bodyLeft;

    HttpRequests(Responder responder) {
        this.responder = responder;
    }

    /**
     * Reads {@code data[offset, offset + length)}; returns whether the connection goes on (false: it has had its
     * last response). A line is taken whole up to its LF, found eight bytes at a time, not byte by byte.
     */
    boolean feed(MemorySegment data, long offset, int length) throws IOException {
        long i = offset;
        long end = offset + length;
        while (i < end && state != ENDED) {
            if (state == BODY) {
                long skip = Math.min(bodyLeft, end - i);
                i += skip;
                bodyLeft -= skip;
                if (bodyLeft == 0) {
                    complete();
                }
                continue;
            }
            long lf = indexOfLf(data, i, end);
            long stop = lf < 0 ? end : lf;
            if (headerBytes + (stop - i) + (lf < 0 ? 0 : 1) > MAX_HEADER_BYTES) {
                refuse(431);
                break;
            }
            headerBytes += (int) (stop - i);
            take(data, i, stop);
            if (lf < 0) {
                break;
            }
            headerBytes++;
            cr = false;                         // a CR right before the LF is the line's end, not its content
            endOfLine();
            i = lf + 1;
        }
        return state != ENDED;
    }

    /** The index of the first LF in {@code data[from, to)}, or -1. */
    private static long indexOfLf(MemorySegment data, long from, long to) {
        long i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long x = data.get(WORD, i) ^ LFS;
            long found = (x - ONES) & ~x & HIGHS;   // the lowest set high bit marks the first LF byte exactly
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (data.get(JAVA_BYTE, i) == '\n') {
                return i;
            }
        }
        return -1;
    }

    /**
     * Bytes {@code data[from, to)} of the current line, none of them a LF. A CR is kept back until the next byte
     * shows it is not the line's end.
     */
    private void take(MemorySegment data, long from, long to) {
        if (from == to) {
            return;
        }
        if (cr) {
            append((byte) '\r');                // a CR inside a line: kept as it is (it is in no field read here)
            cr = false;
        }
        long last = to;
        if (data.get(JAVA_BYTE, to - 1) == '\r') {
            cr = true;
            last--;
        }
        int n = (int) (last - from);
        if (lineLength < KEPT) {
            MemorySegment.copy(data, JAVA_BYTE, from, line, lineLength, Math.min(n, KEPT - lineLength));
        }
        lineLength += n;
        for (long j = Math.max(from, last - Long.BYTES); j < last; j++) {
            tail = tail << 8 | (data.get(JAVA_BYTE, j) & 0xff);
        }
    }

    private void append(byte b) {
        if (lineLength < KEPT) {
            line[lineLength] = b;
        }
        lineLength++;
        tail = tail << 8 | (b & 0xff);
    }

    private void endOfLine() throws IOException {
        int n = lineLength;
        long last8 = tail;
        lineLength = 0;
        tail = 0;
        if (state == REQUEST_LINE) {
            if (n > 0) {                        // empty lines before a request are allowed (and counted)
                requestLine(n, last8);
            }
        } else if (n == 0) {
            endOfHeaders();
        } else {
            header(n);
        }
    }

    /** {@code METHOD SP target SP HTTP/1.x}: a method of letters, and the version. */
    private void requestLine(int n, long last8) throws IOException {
        int method = 0;
        while (method < Math.min(n, KEPT) && isLetter(line[method])) {
            method++;
        }
        boolean shaped = method > 0 && method < Math.min(n, KEPT) && line[method] == ' ' && n > method + 9;
        if (!shaped || last8 != HTTP_1_1 && last8 != HTTP_1_0) {
            refuse(400);
            return;
        }
        http10 = last8 == HTTP_1_0;
        head = method == HEAD.length && Arrays.equals(line, 0, method, HEAD, 0, method);   // methods are case-sensitive
        state = HEADERS;
    }

    private void header(int n) throws IOException {
        int kept = Math.min(n, KEPT);
        if (line[0] == ' ' || line[0] == '\t') {
            refuse(400);                        // obsolete line folding: a server must refuse it
            return;
        }
        int colon = 0;
        while (colon < kept && line[colon] != ':') {
            if (line[colon] == ' ' || line[colon] == '\t') {
                refuse(400);                    // no white space in a field name or before its colon
                return;
            }
            colon++;
        }
        if (colon == kept) {
            if (n == kept) {
                refuse(400);                    // no colon at all
            }
            return;                             // a longer name than any field read here
        }
        if (nameIs(colon, TRANSFER_ENCODING)) {
            refuse(501);
        } else if (nameIs(colon, CONTENT_LENGTH)) {
            long value = n > KEPT ? -1 : digits(colon + 1, n);
            if (value < 0 || contentLength >= 0 && contentLength != value) {
                refuse(400);
            } else {
                contentLength = value;
            }
        } else if (nameIs(colon, CONNECTION)) {
            connectionOptions(colon + 1, kept);
        }
    }

    /** The field value {@code line[from, to)} as a decimal number within white space, or -1. */
    private long digits(int from, int to) {
        while (from < to && isSpace(line[from])) {
            from++;
        }
        while (to > from && isSpace(line[to - 1])) {
            to--;
        }
        if (to == from || to - from > 18) {     // none, or more than a long holds
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            if (line[i] < '0' || line[i] > '9') {
                return -1;
            }
            value = value * 10 + line[i] - '0';
        }
        return value;
    }

    /** The comma-separated options of a Connection field in {@code line[from, to)}: close and keep-alive. */
    private void connectionOptions(int from, int to) {
        int start = from;
        for (int i = from; i <= to; i++) {
            if (i == to || line[i] == ',') {
                int a = start;
                int b = i;
                while (a < b && isSpace(line[a])) {
                    a++;
                }
                while (b > a && isSpace(line[b - 1])) {
                    b--;
                }
                closeAsked |= equalsIgnoreCase(a, b, CLOSE);
                keepAliveAsked |= equalsIgnoreCase(a, b, KEEP_ALIVE);
                start = i + 1;
            }
        }
    }

    private void endOfHeaders() throws IOException {
        if (contentLength > 0) {
            bodyLeft = contentLength;
            state = BODY;
        } else {
            complete();
        }
    }

    private void complete() throws IOException {
        boolean persistent = http10 ? keepAliveAsked && !closeAsked : !closeAsked;
        byte[] response = !persistent ? HttpResponse.closing(head)
                : http10 ? HttpResponse.keepAlive10(head) : HttpResponse.keepAlive(head);
        head = false;
        http10 = false;
        closeAsked = false;
        keepAliveAsked = false;
        contentLength = -1;
        headerBytes = 0;
        state = persistent ? REQUEST_LINE : ENDED;
        responder.respond(response);
    }

    private void refuse(int status) throws IOException {
        state = ENDED;
        responder.respond(HttpResponse.refusal(status, head));
    }

    private boolean nameIs(int length, byte[] name) {
        return equalsIgnoreCase(0, length, name);
    }

    /** Whether {@code line[from, to)} is {@code lower} (lower-case ASCII) in any case. */
    private boolean equalsIgnoreCase(int from, int to, byte[] lower) {
        if (to - from != lower.length) {
            return false;
        }
        for (int i = 0; i < lower.length; i++) {
            byte b = line[from + i];
            if ((isLetter(b) ? b | 0x20 : b) != lower[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean isLetter(byte b) {
        return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z';
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t';
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static long ascii(String eight) {
        long v = 0;
        for (byte b : bytes(eight)) {
            v = v << 8 | b;
        }
        return v;
    }
}
