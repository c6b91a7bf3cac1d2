package io.uring4j.bench;

import io.uring4j.fs.UringFileChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Applications nobody here wrote — the H2 database running {@link H2Workload}, H2's MVStore running
 * {@link MVStoreWorkload} — in child JVMs with and without
 * {@code -Djava.nio.file.spi.DefaultFileSystemProvider=io.uring4j.fs.UringFileSystemProvider}: the same results,
 * and with the flag every FileChannel they open is uring4j's. ({@code ./uring4j bench --h2} and {@code --mvstore}
 * are the full runs, with timings.)
 */
class UnmodifiedApplicationTest {
    @TempDir
    Path dir;

    @Test
    void h2GivesTheSameResultsOnUring4jFiles() throws Exception {
        CompareFlag.Run jdk = CompareFlag.run(dir, false, CompareFlag.App.h2(20_000));
        CompareFlag.Run uring = CompareFlag.run(dir, true, CompareFlag.App.h2(20_000));
        System.out.println("H2 on the JDK's files:  " + jdk.summary());
        System.out.println("H2 on uring4j's files: " + uring.summary());
        assertThat(jdk.summary()).containsEntry("channel", "sun.nio.ch.FileChannelImpl");
        assertThat(uring.summary()).containsEntry("channel", UringFileChannel.class.getName());
        assertThat(uring.results()).contains("after restart: rows 20000").isEqualTo(jdk.results());
    }

    @Test
    void mvstoreGivesTheSameResultsOnUring4jFiles() throws Exception {
        CompareFlag.Run jdk = CompareFlag.run(dir, false, CompareFlag.App.mvstore(30_000));
        CompareFlag.Run uring = CompareFlag.run(dir, true, CompareFlag.App.mvstore(30_000));
        assertThat(jdk.summary()).containsEntry("channel", "sun.nio.ch.FileChannelImpl")
                .containsKeys("put_per_s", "mixed_per_s", "reopen_ms", "total_ms");
        assertThat(uring.summary()).containsEntry("channel", UringFileChannel.class.getName());
        assertThat(uring.results()).contains("after re-open: ").isEqualTo(jdk.results());
    }

    /** --mvstore: a row per phase with the per-round speed ratios, the targets on the write-ahead log's phases. */
    @Test
    void benchMvstoreReportsEachPhaseWithItsTarget() {
        BenchRun run = BenchRun.of("--mvstore", "--mvstore-ops", "20000", "--rounds", "1", "--json");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("MVStore (20000 ops per phase, commit and sync every 10000)", "after re-open: ");
        assertThat(run.out().lines().filter(l -> l.startsWith("put_per_s") || l.startsWith("mixed_per_s")
                || l.startsWith("total_ms"))).hasSize(3).allMatch(l -> l.matches(".*>= 0\\.97 JDK (met|MISSED)$"));
        assertThat(run.out().lines().filter(l -> l.startsWith("reopen_ms"))).singleElement()
                .matches(l -> !l.contains(">="));
        String json = run.out().lines().filter(l -> l.startsWith("{\"flag\"")).findFirst().orElseThrow();
        assertThat(json.split("\"ratios\":\\[[0-9.]+]")).hasSize(5);
        assertThat(json).contains("\"phase\":\"put_per_s\"", "\"target\":0.97").doesNotContain("NaN", "Infinity");
    }

    @Test
    void benchH2RunsBothAndComparesThem() {
        BenchRun run = BenchRun.of("--h2", "--h2-rows", "2000", "--rounds", "1");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("total_ms").contains("after restart: rows 2000");
    }
}
