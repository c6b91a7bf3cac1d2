package io.uring4j.serve;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Counts complete HTTP/1.1 requests in a byte stream by their header terminator {@code \r\n\r\n}, carrying the
 * partial match across reads: a pipelined batch is any number of requests per read, and a request may be split
 * over reads. Enough for the plaintext benchmark's bodiless GETs; a request with a body is not supported (its
 * body would be scanned as headers). Allocation-free; one per connection. The framing of the benchmark's peer
 * servers ({@code io.uring4j.bench.peers}); {@code serve} itself frames requests fully ({@link HttpRequests}),
 * which costs it a little more per request than the peers pay.
 */
public final class RequestSplitter {
    /** {@link #advance}'s answer when a byte completes a request's terminator. */
    public static final int COMPLETE = 4;

    /** How many bytes of "\r\n\r\n" the stream currently ends with. */
    private int matched;

    /** Scans {@code data[0, length)}; returns how many requests it completed. */
    public int scan(MemorySegment data, int length) {
        int requests = 0;
        int m = matched;
        for (int i = 0; i < length; i++) {
            m = advance(m, data.get(JAVA_BYTE, i));
            if (m == COMPLETE) {
                requests++;
                m = 0;
            }
        }
        matched = m;
        return requests;
    }

    /**
     * One step: given how many bytes of "\r\n\r\n" the stream ended with and the next byte, how many it ends
     * with now; {@link #COMPLETE} when the terminator is whole (start again from 0). For callers that walk a
     * buffer type of their own, byte by byte.
     */
    public static int advance(int matched, byte b) {
        if (b == '\r') {
            return matched == 2 ? 3 : 1;
        }
        if (b == '\n' && (matched == 1 || matched == 3)) {
            return matched + 1;
        }
        return 0;
    }
}
