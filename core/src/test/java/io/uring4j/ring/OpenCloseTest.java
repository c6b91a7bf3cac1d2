package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.uring4j.ring.FileKit.bytes;
import static io.uring4j.ring.Reap.run;
import static io.uring4j.testkit.Patterns.pattern;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing open-close.c and openat2.c: OPENAT, OPENAT2 and CLOSE, plain and direct. Opening gives a usable fd,
 * CLOSE closes it, the ring's own fd cannot be closed through the ring, and the direct-close error cases (no
 * table, fd and slot both set, slot out of range, empty slot); O_CLOEXEC is refused for a direct open, and a
 * direct open with FILE_INDEX_ALLOC returns the slot it picked. OPENAT2 applies its RESOLVE bits and checks its
 * {@code open_how} as openat2(2) does (size, a newer struct's zero tail, unknown bits).
 */
@BothEngines
class OpenCloseTest {
    private static final int SIZE = 4096;
    private static final int O_DIRECTORY = 0x10000;
    private static final long RESOLVE_BENEATH = 0x08;

    @TempDir
    Path dir;

    private Path file;
    private Arena arena;
    private IoUring ring;

    @BeforeEach
    void setUp() throws Exception {
        file = Files.write(dir.resolve("open.dat"), pattern(4, SIZE));
        arena = Arena.ofConfined();
        ring = IoUring.open(8);
    }

    @AfterEach
    void tearDown() {
        ring.close();
        arena.close();
    }

    @Test
    void openatOfAnAbsolutePathGivesAnFdThatCloseCloses() throws Exception {
        // liburing passes dfd -1: an absolute path ignores it.
        ring.sq().next().prepOpenat(-1, path(file), LibC.O_RDONLY, 0);
        int fd = run(ring);
        assertThat(fd).isGreaterThanOrEqualTo(0);

        MemorySegment buf = arena.allocate(SIZE);
        assertThat(LibC.read(fd, buf)).isEqualTo(SIZE);
        assertThat(bytes(buf)).isEqualTo(pattern(4, SIZE));

        ring.sq().next().prepClose(fd);
        assertThat(run(ring)).isZero();
        assertThat(LibC.close(fd)).as("already closed").isEqualTo(-Errno.EBADF);
    }

    @Test
    void openatOfARelativePathResolvesAgainstTheDirectoryFd() throws Exception {
        try (Fd directory = Fd.open(dir, LibC.O_RDONLY | O_DIRECTORY)) {
            ring.sq().next().prepOpenat(directory.fd(), arena.allocateFrom("open.dat"), LibC.O_RDONLY, 0);
            int fd = run(ring);
            assertThat(fd).isGreaterThanOrEqualTo(0);
            assertThat(LibC.close(fd)).isZero();

            ring.sq().next().prepOpenat(directory.fd(), arena.allocateFrom("missing.dat"), LibC.O_RDONLY, 0);
            assertThat(run(ring)).isEqualTo(-Errno.ENOENT);
        }
    }

    @Test
    void openat2ResolvesBeneathItsDirectoryAndChecksItsOpenHow() throws Exception {
        Rings.assumeSupported(ring, Opcode.OPENAT2);
        try (Fd directory = Fd.open(dir, LibC.O_RDONLY | O_DIRECTORY)) {
            MemorySegment name = arena.allocateFrom("open.dat");
            MemorySegment how = openHow(LibC.O_RDONLY, RESOLVE_BENEATH, 32);
            ring.sq().next().prepOpenat2(directory.fd(), name, how.asSlice(0, 24));
            int fd = run(ring);
            assertThat(fd).isGreaterThanOrEqualTo(0);
            assertThat(LibC.close(fd)).isZero();

            ring.sq().next().prepOpenat2(directory.fd(), arena.allocateFrom("../" + dir.getFileName() + "/open.dat"),
                    how.asSlice(0, 24));
            assertThat(run(ring)).as("a path leaving the directory").isEqualTo(-Errno.EXDEV);

            ring.sq().next().prepOpenat2(directory.fd(), name, how);
            assertThat(run(ring)).as("a larger open_how whose tail is zero").isGreaterThanOrEqualTo(0)
                    .satisfies(opened -> assertThat(LibC.close(opened)).isZero());
            how.set(JAVA_BYTE, 31, (byte) 1);
            ring.sq().next().prepOpenat2(directory.fd(), name, how);
            assertThat(run(ring)).as("a larger open_how whose tail is not zero").isEqualTo(-Errno.E2BIG);
            ring.sq().next().prepOpenat2(directory.fd(), name, how.asSlice(0, 16));
            assertThat(run(ring)).as("shorter than open_how").isEqualTo(-Errno.EINVAL);
            ring.sq().next().prepOpenat2(directory.fd(), name, openHow(LibC.O_RDONLY, 1L << 40, 24));
            assertThat(run(ring)).as("an unknown RESOLVE bit").isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void closeOfTheRingsOwnFdFailsWithEbadf() throws Exception {
        ring.sq().next().prepClose(ring.fd());
        assertThat(run(ring)).isEqualTo(-Errno.EBADF);
        // The ring still works.
        ring.sq().next().prepNop();
        assertThat(run(ring)).isZero();
    }

    @Test
    void directCloseErrorCasesAndClosingASlot() throws Exception {
        try (Pipe pipe = Pipe.open()) {
            ring.sq().next().prepCloseDirect(0);
            assertThat(run(ring)).as("no file table").isEqualTo(-Errno.ENXIO);

            ring.sq().next().prepClose(1).directSlot(0);
            assertThat(run(ring)).as("both fd and file_index").isEqualTo(-Errno.EINVAL);

            ring.register().files(pipe.readFd(), pipe.writeFd());
            ring.sq().next().prepCloseDirect(2);
            assertThat(run(ring)).as("slot out of range").isEqualTo(-Errno.EINVAL);

            ring.sq().next().prepCloseDirect(0);
            assertThat(run(ring)).as("valid slot").isZero();
            ring.sq().next().prepRead(0, arena.allocate(1), 0).addFlags(SqeFlags.FIXED_FILE);
            assertThat(run(ring)).as("fixed read of the closed slot").isEqualTo(-Errno.EBADF);

            ring.sq().next().prepCloseDirect(1);
            assertThat(run(ring)).isZero();
            ring.sq().next().prepCloseDirect(0);
            assertThat(run(ring)).as("empty slot").isEqualTo(-Errno.EBADF);
        }
    }

    @Test
    void directOpenWithCloexecFailsWithEinval() throws Exception {
        ring.register().filesSparse(4);
        ring.sq().next().prepOpenatDirect(-1, path(file), LibC.O_RDONLY | LibC.O_CLOEXEC, 0, 0);
        assertThat(run(ring)).isEqualTo(-Errno.EINVAL);
    }

    @Test
    void directOpenIntoASlotIsUsableForFixedReads() throws Exception {
        ring.register().filesSparse(4);
        ring.sq().next().prepOpenatDirect(LibC.AT_FDCWD, path(file), LibC.O_RDONLY, 0, 2);
        assertThat(run(ring)).as("explicit slot: 0 on success").isZero();
        assertFixedReadSeesTheFile(2);
    }

    @Test
    void directOpenWithAllocReturnsTheSlotItPicked() throws Exception {
        ring.register().filesSparse(2);
        ring.sq().next().prepOpenatDirect(LibC.AT_FDCWD, path(file), LibC.O_RDONLY, 0, OpFlags.FileIndex.ALLOC);
        int first = run(ring);
        ring.sq().next().prepOpenatDirect(LibC.AT_FDCWD, path(file), LibC.O_RDONLY, 0, OpFlags.FileIndex.ALLOC);
        int second = run(ring);
        assertThat(first).isBetween(0, 1);
        assertThat(second).isBetween(0, 1).isNotEqualTo(first);
        assertFixedReadSeesTheFile(first);
        assertFixedReadSeesTheFile(second);

        ring.sq().next().prepOpenatDirect(LibC.AT_FDCWD, path(file), LibC.O_RDONLY, 0, OpFlags.FileIndex.ALLOC);
        assertThat(run(ring)).as("table full").isEqualTo(-Errno.ENFILE);
    }

    /** A zeroed {@code struct open_how} of {@code size} bytes: flags, mode 0, resolve. */
    private MemorySegment openHow(int flags, long resolve, int size) {
        MemorySegment how = arena.allocate(size, 8);
        how.set(JAVA_LONG, 0, flags);
        how.set(JAVA_LONG, 16, resolve);
        return how;
    }

    private void assertFixedReadSeesTheFile(int slot) throws Exception {
        MemorySegment buf = arena.allocate(SIZE);
        ring.sq().next().prepRead(slot, buf, 0).addFlags(SqeFlags.FIXED_FILE);
        assertThat(run(ring)).as("fixed read of slot %d", slot).isEqualTo(SIZE);
        assertThat(bytes(buf)).isEqualTo(pattern(4, SIZE));
    }

    private MemorySegment path(Path p) {
        return arena.allocateFrom(p.toString());
    }
}
