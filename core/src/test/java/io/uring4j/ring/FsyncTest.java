package io.uring4j.ring;

import io.uring4j.ring.FileTestKit.Completion;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static io.uring4j.ring.FileTestKit.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing fsync.c: FSYNC completes; four WRITEVs followed by an IO_DRAIN'ed FSYNC(DATASYNC) complete writes
 * first and the fsync fifth; SYNC_FILE_RANGE completes with 0.
 */
class FsyncTest {
    private static final int BS = 4096;

    @TempDir
    Path dir;

    @Test
    void fsyncOfAFileCompletesWithZero() throws Exception {
        int fd = open(dir.resolve("fsync.dat"), LibC.O_CREAT | LibC.O_WRONLY);
        try (IoUring ring = IoUring.open(4)) {
            ring.sq().next().prepFsync(fd, 0);
            assertThat(run(ring)).isZero();
            ring.sq().next().prepFsync(fd, OpFlags.Fsync.DATASYNC);
            assertThat(run(ring)).isZero();
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void drainedFsyncCompletesAfterTheFourWritesBeforeIt() throws Exception {
        Path file = dir.resolve("drain.dat");
        int fd = open(file, LibC.O_CREAT | LibC.O_WRONLY);
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            for (int i = 0; i < 4; i++) {
                MemorySegment buf = arena.allocate(BS);
                fillPattern(buf, i);
                ring.sq().next().prepWritev(fd, iovecs(arena, buf), 1, (long) i * BS, 0).userData(0);
            }
            ring.sq().next().prepFsync(fd, OpFlags.Fsync.DATASYNC).addFlags(SqeFlags.IO_DRAIN).userData(1);

            List<Completion> completions = submitAndReap(ring, 5);
            assertThat(completions).extracting(Completion::userData).containsExactly(0L, 0L, 0L, 0L, 1L);
            assertThat(completions).extracting(Completion::res).containsExactly(BS, BS, BS, BS, 0);
        } finally {
            LibC.close(fd);
        }
        assertThat(Files.size(file)).isEqualTo(4L * BS);
    }

    @Test
    void syncFileRangeCompletesWithZero() throws Exception {
        Path file = Files.write(dir.resolve("range.dat"), pattern(1, 2 * BS));
        int fd = open(file, LibC.O_WRONLY);
        try (IoUring ring = IoUring.open(4)) {
            ring.sq().next().prepSyncFileRange(fd, 0, 0, 0);
            assertThat(run(ring)).isZero();
        } finally {
            LibC.close(fd);
        }
    }

    @Test
    void fsyncOfABadFdFailsWithEbadf() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            ring.sq().next().prepFsync(-1, 0);
            assertThat(run(ring)).isEqualTo(-Errno.EBADF);
        }
    }
}
