package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
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
import java.util.Arrays;
import java.util.Random;

import static io.uring4j.ring.FileKit.bytes;
import static io.uring4j.ring.Reap.run;
import static io.uring4j.ring.Rings.errnoOf;
import static io.uring4j.testkit.Patterns.fillPattern;
import static io.uring4j.testkit.Patterns.pattern;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing file-register.c: the registered file table. A table with -1 holes; updates that add, remove and
 * replace slots return the number updated; FILES_SKIP leaves a slot alone; a sparse table; fixed-file I/O through
 * IOSQE_FIXED_FILE reaches the file in the slot; invalid fds are refused; the FILES_UPDATE opcode and file
 * allocation ranges with their error cases.
 */
@BothEngines
class FileRegisterTest {
    private static final int BS = 4096;

    @TempDir
    Path dir;

    private Path fileA;
    private Path fileB;
    private int fdA = -1;
    private int fdB = -1;
    private Arena arena;
    private IoUring ring;

    @BeforeEach
    void setUp() throws Exception {
        fileA = dir.resolve("a.dat");
        fileB = dir.resolve("b.dat");
        fdA = Fd.open(fileA, LibC.O_CREAT | LibC.O_RDWR).fd();
        fdB = Fd.open(fileB, LibC.O_CREAT | LibC.O_RDWR).fd();
        arena = Arena.ofConfined();
        ring = IoUring.open(8);
    }

    @AfterEach
    void tearDown() {
        ring.close();
        arena.close();
        LibC.close(fdA);
        LibC.close(fdB);
    }

    @Test
    void aHundredSlotsWithHolesServeFixedIoAtFilledSlotsOnly() throws Exception {
        int[] table = new int[100];
        for (int i = 0; i < table.length; i++) {
            table[i] = i % 2 == 0 ? fdA : -1;
        }
        ring.register().files(table);

        assertFixedWriteThenReadWorks(42, fileA);
        assertThat(fixedRead(41)).as("hole").isEqualTo(-Errno.EBADF);
        assertThat(fixedRead(100)).as("past the table").isEqualTo(-Errno.EBADF);
    }

    @Test
    void updatesAddRemoveAndReplaceSlotsAndReturnTheCount() throws Exception {
        int[] table = new int[100];
        Arrays.fill(table, 0, 50, fdA);
        Arrays.fill(table, 50, 100, -1);
        ring.register().files(table);

        assertThat(ring.register().updateFiles(50, repeat(fdA, 10))).as("add").isEqualTo(10);
        assertFixedWriteThenReadWorks(55, fileA);

        assertThat(ring.register().updateFiles(50, repeat(-1, 10))).as("remove").isEqualTo(10);
        assertThat(fixedRead(55)).isEqualTo(-Errno.EBADF);

        assertThat(ring.register().updateFiles(0, repeat(fdB, 10))).as("replace").isEqualTo(10);
        assertFixedWriteThenReadWorks(5, fileB);
        assertThat(Files.readAllBytes(fileA)).as("the old file is no longer behind slot 5").isEqualTo(pattern(55, BS));
    }

    @Test
    void updatingPastTheEndOfTheTableFailsWithEinval() throws Exception {
        ring.register().files(repeat(fdA, 50));
        assertThat(ring.register().updateFiles(49, -1)).isEqualTo(1);
        assertThat(errnoOf(() -> ring.register().updateFiles(50, -1))).isEqualTo(Errno.EINVAL);
    }

    @Test
    void filesSkipLeavesTheSlotIntact() throws Exception {
        ring.register().files(repeat(fdA, 100));

        assertThat(ring.register().updateFiles(90, OpFlags.FileIndex.SKIP)).isEqualTo(1);
        assertFixedWriteThenReadWorks(90, fileA);

        // Emptying slot 89 and skipping 90 in one update: both count, only 89 changes.
        assertThat(ring.register().updateFiles(89, -1, OpFlags.FileIndex.SKIP)).isEqualTo(2);
        assertThat(fixedRead(89)).isEqualTo(-Errno.EBADF);
        assertThat(fixedRead(90)).isEqualTo(BS);
    }

    @Test
    void sparseTableSlotsBecomeUsableOneUpdateAtATime() throws Exception {
        ring.register().filesSparse(8192);
        assertFixedWriteThenReadWorks(-1, fileA);    // via the plain fd: gives the file content to read

        Random random = new Random(21);
        for (int i = 0; i < 20; i++) {
            int slot = random.nextInt(8192);
            assertThat(ring.register().updateFiles(slot, fdA)).isEqualTo(1);
            assertThat(fixedRead(slot)).as("slot %d", slot).isEqualTo(BS);
            assertThat(ring.register().updateFiles(slot, -1)).isEqualTo(1);
            assertThat(fixedRead(slot)).as("slot %d emptied", slot).isEqualTo(-Errno.EBADF);
        }
    }

    @Test
    void zeroFilesThenAddingOneWorks() throws Exception {
        ring.register().filesSparse(10);
        assertThat(ring.register().updateFiles(0, fdA)).isEqualTo(1);
        assertFixedWriteThenReadWorks(0, fileA);
    }

    @Test
    void aTableWithAnInvalidFdIsRefused() throws Exception {
        // 1_000_000 is past RLIMIT_NOFILE, so it can never be open.
        assertThat(errnoOf(() -> ring.register().files(fdA, -1, 1_000_000))).isEqualTo(Errno.EBADF);
        // An io_uring fd may not be registered (it could reference its own ring).
        assertThat(errnoOf(() -> ring.register().files(fdA, ring.fd()))).isEqualTo(Errno.EBADF);
        // Nothing was left registered by the failed attempts.
        ring.register().files(fdA);
    }

    @Test
    void registeringTwiceIsBusyAndUnregisteringNothingIsEnxio() throws Exception {
        assertThat(errnoOf(() -> ring.register().unregisterFiles())).isEqualTo(Errno.ENXIO);
        ring.register().files(fdA);
        assertThat(errnoOf(() -> ring.register().files(fdA))).isEqualTo(Errno.EBUSY);
        ring.register().unregisterFiles();
        assertThat(fixedRead(0)).isEqualTo(-Errno.EBADF);
    }

    @Test
    void filesUpdateOpcodeUpdatesSlotsAndReturnsTheCount() throws Exception {
        ring.register().filesSparse(10);
        MemorySegment fds = arena.allocateFrom(JAVA_INT, fdA, fdB, fdA);
        ring.sq().next().prepFilesUpdate(fds, 3, 2);
        assertThat(run(ring)).isEqualTo(3);
        assertFixedWriteThenReadWorks(3, fileB);
        assertThat(fixedRead(5)).isEqualTo(-Errno.EBADF);
    }

    @Test
    void fileAllocRangeRejectsBadRangesAndLimitsAllocation() throws Exception {
        ring.register().filesSparse(10);
        ring.register().fileAllocRange(0, 1);

        assertThat(errnoOf(() -> ring.register().fileAllocRange(8, 3))).as("past the table").isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> ring.register().fileAllocRange(10, 1))).as("starts past").isEqualTo(Errno.EINVAL);
        assertThat(errnoOf(() -> ring.register().fileAllocRange(7, ~1))).as("wraps").isEqualTo(Errno.EOVERFLOW);

        ring.register().fileAllocRange(7, 2);
        for (int i = 0; i < 2; i++) {
            MemorySegment fd = arena.allocateFrom(JAVA_INT, fdA);
            ring.sq().next().prepFilesUpdate(fd, 1, OpFlags.FileIndex.ALLOC);
            assertThat(run(ring)).isEqualTo(1);
            // The kernel writes the allocated slot back over the fd.
            assertThat(fd.get(JAVA_INT, 0)).isBetween(7, 8);
        }
        MemorySegment fd = arena.allocateFrom(JAVA_INT, fdA);
        ring.sq().next().prepFilesUpdate(fd, 1, OpFlags.FileIndex.ALLOC);
        assertThat(run(ring)).as("range exhausted").isEqualTo(-Errno.ENFILE);

        ring.register().fileAllocRange(7, 0);
        ring.sq().next().prepFilesUpdate(fd, 1, OpFlags.FileIndex.ALLOC);
        assertThat(run(ring)).as("empty range").isEqualTo(-Errno.ENFILE);
    }

    /** WRITE of a 4 KiB pattern at offset 0 through {@code slot} (or the plain fd when -1), then READ it back. */
    private void assertFixedWriteThenReadWorks(int slot, Path expectedFile) throws Exception {
        int seed = slot & 0xff;
        MemorySegment out = arena.allocate(BS);
        fillPattern(out, seed);
        fileOp(ring.sq().next().prepWrite(slot < 0 ? fdA : slot, out, 0), slot);
        assertThat(run(ring)).as("write at slot %d", slot).isEqualTo(BS);

        MemorySegment in = arena.allocate(BS);
        fileOp(ring.sq().next().prepRead(slot < 0 ? fdA : slot, in, 0), slot);
        assertThat(run(ring)).as("read at slot %d", slot).isEqualTo(BS);
        assertThat(bytes(in)).isEqualTo(pattern(seed, BS));
        assertThat(Files.readAllBytes(expectedFile)).isEqualTo(pattern(seed, BS));
    }

    private static void fileOp(Sqe sqe, int slot) {
        if (slot >= 0) {
            sqe.addFlags(SqeFlags.FIXED_FILE);
        }
    }

    /** A READ of up to 4 KiB at offset 0 through fixed file {@code slot}; returns the result. */
    private int fixedRead(int slot) throws Exception {
        ring.sq().next().prepRead(slot, arena.allocate(BS), 0).addFlags(SqeFlags.FIXED_FILE);
        return run(ring);
    }

    private static int[] repeat(int fd, int n) {
        int[] fds = new int[n];
        Arrays.fill(fds, fd);
        return fds;
    }
}
