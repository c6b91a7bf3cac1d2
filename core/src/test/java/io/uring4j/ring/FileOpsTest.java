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
import java.nio.file.LinkOption;
import java.nio.file.Path;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.FileKit.bytes;
import static io.uring4j.ring.Reap.run;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static io.uring4j.testkit.Patterns.fillPattern;
import static io.uring4j.testkit.Patterns.pattern;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing fallocate.c, fadvise.c, truncate.c, rename.c, unlink.c, mkdir.c, symlink.c, hardlink.c, splice.c and
 * fd-install.c: the remaining file and path opcodes, each checked against what the file system shows afterwards
 * (through java.nio.file), with their usual error results; FALLOCATE and FTRUNCATE on a registered file, and the
 * prep checks that refuse fields an opcode does not use.
 */
@BothEngines
class FileOpsTest {
    private static final int AT_REMOVEDIR = 0x200;
    private static final int RENAME_NOREPLACE = 1;
    private static final int FALLOC_FL_KEEP_SIZE = 1;
    private static final int POSIX_FADV_WILLNEED = 3;
    private static final int POSIX_FADV_DONTNEED = 4;
    /** O_CLOEXEC as /proc/self/fdinfo prints it (octal flags). */
    private static final int FDINFO_CLOEXEC = 02000000;

    @TempDir
    Path dir;

    private Arena arena;
    private IoUring ring;

    @BeforeEach
    void setUp() throws Exception {
        arena = Arena.ofConfined();
        ring = IoUring.open(8);
    }

    @AfterEach
    void tearDown() {
        ring.close();
        arena.close();
    }

    @Test
    void fallocateExtendsTheFileUnlessKeepSize() throws Exception {
        assumeSupported(ring, Opcode.FALLOCATE);
        Path path = dir.resolve("falloc.dat");
        try (Fd file = Fd.open(path, LibC.O_CREAT | LibC.O_RDWR)) {
            ring.sq().next().prepFallocate(file.fd(), 0, 0, 1 << 20);
            assertThat(run(ring)).isZero();
            assertThat(Files.size(path)).isEqualTo(1 << 20);

            ring.sq().next().prepFallocate(file.fd(), FALLOC_FL_KEEP_SIZE, 1 << 20, 1 << 20);
            assertThat(run(ring)).isZero();
            assertThat(Files.size(path)).isEqualTo(1 << 20);

            ring.sq().next().prepFallocate(file.fd(), 0, 0, 0);
            assertThat(run(ring)).as("zero length").isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void fadviseAcceptsKnownAdviceAndRejectsUnknown() throws Exception {
        assumeSupported(ring, Opcode.FADVISE);
        Path path = Files.write(dir.resolve("fadvise.dat"), pattern(1, 8192));
        try (Fd file = Fd.open(path, LibC.O_RDONLY)) {
            ring.sq().next().prepFadvise(file.fd(), 0, 8192, POSIX_FADV_WILLNEED);
            assertThat(run(ring)).isZero();
            ring.sq().next().prepFadvise(file.fd(), 0, 8192, POSIX_FADV_DONTNEED);
            assertThat(run(ring)).isZero();
            ring.sq().next().prepFadvise(file.fd(), 0, 8192, 999);
            assertThat(run(ring)).isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void ftruncateShrinksAndGrowsTheFile() throws Exception {
        assumeSupported(ring, Opcode.FTRUNCATE);
        Path path = Files.write(dir.resolve("trunc.dat"), pattern(2, 4096));
        try (Fd file = Fd.open(path, LibC.O_RDWR)) {
            ring.sq().next().prepFtruncate(file.fd(), 123);
            assertThat(run(ring)).isZero();
            assertThat(Files.readAllBytes(path)).isEqualTo(pattern(2, 123));

            ring.sq().next().prepFtruncate(file.fd(), 10_000);
            assertThat(run(ring)).isZero();
            assertThat(Files.size(path)).isEqualTo(10_000);

            ring.sq().next().prepFtruncate(file.fd(), -1);
            assertThat(run(ring)).isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void fallocateAndFtruncateReachARegisteredFile() throws Exception {
        assumeSupported(ring, Opcode.FALLOCATE, Opcode.FTRUNCATE);
        Path path = Files.write(dir.resolve("fixed.dat"), pattern(10, 100));
        try (Fd file = Fd.open(path, LibC.O_RDWR)) {
            ring.register().files(-1, file.fd());
            ring.sq().next().prepFallocate(1, 0, 0, 8192).flags(SqeFlags.FIXED_FILE);
            assertThat(run(ring)).isZero();
            assertThat(Files.size(path)).isEqualTo(8192);
            ring.sq().next().prepFtruncate(1, 10).flags(SqeFlags.FIXED_FILE);
            assertThat(run(ring)).isZero();
            assertThat(Files.readAllBytes(path)).isEqualTo(pattern(10, 10));
            ring.sq().next().prepFtruncate(0, 10).flags(SqeFlags.FIXED_FILE);
            assertThat(run(ring)).as("empty slot").isEqualTo(-Errno.EBADF);
        }
    }

    @Test
    void fileOpcodesRefuseFieldsTheyDoNotUse() throws Exception {
        assumeSupported(ring, Opcode.FALLOCATE, Opcode.FTRUNCATE, Opcode.UNLINKAT, Opcode.MKDIRAT);
        Path path = Files.write(dir.resolve("fields.dat"), pattern(11, 100));
        try (Fd file = Fd.open(path, LibC.O_RDWR)) {
            ring.sq().next().prepFallocate(file.fd(), 0, 0, 4096).opFlags(1);
            assertThat(run(ring)).as("fallocate with rw_flags").isEqualTo(-Errno.EINVAL);
            ring.sq().next().prepFtruncate(file.fd(), 10).bufIndex(1);
            assertThat(run(ring)).as("ftruncate with buf_index").isEqualTo(-Errno.EINVAL);
            ring.sq().next().prepFtruncate(file.fd(), 10).addr3(1);
            assertThat(run(ring)).as("ftruncate with addr3").isEqualTo(-Errno.EINVAL);
            ring.sq().next().prepMkdirat(LibC.AT_FDCWD, path(dir.resolve("never")), 0755).opFlags(1);
            assertThat(run(ring)).as("mkdirat with rw_flags").isEqualTo(-Errno.EINVAL);
            ring.sq().next().prepUnlinkat(LibC.AT_FDCWD, path(path), 0x100);
            assertThat(run(ring)).as("unlinkat with a flag other than AT_REMOVEDIR").isEqualTo(-Errno.EINVAL);
            ring.sq().next().prepUnlinkat(LibC.AT_FDCWD, path(path), 0).flags(SqeFlags.FIXED_FILE);
            assertThat(run(ring)).as("a path is never a registered file").isEqualTo(-Errno.EBADF);
        }
        assertThat(Files.size(path)).isEqualTo(100);
        assertThat(dir.resolve("never")).doesNotExist();
    }

    @Test
    void renameatMovesTheFile() throws Exception {
        assumeSupported(ring, Opcode.RENAMEAT);
        Path from = Files.write(dir.resolve("from"), pattern(3, 100));
        Path to = dir.resolve("to");

        ring.sq().next().prepRenameat(LibC.AT_FDCWD, path(from), LibC.AT_FDCWD, path(to), 0);
        assertThat(run(ring)).isZero();
        assertThat(from).doesNotExist();
        assertThat(Files.readAllBytes(to)).isEqualTo(pattern(3, 100));

        ring.sq().next().prepRenameat(LibC.AT_FDCWD, path(from), LibC.AT_FDCWD, path(to), 0);
        assertThat(run(ring)).as("source gone").isEqualTo(-Errno.ENOENT);

        Path other = Files.write(dir.resolve("other"), pattern(4, 10));
        ring.sq().next().prepRenameat(LibC.AT_FDCWD, path(other), LibC.AT_FDCWD, path(to), RENAME_NOREPLACE);
        assertThat(run(ring)).as("NOREPLACE onto an existing file").isEqualTo(-Errno.EEXIST);
        assertThat(Files.readAllBytes(to)).isEqualTo(pattern(3, 100));
    }

    @Test
    void unlinkatRemovesFilesAndDirectories() throws Exception {
        assumeSupported(ring, Opcode.UNLINKAT);
        Path file = Files.write(dir.resolve("doomed"), pattern(5, 10));
        Path sub = Files.createDirectory(dir.resolve("subdir"));

        ring.sq().next().prepUnlinkat(LibC.AT_FDCWD, path(file), 0);
        assertThat(run(ring)).isZero();
        assertThat(file).doesNotExist();

        ring.sq().next().prepUnlinkat(LibC.AT_FDCWD, path(file), 0);
        assertThat(run(ring)).isEqualTo(-Errno.ENOENT);

        ring.sq().next().prepUnlinkat(LibC.AT_FDCWD, path(sub), 0);
        assertThat(run(ring)).as("directory without AT_REMOVEDIR").isEqualTo(-Errno.EISDIR);
        ring.sq().next().prepUnlinkat(LibC.AT_FDCWD, path(sub), AT_REMOVEDIR);
        assertThat(run(ring)).isZero();
        assertThat(sub).doesNotExist();
    }

    @Test
    void mkdiratCreatesADirectoryOnce() throws Exception {
        assumeSupported(ring, Opcode.MKDIRAT);
        Path sub = dir.resolve("made");
        ring.sq().next().prepMkdirat(LibC.AT_FDCWD, path(sub), 0755);
        assertThat(run(ring)).isZero();
        assertThat(sub).isDirectory();

        ring.sq().next().prepMkdirat(LibC.AT_FDCWD, path(sub), 0755);
        assertThat(run(ring)).isEqualTo(-Errno.EEXIST);
    }

    @Test
    void symlinkatCreatesALinkToTheTarget() throws Exception {
        assumeSupported(ring, Opcode.SYMLINKAT);
        Path link = dir.resolve("link");
        ring.sq().next().prepSymlinkat(arena.allocateFrom("target-name"), LibC.AT_FDCWD, path(link));
        assertThat(run(ring)).isZero();
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readSymbolicLink(link)).isEqualTo(Path.of("target-name"));

        ring.sq().next().prepSymlinkat(arena.allocateFrom("elsewhere"), LibC.AT_FDCWD, path(link));
        assertThat(run(ring)).isEqualTo(-Errno.EEXIST);
    }

    @Test
    void linkatCreatesASecondNameForTheSameInode() throws Exception {
        assumeSupported(ring, Opcode.LINKAT);
        Path original = Files.write(dir.resolve("original"), pattern(6, 10));
        Path second = dir.resolve("second");
        ring.sq().next().prepLinkat(LibC.AT_FDCWD, path(original), LibC.AT_FDCWD, path(second), 0);
        assertThat(run(ring)).isZero();
        assertThat(Files.getAttribute(second, "unix:ino", LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(Files.getAttribute(original, "unix:ino"));
        assertThat(Files.getAttribute(original, "unix:nlink")).isEqualTo(2);

        ring.sq().next().prepLinkat(LibC.AT_FDCWD, path(original), LibC.AT_FDCWD, path(second), 0);
        assertThat(run(ring)).isEqualTo(-Errno.EEXIST);
    }

    @Test
    void spliceCopiesAFileThroughAPipeIntoAnotherFile() throws Exception {
        assumeSupported(ring, Opcode.SPLICE);
        int len = 16 * 1024;
        Path source = Files.write(dir.resolve("source"), pattern(7, len));
        Path target = dir.resolve("target");
        try (Fd in = Fd.open(source, LibC.O_RDONLY); Fd out = Fd.open(target, LibC.O_CREAT | LibC.O_WRONLY);
             Pipe pipe = Pipe.open()) {
            // file → pipe, then (linked, so only after it) pipe → file; -1: pipes have no offset.
            ring.sq().next().prepSplice(in.fd(), 0, pipe.writeFd(), -1, len, 0).userData(1).link();
            ring.sq().next().prepSplice(pipe.readFd(), -1, out.fd(), 0, len, 0).userData(2);
            assertThat(submitAndReap(ring, 2)).containsExactly(cqe(1, len), cqe(2, len));
        }
        assertThat(Files.readAllBytes(target)).isEqualTo(pattern(7, len));
    }

    /**
     * SPLICE_F_FD_IN_FIXED: the input is a registered file; a splice that moves less than asked (the file ends
     * first) fails its link, so the request behind it is cancelled.
     */
    @Test
    void spliceFromARegisteredFileAndAShortSpliceFailsItsLink() throws Exception {
        assumeSupported(ring, Opcode.SPLICE);
        int len = 4096;
        Path source = Files.write(dir.resolve("source"), pattern(9, len));
        try (Fd in = Fd.open(source, LibC.O_RDONLY); Pipe pipe = Pipe.open()) {
            ring.register().files(in.fd());
            int fdInFixed = 1 << 31;
            ring.sq().next().prepSplice(0, 0, pipe.writeFd(), -1, len, fdInFixed).userData(1);
            assertThat(submitAndReap(ring, 1)).containsExactly(cqe(1, len));
            assertThat(pipe.read(len)).isEqualTo(pattern(9, len));

            ring.sq().next().prepSplice(0, len / 2, pipe.writeFd(), -1, len, fdInFixed).userData(2).link();
            ring.sq().next().prepNop().userData(3);
            assertThat(submitAndReap(ring, 2)).containsExactly(cqe(2, len / 2), cqe(3, -Errno.ECANCELED));
        }
    }

    @Test
    void spliceOfABadFdFailsWithEbadf() throws Exception {
        assumeSupported(ring, Opcode.SPLICE);
        try (Pipe pipe = Pipe.open()) {
            ring.sq().next().prepSplice(-1, 0, pipe.writeFd(), -1, 10, 0);
            assertThat(run(ring)).isEqualTo(-Errno.EBADF);
        }
    }

    @Test
    void teeDuplicatesPipeDataWithoutConsumingIt() throws Exception {
        assumeSupported(ring, Opcode.TEE);
        try (Pipe first = Pipe.open(); Pipe second = Pipe.open()) {
            MemorySegment data = arena.allocate(1000);
            fillPattern(data, 8);
            first.write(data);

            ring.sq().next().prepTee(first.readFd(), second.writeFd(), 1000, 0);
            assertThat(run(ring)).isEqualTo(1000);

            assertThat(second.read(1000)).isEqualTo(pattern(8, 1000));
            assertThat(first.read(1000)).as("tee left the source pipe's data").isEqualTo(pattern(8, 1000));
        }
    }

    @Test
    void fixedFdInstallGivesANormalFdForTheSlot() throws Exception {
        assumeSupported(ring, Opcode.FIXED_FD_INSTALL);
        Path path = Files.write(dir.resolve("install.dat"), pattern(9, 512));
        try (Fd file = Fd.open(path, LibC.O_RDONLY)) {
            ring.register().files(file.fd(), -1);

            ring.sq().next().prepFixedFdInstall(0, 0);
            int installed = run(ring);
            assertThat(installed).isGreaterThanOrEqualTo(0).isNotEqualTo(file.fd());
            try {
                assertThat(fdinfoFlags(installed) & FDINFO_CLOEXEC).as("O_CLOEXEC by default").isNotZero();
                MemorySegment buf = arena.allocate(512);
                assertThat(LibC.read(installed, buf)).isEqualTo(512);
                assertThat(bytes(buf)).isEqualTo(pattern(9, 512));
            } finally {
                LibC.close(installed);
            }

            ring.sq().next().prepFixedFdInstall(0, OpFlags.FileIndex.INSTALL_NO_CLOEXEC);
            installed = run(ring);
            assertThat(installed).isGreaterThanOrEqualTo(0);
            try {
                assertThat(fdinfoFlags(installed) & FDINFO_CLOEXEC).as("NO_CLOEXEC").isZero();
            } finally {
                LibC.close(installed);
            }
        }
    }

    @Test
    void fixedFdInstallErrorCases() throws Exception {
        assumeSupported(ring, Opcode.FIXED_FD_INSTALL);
        try (Pipe pipe = Pipe.open()) {
            ring.register().files(pipe.readFd(), -1);
            ring.sq().next().prepFixedFdInstall(1, 0);
            assertThat(run(ring)).as("empty slot").isEqualTo(-Errno.EBADF);

            ring.sq().next().prepFixedFdInstall(0, 0).flags(0);
            assertThat(run(ring)).as("without IOSQE_FIXED_FILE").isEqualTo(-Errno.EBADF);

            ring.sq().next().prepFixedFdInstall(0, 0x80);
            assertThat(run(ring)).as("unknown install flags").isEqualTo(-Errno.EINVAL);

            ring.sq().next().prepFixedFdInstall(0, 0).addr3(1);
            assertThat(run(ring)).as("with addr3").isEqualTo(-Errno.EINVAL);
        }
    }

    /** The octal {@code flags:} line of /proc/self/fdinfo/{fd}. */
    private static int fdinfoFlags(int fd) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
            if (line.startsWith("flags:")) {
                return Integer.parseInt(line.substring(6).trim(), 8);
            }
        }
        throw new AssertionError("no flags line in fdinfo of " + fd);
    }

    private MemorySegment path(Path p) {
        return arena.allocateFrom(p.toString());
    }
}
