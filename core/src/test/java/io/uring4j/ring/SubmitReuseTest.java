package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * liburing submit-reuse.c (and defer-taskrun.c test_drain): with FEAT_SUBMIT_STABLE the kernel has copied what
 * describes a request — here the iovec array — by the time submit returns, so the application may overwrite it
 * at once, even when the request then runs on io-wq (IOSQE_ASYNC) or is held back by IO_DRAIN. The data buffers
 * themselves must stay alive until the CQE.
 */
@Timeout(30)
@BothEngines
class SubmitReuseTest {
    private static final int BLOCK = 4096;
    private static final int POSIX_FADV_DONTNEED = 4;

    @TempDir
    static Path dir;
    private static Path file;
    private static byte[] content;

    @BeforeAll
    static void fileWithAPattern() throws Exception {
        try (IoUring ring = IoUring.open(2)) {
            assumeTrue(ring.hasFeature(Features.SUBMIT_STABLE), "kernel lacks IORING_FEAT_SUBMIT_STABLE");
        }
        content = new byte[16 * BLOCK];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31 + i / BLOCK);
        }
        file = Files.write(dir.resolve("submit-reuse"), content);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.force(true);    // clean pages can be evicted; dirty ones cannot
        }
    }

    @ParameterizedTest(name = "{0} iovecs, IOSQE_ASYNC {1}")
    @CsvSource({"1, false", "1, true", "16, false", "16, true"})
    void aReadvSucceedsAfterItsIovecsAreZeroedRightAfterSubmit(int iovecs, boolean async) throws Exception {
        try (Fd in = Fd.open(file, LibC.O_RDONLY | LibC.O_CLOEXEC); Arena arena = Arena.ofConfined();
             IoUring ring = IoUring.open(8)) {
            MemorySegment data = arena.allocate((long) iovecs * BLOCK, BLOCK);
            MemorySegment[] blocks = new MemorySegment[iovecs];
            for (int i = 0; i < iovecs; i++) {
                blocks[i] = data.asSlice((long) i * BLOCK, BLOCK);
            }
            MemorySegment iov = FileKit.iovecs(arena, blocks);

            // liburing evicts the page cache so the read cannot complete inline during submit and must be retried
            // later (from io-wq or task work), after the iovecs below are gone.
            ring.sq().next().prepFadvise(in.fd(), 0, 0, POSIX_FADV_DONTNEED).userData(0);
            assertThat(submitAndReap(ring)).isEqualTo(cqe(0, 0));

            ring.sq().next().prepReadv(in.fd(), iov, iovecs, 0, 0).userData(1).addFlags(async ? SqeFlags.ASYNC : 0);
            assertThat(ring.submit()).isEqualTo(1);
            iov.fill((byte) 0);     // a re-read of the array now would read nothing (len 0) or fault (base NULL)

            assertThat(reap(ring).res()).isEqualTo(iovecs * BLOCK);
            assertThat(data.toArray(JAVA_BYTE)).isEqualTo(Arrays.copyOf(content, iovecs * BLOCK));
        }
    }

    /**
     * test_drain: a WRITEV of 128 one-byte iovecs with IO_DRAIN on a DEFER_TASKRUN ring; the iov_base pointers
     * are NULLed right after submit, yet all 128 bytes arrive.
     */
    @Test
    void aDrainedWritevWritesAllAfterItsIovecsAreNulled() throws Exception {
        Rings.kernelOnlyFlags(SetupFlags.DEFER_TASKRUN);
        int n = 128;
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open();
             IoUring ring = IoUring.builder().entries(8).deferTaskrun().taskrunFlag().build()) {
            MemorySegment bytes = arena.allocate(n);
            MemorySegment[] oneByteEach = new MemorySegment[n];
            for (int i = 0; i < n; i++) {
                bytes.set(JAVA_BYTE, i, (byte) i);
                oneByteEach[i] = bytes.asSlice(i, 1);
            }
            MemorySegment iov = FileKit.iovecs(arena, oneByteEach);

            ring.sq().next().prepWritev(pipe.writeFd(), iov, n, 0, 0).userData(1).addFlags(SqeFlags.IO_DRAIN);
            assertThat(ring.submit()).isEqualTo(1);
            for (int i = 0; i < n; i++) {
                iov.set(JAVA_LONG, FileKit.IOVEC_SIZE * i, 0L);       // iov_base
            }

            assertThat(reap(ring).res()).isEqualTo(n);
            assertThat(pipe.read(n)).isEqualTo(bytes.toArray(JAVA_BYTE));
        }
    }
}
