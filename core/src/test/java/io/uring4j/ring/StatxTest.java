package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import static io.uring4j.ring.Reap.run;
import static io.uring4j.testkit.Patterns.pattern;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing statx.c: STATX through the ring agrees with the file as the JDK sees it (liburing compares with the
 * statx syscall; we compare with {@code unix:*} attributes), for a path and for fd + AT_EMPTY_PATH; a bad
 * buffer or path pointer fails with -EFAULT.
 */
@BothEngines
class StatxTest {
    private static final int STATX_ALL = 0xfff;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final long STATX_SIZE = 256;
    /** A user address that is never mapped (liburing uses the same). */
    private static final long BAD_ADDRESS = 0x1234;

    @TempDir
    Path dir;

    private Path file;

    @BeforeEach
    void createFile() throws Exception {
        file = Files.write(dir.resolve("statx.dat"), pattern(3, 4096 + 123));
    }

    @Test
    void statxOfAPathMatchesTheJdkView() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment stx = arena.allocate(STATX_SIZE, 8);
            ring.sq().next().prepStatx(LibC.AT_FDCWD, arena.allocateFrom(file.toString()), 0, STATX_ALL, stx);
            assertThat(run(ring)).isZero();
            assertMatchesJdk(stx, file);
        }
    }

    @Test
    void statxOfAnFdWithEmptyPathMatchesTheJdkView() throws Exception {
        try (Fd in = Fd.open(file, LibC.O_RDONLY); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment stx = arena.allocate(STATX_SIZE, 8);
            ring.sq().next().prepStatx(in.fd(), arena.allocateFrom(""), AT_EMPTY_PATH, STATX_ALL, stx);
            assertThat(run(ring)).isZero();
            assertMatchesJdk(stx, file);
        }
    }

    @Test
    void statxIntoABadBufferFailsWithEfault() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment path = arena.allocateFrom(file.toString());
            // The statx buffer travels in addr2 (off): point it at unmapped memory.
            ring.sq().next().prepRw(Opcode.STATX, LibC.AT_FDCWD, path.address(), STATX_ALL, BAD_ADDRESS);
            assertThat(run(ring)).isEqualTo(-Errno.EFAULT);
        }
    }

    @Test
    void statxOfABadPathPointerFailsWithEfault() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment stx = arena.allocate(STATX_SIZE, 8);
            ring.sq().next().prepStatx(LibC.AT_FDCWD, arena.allocateFrom(file.toString()), 0, STATX_ALL, stx)
                    .addr(BAD_ADDRESS);
            assertThat(run(ring)).isEqualTo(-Errno.EFAULT);
        }
    }

    @Test
    void statxOfAMissingPathFailsWithEnoent() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment stx = arena.allocate(STATX_SIZE, 8);
            ring.sq().next().prepStatx(LibC.AT_FDCWD, arena.allocateFrom(dir.resolve("nope").toString()), 0,
                    STATX_ALL, stx);
            assertThat(run(ring)).isEqualTo(-Errno.ENOENT);
        }
    }

    /** struct statx: mask@0 nlink@16 uid@20 gid@24 mode@28 ino@32 size@40 mtime@112 dev_major@136 dev_minor@140. */
    private static void assertMatchesJdk(MemorySegment stx, Path path) throws Exception {
        assertThat(stx.get(JAVA_INT, 0) & 0x7ff).as("stx_mask covers the basic stats").isEqualTo(0x7ff);
        assertThat(stx.get(JAVA_LONG, 40)).as("size").isEqualTo(Files.size(path)).isEqualTo(4096 + 123);
        assertThat(stx.get(JAVA_SHORT, 28) & 0xffff).as("mode")
                .isEqualTo((int) (Integer) Files.getAttribute(path, "unix:mode"));
        assertThat(stx.get(JAVA_LONG, 32)).as("ino").isEqualTo((long) (Long) Files.getAttribute(path, "unix:ino"));
        assertThat(stx.get(JAVA_INT, 16)).as("nlink").isEqualTo((int) (Integer) Files.getAttribute(path, "unix:nlink"));
        assertThat(stx.get(JAVA_INT, 20)).as("uid").isEqualTo((int) (Integer) Files.getAttribute(path, "unix:uid"));
        assertThat(stx.get(JAVA_INT, 24)).as("gid").isEqualTo((int) (Integer) Files.getAttribute(path, "unix:gid"));
        FileTime mtime = Files.getLastModifiedTime(path);
        assertThat(Instant.ofEpochSecond(stx.get(JAVA_LONG, 112), Integer.toUnsignedLong(stx.get(JAVA_INT, 120))))
                .as("mtime").isEqualTo(mtime.toInstant());
        long major = Integer.toUnsignedLong(stx.get(JAVA_INT, 136));
        long minor = Integer.toUnsignedLong(stx.get(JAVA_INT, 140));
        // glibc's makedev(), the encoding of st_dev that unix:dev reports.
        long dev = ((major & 0xfffff000L) << 32) | ((major & 0xfffL) << 8) | ((minor & 0xffffff00L) << 12)
                | (minor & 0xffL);
        assertThat(dev).as("dev").isEqualTo((long) (Long) Files.getAttribute(path, "unix:dev"));
    }
}
