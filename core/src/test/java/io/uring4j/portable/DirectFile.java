package io.uring4j.portable;

import io.uring4j.fs.OpenFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A temporary file holding given bytes, opened O_RDWR | O_DIRECT: in {@code dir}, or /var/tmp where {@code dir}
 * refuses O_DIRECT (tmpfs); the test is skipped, saying so, where neither takes it.
 */
record DirectFile(Path path, int fd) implements AutoCloseable {
    static DirectFile create(Path dir, byte[] content) throws IOException {
        for (Path d : List.of(dir, Path.of("/var/tmp"))) {
            Path path = Files.createTempFile(d, "direct", ".dat");
            Files.write(path, content);
            int fd = LibC.open(path.toString(), OpenFlags.O_RDWR | OpenFlags.O_DIRECT | OpenFlags.O_CLOEXEC, 0);
            if (fd >= 0) {
                return new DirectFile(path, fd);
            }
            Files.delete(path);
            assertThat(fd).as("open O_DIRECT %s", path).isEqualTo(-Errno.EINVAL);
        }
        assumeTrue(false, "no directory here supports O_DIRECT (tried " + dir + " and /var/tmp)");
        return null;
    }

    @Override
    public void close() throws IOException {
        LibC.close(fd);
        Files.deleteIfExists(path);
    }
}
