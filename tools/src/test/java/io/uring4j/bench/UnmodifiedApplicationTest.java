package io.uring4j.bench;

import io.uring4j.fs.UringFileChannel;
import io.uring4j.fs.UringFileSystemProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Applications nobody here wrote — the H2 database running {@link H2Workload}, H2's MVStore running
 * {@link MVStoreWorkload}, Lucene running {@link LuceneWorkload} — in child JVMs with and without
 * {@code -Djava.nio.file.spi.DefaultFileSystemProvider=io.uring4j.fs.UringFileSystemProvider}: the same results,
 * and with the flag every FileChannel they open is uring4j's. ({@code ./uring4j bench --app NAME} runs them in
 * full, with timings.)
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

    /**
     * Lucene on NIOFSDirectory: FileChannel reads, output streams, fsyncs of files and of the directory, renames
     * and deletes, all through the provider.
     */
    @Test
    void luceneGivesTheSameResultsOnUring4jFiles() throws Exception {
        CompareFlag.Run jdk = CompareFlag.run(dir, false, CompareFlag.App.lucene(5_000));
        CompareFlag.Run uring = CompareFlag.run(dir, true, CompareFlag.App.lucene(5_000));
        assertThat(jdk.summary()).containsEntry("channel", "sun.nio.ch.FileChannelImpl")
                .containsKeys("index_per_s", "query_per_s", "update_per_s", "merge_ms", "reopen_ms", "total_ms");
        assertThat(uring.summary()).containsEntry("channel", UringFileChannel.class.getName());
        assertThat(uring.results()).contains("after re-open: 5000 documents in 1 segment(s)")
                .isEqualTo(jdk.results());
    }

    /** A short program: the same results, and the child's whole run timed from outside. */
    @Test
    void aShortProgramGivesTheSameResultsOnUring4jFiles() throws Exception {
        CompareFlag.Run jdk = CompareFlag.run(dir, false, CompareFlag.App.startup());
        CompareFlag.Run uring = CompareFlag.run(dir, true, CompareFlag.App.startup());
        assertThat(jdk.summary()).containsEntry("provider", "sun.nio.fs.LinuxFileSystemProvider")
                .containsKeys("total_ms", "process_ms");
        assertThat(uring.summary()).containsEntry("provider", UringFileSystemProvider.class.getName());
        assertThat(Double.parseDouble(uring.summary().get("process_ms")))
                .isGreaterThan(Double.parseDouble(uring.summary().get("total_ms")));
        assertThat(uring.results()).contains("read back: hello from a short program; 2 entries; copy of 27 bytes")
                .isEqualTo(jdk.results());
    }

    /** --app mvstore (--mvstore): a row per phase with the per-round speed ratios, each with the 0.97 target. */
    @Test
    void benchMvstoreReportsEachPhaseWithItsTarget() {
        BenchRun run = BenchRun.of("--app", "mvstore", "--mvstore-ops", "20000", "--rounds", "1", "--json");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("MVStore (20000 ops per phase, commit and sync every 10000)", "after re-open: ");
        assertThat(run.out().lines().filter(l -> l.startsWith("put_per_s") || l.startsWith("mixed_per_s")
                || l.startsWith("reopen_ms") || l.startsWith("total_ms")))
                .hasSize(4).allMatch(l -> l.matches(".*>= 0\\.97 JDK (met|MISSED)$"));
        String json = run.out().lines().filter(l -> l.startsWith("{\"flag\"")).findFirst().orElseThrow();
        assertThat(json.split("\"ratios\":\\[[0-9.]+]")).hasSize(5);
        assertThat(json).contains("\"phase\":\"put_per_s\"", "\"target\":0.97").doesNotContain("NaN", "Infinity");
    }

    /** --h2 stays a name for --app h2. */
    @Test
    void benchH2RunsBothAndComparesThem() {
        BenchRun run = BenchRun.of("--h2", "--h2-rows", "2000", "--rounds", "1");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("after restart: rows 2000");
        assertThat(run.out().lines().filter(l -> l.startsWith("restart_ms"))).singleElement()
                .matches(l -> l.matches(".*>= 0\\.97 JDK (met|MISSED)$"));
    }

    @Test
    void benchAppRefusesAnUnknownNameAndTwoApplications() {
        BenchRun unknown = BenchRun.of("--app", "derby");
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.err()).contains("--app must be one of h2, mvstore, lucene");
        BenchRun two = BenchRun.of("--app", "lucene", "--h2");
        assertThat(two.status()).isEqualTo(2);
        assertThat(two.err()).contains("one application");
    }
}
