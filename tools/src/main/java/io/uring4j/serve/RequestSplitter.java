package io.uring4j.serve;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Counts complete HTTP/1.1 requests in a byte stream by their header terminator {@code \r\n\r\n}, carrying the
 * partial match across reads: a pipelined batch is any number of requests per read, and a request may be split
 * over reads. Enough for the plaintext benchmark's bodiless GETs; a request with a body is not supported (its
 * body would be scanned as headers). Allocation-free; one per connection.
 */
final class RequestSplitter {
    /** How many bytes of "\r\n\r\n" the stream currently ends with. */
    private int matched;

    /** Scans {@code data[0, length)}; returns how many requests it completed. */
    int scan(MemorySegment data, int length) {
        int requests = 0;
        int m = matched;
        for (int i = 0; i < length; i++) {
            byte b = data.get(JAVA_BYTE, i);
            if (b == '\r') {
                m = (m == 2) ? 3 : 1;
            } else if (b == '\n' && (m == 1 || m == 3)) {
                if (++m == 4) {
                    requests++;
                    m = 0;
                }
            } else {
                m = 0;
            }
        }
        matched = m;
        return requests;
    }
}
