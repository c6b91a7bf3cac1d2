package io.uring4j.bench;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code bench http --rate}: the client's answer parser and the summary the bench reads from it. */
class FixedRateTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n"
            + "Hello, World!";
    private static final String NOT_FOUND = "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n";

    @Test
    void findsEachAnswerWhateverTheReadsCutItInto() {
        byte[] stream = (OK + NOT_FOUND + OK).getBytes(StandardCharsets.US_ASCII);
        for (int piece = 1; piece <= stream.length; piece++) {
            FixedRateClient.ResponseParser parser = new FixedRateClient.ResponseParser();
            List<Integer> statuses = new ArrayList<>();
            for (int from = 0; from < stream.length; from += piece) {
                ByteBuffer in = ByteBuffer.wrap(stream, from, Math.min(piece, stream.length - from));
                int status;
                while ((status = parser.next(in)) != 0) {
                    statuses.add(status);
                }
                assertThat(in.hasRemaining()).as("piece %d consumed", piece).isFalse();
            }
            assertThat(statuses).as("pieces of %d bytes", piece).containsExactly(200, 404, 200);
        }
    }

    @Test
    void anAnswerWithoutItsWholeBodyIsNotCountedYet() {
        FixedRateClient.ResponseParser parser = new FixedRateClient.ResponseParser();
        ByteBuffer in = ByteBuffer.wrap(OK.substring(0, OK.length() - 1).getBytes(StandardCharsets.US_ASCII));
        assertThat(parser.next(in)).isZero();
        assertThat(parser.next(ByteBuffer.wrap(new byte[]{'!'}))).isEqualTo(200);
    }

    @Test
    void readsTheClientsSummary() {
        HttpLoad.Result r = FixedRate.parse("uring4j-fixed-rate requests=30000 measured=20000 rate=2000.0 mean=85.5"
                + " p50=70 p99=310 p99.9=900 max=1200 errors=3\n");
        assertThat(r).isEqualTo(new HttpLoad.Result(30000, 2000.0, 85.5, 3, 70, 310, 900));
    }

    @Test
    void outputWithoutASummaryIsAnErrorQuotingIt() {
        assertThatThrownBy(() -> FixedRate.parse("Exception in thread \"main\" java.net.ConnectException\n"))
                .isInstanceOf(BenchException.class).hasMessageContaining("java.net.ConnectException");
    }
}
