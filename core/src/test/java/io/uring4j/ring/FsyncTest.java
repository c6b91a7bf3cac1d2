package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.FileKit.iovecs;
import static io.uring4j.ring.Reap.run;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.testkit.Patterns.fillPattern;
import static io.uring4j.testkit.Patterns.pattern;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing fsync.c: FSYNC completes; four WRITEVs followed by an IO_DRAIN'ed FSYNC(DATASYNC) complete writes
 * first and the fsync fifth; SYNC_FILE_RANGE completes with 0.
 */
@BothEngines
class FsyncTest {
    private static final int BS = 4096;

    @TempDir
    Path dir;

    @Test
    void fsyncOfAFileCompletesWithZero() throws Exception {
        try (Fd file = Fd.open(dir.resolve("fsync.dat"), LibC.O_CREAT | LibC.O_WRONLY);
             IoUring ring = IoUring.open(4)) {
            ring.sq().next().prepFsync(file.fd(), 0);
            assertThat(run(ring)).isZero();
            ring.sq().next().prepFsync(file.fd(), OpFlags.Fsync.DATASYNC);
            assertThat(run(ring)).isZero();
        }
    }

    @Test
    void drainedFsyncCompletesAfterTheFourWritesBeforeIt() throws Exception {
        Path path = dir.resolve("drain.dat");
        try (Fd file = Fd.open(path, LibC.O_CREAT | LibC.O_WRONLY); Arena arena = Arena.ofConfined();
             IoUring ring = IoUring.open(8)) {
            for (int i = 0; i < 4; i++) {
                MemorySegment buf = arena.allocate(BS);
                fillPattern(buf, i);
                ring.sq().next().prepWritev(file.fd(), iovecs(arena, buf), 1, (long) i * BS, 0).userData(0);
            }
            ring.sq().next().prepFsync(file.fd(), OpFlags.Fsync.DATASYNC).addFlags(SqeFlags.IO_DRAIN).userData(1);

            assertThat(submitAndReap(ring, 5))
                    .containsExactly(cqe(0, BS), cqe(0, BS), cqe(0, BS), cqe(0, BS), cqe(1, 0));
        }
        assertThat(Files.size(path)).isEqualTo(4L * BS);
    }

    @Test
    void syncFileRangeCompletesWithZero() throws Exception {
        Rings.kernelOnly("SYNC_FILE_RANGE is not implemented");
        Path path = Files.write(dir.resolve("range.dat"), pattern(1, 2 * BS));
        try (Fd file = Fd.open(path, LibC.O_WRONLY); IoUring ring = IoUring.open(4)) {
            ring.sq().next().prepSyncFileRange(file.fd(), 0, 0, 0);
            assertThat(run(ring)).isZero();
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
