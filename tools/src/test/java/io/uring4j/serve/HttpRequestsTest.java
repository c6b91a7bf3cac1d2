package io.uring4j.serve;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The request framing on its own: every rule, with the stream cut at every byte. */
class HttpRequestsTest {
    /** The status of each response (and 0 after one that ended the connection: its Connection: close). */
    private static List<String> answers(String stream, int cut) throws IOException {
        List<String> answers = new ArrayList<>();
        HttpRequests requests = new HttpRequests(r -> {
            String s = new String(r, StandardCharsets.US_ASCII);
            answers.add(s.substring(9, 12) + (s.contains("\r\nConnection: close\r\n") ? " close"
                    : s.contains("\r\nConnection: keep-alive\r\n") ? " keep-alive" : ""));
        });
        byte[] bytes = stream.getBytes(StandardCharsets.ISO_8859_1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(Math.max(1, bytes.length));
            boolean open = true;
            for (int from = 0; from < bytes.length && open; from += cut) {
                int n = Math.min(cut, bytes.length - from);
                MemorySegment.copy(bytes, from, buf, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, n);
                open = requests.feed(buf, 0, n);
            }
            assertThat(open).isEqualTo(answers.isEmpty() || !answers.getLast().endsWith("close"));
        }
        return answers;
    }

    /** The answers, the same whatever the reads' sizes. */
    private static List<String> answers(String stream) throws IOException {
        List<String> whole = answers(stream, Math.max(1, stream.length()));
        for (int cut = 1; cut < Math.min(stream.length(), 64); cut++) {
            assertThat(answers(stream, cut)).as("read %d bytes at a time", cut).isEqualTo(whole);
        }
        return whole;
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderWhateverTheReads() throws IOException {
        assertThat(answers(Servers.GET.repeat(3) + "GET / HTTP/1.1\nHost: x\n\n\r\n" + Servers.GET))
                .containsExactly("200", "200", "200", "200", "200");
    }

    @Test
    void aBodyIsSkippedByItsLengthEvenWhenItLooksLikeRequests() throws IOException {
        String body = Servers.GET.repeat(2);
        assertThat(answers("POST / HTTP/1.1\r\ncontent-LENGTH:  " + body.length() + " \r\n\r\n" + body + Servers.GET))
                .containsExactly("200", "200");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "GET / HTTP/1.1\\r\\nConnection: close\\r\\n\\r\\n                 | 200 close",
        "GET / HTTP/1.1\\r\\nCONNECTION: Upgrade ,CLOSE\\r\\n\\r\\n        | 200 close",
        "GET / HTTP/1.0\\r\\n\\r\\n                                       | 200 close",
        "GET / HTTP/1.0\\r\\nConnection: Keep-Alive\\r\\n\\r\\n             | 200 keep-alive",
        "GET / HTTP/1.0\\r\\nConnection: keep-alive, close\\r\\n\\r\\n      | 200 close",
        "GET / HTTP/1.1\\r\\nConnection: keep-alive\\r\\n\\r\\n             | 200",
        "POST / HTTP/1.1\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n        | 501 close",
        "POST / HTTP/1.1\\r\\nContent-Length: 1x\\r\\n\\r\\n                | 400 close",
        "POST / HTTP/1.1\\r\\nContent-Length: 99999999999999999999\\r\\n\\r\\n | 400 close",
        "POST / HTTP/1.1\\r\\nContent-Length: 1\\r\\nContent-Length: 2\\r\\n\\r\\n | 400 close",
        "GET / HTTP/1.1\\r\\nHost x\\r\\n\\r\\n                              | 400 close",
        "GET / HTTP/1.1\\r\\nHost : x\\r\\n\\r\\n                            | 400 close",
        "GET / HTTP/1.1\\r\\nHost: x\\r\\n folded\\r\\n\\r\\n                | 400 close",
        "GET / HTTP/2.0\\r\\n\\r\\n                                       | 400 close",
        "GET/ HTTP/1.1\\r\\n\\r\\n                                        | 400 close",
        "\\u0016\\u0003\\u0001\\r\\n\\r\\n                               | 400 close"})
    void theConnectionEndsWhenTheRequestSaysSoOrCannotBeFramed(String request, String answer) throws IOException {
        String stream = request.replace("\\r", "\r").replace("\\n", "\n").replace("\\u0016", "\u0016")
                .replace("\\u0003", "\u0003").replace("\\u0001", "\u0001");
        // What follows a request that ended the connection is not read.
        assertThat(answers(stream + (answer.endsWith("close") ? Servers.GET : ""))).containsExactly(answer);
    }

    /** A CR not before a LF is part of its line; a long target leaves the version at the line's end readable. */
    @Test
    void linesAreTakenWholeWithTheirInnerCarriageReturnsAndTheirLastEightBytes() throws IOException {
        assertThat(answers("GET / HTTP/1.1\r\nX: a\rb\r\r\n\r\n" + Servers.GET)).containsExactly("200", "200");
        assertThat(answers("GET /" + "t".repeat(300) + " HTTP/1.0\r\n\r\n")).containsExactly("200 close");
        assertThat(answers("GET /" + "t".repeat(300) + " HTTP/1.1\r\r\n\r\n")).containsExactly("400 close");
        assertThat(answers("GET /" + "t".repeat(300) + " HTTP/1.1\n\nGET / HTTP/1.0\n\n"))
                .containsExactly("200", "200 close");
    }

    @Test
    void theHeaderSectionMayBeEightKibibytesAndNoMore() throws IOException {
        String start = "GET / HTTP/1.1\r\nX: ";
        String fits = start + "a".repeat(HttpRequests.MAX_HEADER_BYTES - start.length() - 4) + "\r\n\r\n";
        assertThat(fits).hasSize(HttpRequests.MAX_HEADER_BYTES);
        assertThat(answers(fits + fits)).containsExactly("200", "200");
        String over = start + "a".repeat(HttpRequests.MAX_HEADER_BYTES - start.length() - 3) + "\r\n\r\n";
        assertThat(answers(over)).containsExactly("431 close");
        // Empty lines never end in a request: they count too, and a flood of them is refused.
        assertThat(answers("\r\n".repeat(HttpRequests.MAX_HEADER_BYTES))).containsExactly("431 close");
    }
}
