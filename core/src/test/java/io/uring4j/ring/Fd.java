package io.uring4j.ring;

import io.uring4j.sys.LibC;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** An open file descriptor (a file, a directory, /dev/zero); closes with try-with-resources. */
record Fd(int fd) implements AutoCloseable {
    /** Opens {@code path} with {@code flags} (mode 0644 if it creates the file), asserting success. */
    static Fd open(Path path, int flags) {
        return open(path.toString(), flags);
    }

    static Fd open(String path, int flags) {
        int fd = LibC.open(path, flags, 0644);
        assertThat(fd).as("open(%s) (negative: -errno)", path).isNotNegative();
        return new Fd(fd);
    }

    /** /dev/zero, read-only: reads of any length succeed in full. */
    static Fd devZero() {
        return open("/dev/zero", LibC.O_RDONLY | LibC.O_CLOEXEC);
    }

    @Override
    public void close() {
        LibC.close(fd);
    }
}
