package io.uring4j.bench;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** A file or block device to read, with its size (FileChannel asks the block layer for devices). */
record ReadTarget(Path path, long size) {
    /**
     * Opens {@code path} once to ask for its size. It is opened with open(2) first, so that a file that cannot be
     * read fails with its path and errno ({@code open /x: ENOENT (No such file or directory)}) — the JDK's
     * exceptions name only the path — and a directory, which opens, is refused before its first read (EISDIR).
     */
    static ReadTarget of(Path path) throws IOException {
        int fd = LibC.open(path.toString(), LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
        if (fd < 0) {
            throw new ErrnoException("open " + path, fd);
        }
        try {
            if (LibC.fileType(fd) == LibC.S_IFDIR) {
                throw new ErrnoException("read " + path, Errno.EISDIR);
            }
        } finally {
            LibC.close(fd);
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            return new ReadTarget(path, channel.size());
        }
    }
}
