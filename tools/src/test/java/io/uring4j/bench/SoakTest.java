package io.uring4j.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ./uring4j soak}: the verdict's rule on made-up samples, and a few seconds of the real thing. */
class SoakTest {
    /** Samples every 5 s for 60 s: RSS, fds and threads from functions of the sample's index. */
    private static List<Trend.Sample> samples(java.util.function.IntToLongFunction rssKib,
                                              java.util.function.IntUnaryOperator fds,
                                              java.util.function.IntUnaryOperator threads) {
        List<Trend.Sample> samples = new ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            samples.add(new Trend.Sample(5.0 * i, rssKib.applyAsLong(i), fds.applyAsInt(i), threads.applyAsInt(i),
                    1000L * i, 100L * i, 0));
        }
        return samples;
    }

    @Test
    void flatResourcesPassWhateverTheWarmUpDid() {
        // Growth during the warm-up (the first 30 s) and single outliers later do not count.
        var samples = samples(i -> i <= 6 ? 50_000L * i : i == 9 ? 900_000 : 300_000 + i,
                i -> i == 10 ? 60 : 40, i -> i <= 6 ? 15 + i : 21);
        Trend.Verdict v = Trend.judge(samples, 30, 8);
        assertThat(v.flat()).as(v.describe()).isTrue();
        assertThat(v.describe()).endsWith(": flat").contains("rss 293.0 -> 293.0 MiB", "fds 40 -> 40 (limit 48)");
    }

    @Test
    void growthAfterTheWarmUpIsCaughtForEachResource() {
        var rss = Trend.judge(samples(i -> 100_000L + 10_000L * i, i -> 40, i -> 21), 30, 8);
        assertThat(rss.flat()).isFalse();
        assertThat(rss.describe()).endsWith("GROWS (rss)");
        var fds = Trend.judge(samples(i -> 100_000, i -> 40 + 3 * i, i -> 21), 30, 8);
        assertThat(fds.describe()).endsWith("GROWS (fds)");
        var threads = Trend.judge(samples(i -> 100_000, i -> 40, i -> 20 + 2 * i), 30, 8);
        assertThat(threads.describe()).endsWith("GROWS (threads)");
    }

    @Test
    void tooFewSamplesAreNotJudgedFlat() {
        Trend.Verdict v = Trend.judge(samples(i -> 100_000, i -> 40, i -> 21), 55, 8);
        assertThat(v.flat()).isFalse();
        assertThat(v.describe()).startsWith("too few samples after the warm-up");
    }

    /** Both styles for three seconds each: servers start, the load is answered without error, each is judged. */
    @Test
    @Timeout(120)
    void aShortSoakOfBothStylesPrintsItsTablesAndVerdict() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = Soak.run(new String[]{"--duration", "3s", "--connects", "300", "--keep-alive", "4",
            "--warmup", "1s", "--sample", "500ms"}, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(status).as(out).isIn(0, 1);  // flatness is the long run's to show; three seconds prove the plumbing
        assertThat(out).contains("serve http --style loop", "serve http --style vthread", "loop: rss ", "vthread: rss ",
                "verdict: ").doesNotContain("FAILED", "first error");
        assertThat(out.lines().filter(l -> l.matches(" +[0-9.]+ s .*")).count()).as(out).isGreaterThanOrEqualTo(8);
    }

    @Test
    void badOptionsAreRefusedByName() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = System.err;
        int status;
        try {
            System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            status = Soak.run(new String[]{"--duration", "0s", "--styles", "loop,epoll", "--heap", "lots"}, System.out);
        } finally {
            System.setErr(err);
        }
        assertThat(status).isEqualTo(2);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("--duration must be 1s or more",
                "no style named 'epoll'", "--heap must be a size");
    }
}
