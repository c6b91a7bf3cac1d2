package io.uring4j.fs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application nobody here wrote — the H2 database running {@link H2Workload} — in child JVMs with and
 * without {@code -Djava.nio.file.spi.DefaultFileSystemProvider=io.uring4j.fs.UringFileSystemProvider}: the same
 * results, and with the flag every FileChannel H2 opens is uring4j's.
 */
class UnmodifiedApplicationTest {
    private static final String FLAG = "-Djava.nio.file.spi.DefaultFileSystemProvider="
            + UringFileSystemProvider.class.getName();

    @TempDir
    Path dir;

    record Run(String stdout, String stderr) {
    }

    @Test
    void h2GivesTheSameResultsOnUring4jFiles() throws Exception {
        Run jdk = run(Files.createDirectory(dir.resolve("jdk")), null);
        Run uring = run(Files.createDirectory(dir.resolve("uring")), FLAG);
        System.out.println("H2 on the JDK's files:  " + jdk.stderr().strip().replace("\n", "; "));
        System.out.println("H2 on uring4j's files: " + uring.stderr().strip().replace("\n", "; "));
        assertThat(jdk.stderr()).contains("FileChannel.open gives sun.nio.ch.FileChannelImpl");
        assertThat(uring.stderr()).contains("FileChannel.open gives " + UringFileChannel.class.getName());
        assertThat(uring.stdout()).contains("after restart: rows 20000").isEqualTo(jdk.stdout());
    }

    private static Run run(Path db, String flag) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        if (flag != null) {
            command.add(flag);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), H2Workload.class.getName(),
                db.toString(), "20000"));
        Process p = new ProcessBuilder(command).redirectError(db.resolve("stderr").toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean exited = p.waitFor(5, TimeUnit.MINUTES);
        String err = Files.readString(db.resolve("stderr"));
        assertThat(exited).as("the workload finished; stderr: %s", err).isTrue();
        assertThat(p.exitValue()).as("exit status; stderr: %s", err).isZero();
        return new Run(out, err);
    }
}
