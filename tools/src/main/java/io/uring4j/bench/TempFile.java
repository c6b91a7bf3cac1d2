package io.uring4j.bench;

import io.uring4j.ring.Cqe;
import io.uring4j.ring.IoUring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The file that read mode uses when none is given: {@code --size} bytes in {@code java.io.tmpdir}, deleted
 * on close and at exit.
 *
 * <p>By default it is only preallocated ({@code IORING_OP_FALLOCATE}): its extents are allocated but
 * unwritten, so reads complete without device I/O, like the kernel's null_blk device — the benchmark then
 * measures the I/O path's own cost, not the disk. {@code --write-data} fills it with data instead, so that
 * O_DIRECT reads reach the device.
 */
final class TempFile implements AutoCloseable {
    private final Path path;

    private TempFile(Path path) {
        this.path = path;
    }

    static TempFile create(long size, boolean writeData, PrintStream log) throws IOException {
        TempFile file = empty();
        try {
            file.fill(size, writeData, log);
            return file;
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /** An empty file of a name nobody can predict, created with O_EXCL (the JDK's temporary files are). */
    static TempFile empty() throws IOException {
        Path path = Files.createTempFile("uring4j-bench-", ".dat");
        path.toFile().deleteOnExit();
        return new TempFile(path);
    }

    /** Makes the file {@code size} bytes: preallocated, or written with data when {@code writeData}. */
    void fill(long size, boolean writeData, PrintStream log) throws IOException {
        if (writeData) {
            log.printf("writing %s of data to %s ...%n", human(size), path);
            fill(path, size);
        } else {
            preallocate(path, size, log);
        }
    }

    Path path() {
        return path;
    }

    /** fallocate(mode 0) through a small ring; a sparse file if the file system refuses (reads of holes are free too). */
    private static void preallocate(Path path, long size, PrintStream log) throws IOException {
        int fd = LibC.open(path.toString(), LibC.O_RDWR | LibC.O_CLOEXEC, 0);
        if (fd < 0) {
            throw new ErrnoException("open " + path, fd);
        }
        int res;
        try (IoUring ring = IoUring.open(2)) {
            ring.sq().next().prepFallocate(fd, 0, 0, size);
            ring.submitAndWait(1);
            Cqe cqe = ring.cq().peek();
            res = cqe.res();
            ring.cq().seen(cqe);
        } finally {
            LibC.close(fd);
        }
        if (res < 0) {
            log.printf("fallocate on %s: %s; using a sparse file%n", path, Errno.name(res));
            try (RandomAccessFile raf = new RandomAccessFile(path.toFile(), "rw")) {
                raf.setLength(size);
            }
        }
    }

    /** Pseudo-random bytes (nothing for a file system to compress or dedupe), then fsync. */
    private static void fill(Path path, long size) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
        long x = 0x9E3779B97F4A7C15L;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
            for (long written = 0; written < size; ) {
                chunk.clear();
                while (chunk.remaining() >= 8) {
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                    chunk.putLong(x);
                }
                chunk.flip().limit((int) Math.min(chunk.limit(), size - written));
                while (chunk.hasRemaining()) {
                    written += ch.write(chunk, written);
                }
            }
            ch.force(true);
        }
    }

    static String human(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        return bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
    }

    @Override
    public void close() throws IOException {
        Files.deleteIfExists(path);
    }
}
