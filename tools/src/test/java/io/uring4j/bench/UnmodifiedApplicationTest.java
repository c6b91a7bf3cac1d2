package io.uring4j.bench;

import io.uring4j.fs.UringFileChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application nobody here wrote — the H2 database running {@link H2Workload} — in child JVMs with and
 * without {@code -Djava.nio.file.spi.DefaultFileSystemProvider=io.uring4j.fs.UringFileSystemProvider}: the same
 * results, and with the flag every FileChannel H2 opens is uring4j's. ({@code ./uring4j bench --h2} is the full
 * run, with timings.)
 */
class UnmodifiedApplicationTest {
    @TempDir
    Path dir;

    @Test
    void h2GivesTheSameResultsOnUring4jFiles() throws Exception {
        CompareFlag.Run jdk = CompareFlag.run(dir, false, 20_000);
        CompareFlag.Run uring = CompareFlag.run(dir, true, 20_000);
        System.out.println("H2 on the JDK's files:  " + jdk.summary());
        System.out.println("H2 on uring4j's files: " + uring.summary());
        assertThat(jdk.summary()).containsEntry("channel", "sun.nio.ch.FileChannelImpl");
        assertThat(uring.summary()).containsEntry("channel", UringFileChannel.class.getName());
        assertThat(uring.results()).contains("after restart: rows 20000").isEqualTo(jdk.results());
    }

    @Test
    void benchH2RunsBothAndComparesThem() {
        BenchRun run = BenchRun.of("--h2", "--h2-rows", "2000", "--rounds", "1");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("total_ms").contains("after restart: rows 2000");
    }
}
