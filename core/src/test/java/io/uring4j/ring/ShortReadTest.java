package io.uring4j.ring;

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
import java.util.Arrays;
import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.FileKit.bytes;
import static io.uring4j.ring.FileKit.iovecs;
import static io.uring4j.ring.Reap.run;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.testkit.Patterns.pattern;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing short-read.c: a READV of 4096 bytes from a 1024-byte file completes with 1024 (a short read is a
 * success result). As the io_uring_enter man page says, it still breaks an IO_LINK chain.
 */
@BothEngines
class ShortReadTest {
    private static final int FILE_SIZE = 1024;
    private static final int READ_SIZE = 4096;

    @TempDir
    Path dir;

    private Path file;

    @BeforeEach
    void createFile() throws Exception {
        file = Files.write(dir.resolve("short.dat"), pattern(6, FILE_SIZE));
    }

    @Test
    void readvPastEndOfFileReturnsWhatThereIs() throws Exception {
        try (Fd in = Fd.open(file, LibC.O_RDONLY); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            MemorySegment buf = arena.allocate(READ_SIZE);
            ring.sq().next().prepReadv(in.fd(), iovecs(arena, buf), 1, 0, 0);
            assertThat(run(ring)).isEqualTo(FILE_SIZE);
            assertThat(Arrays.copyOf(bytes(buf), FILE_SIZE)).isEqualTo(pattern(6, FILE_SIZE));
        }
    }

    @Test
    void readAtEndOfFileReturnsZero() throws Exception {
        try (Fd in = Fd.open(file, LibC.O_RDONLY); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            ring.sq().next().prepRead(in.fd(), arena.allocate(READ_SIZE), FILE_SIZE);
            assertThat(run(ring)).isZero();
        }
    }

    @Test
    void aShortReadBreaksTheLinkAfterIt() throws Exception {
        try (Fd in = Fd.open(file, LibC.O_RDONLY); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            ring.sq().next().prepRead(in.fd(), arena.allocate(READ_SIZE), 0).userData(1).link();
            ring.sq().next().prepNop().userData(2);
            assertThat(submitAndReap(ring, 2)).containsExactly(cqe(1, FILE_SIZE), cqe(2, -Errno.ECANCELED));
        }
    }

    @Test
    void aShortPipeReadBreaksTheLinkToo() throws Exception {
        try (Pipe pipe = Pipe.open(); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            pipe.write(new byte[100]);
            ring.sq().next().prepRead(pipe.readFd(), arena.allocate(READ_SIZE), -1).userData(1).link();
            ring.sq().next().prepNop().userData(2);
            assertThat(submitAndReap(ring, 2)).containsExactly(cqe(1, 100), cqe(2, -Errno.ECANCELED));
        }
    }

    @Test
    void aRequestAfterAWriteIsNotShortOfThatWritesLength() throws Exception {
        try (Fd out = Fd.open(file, LibC.O_RDWR); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            ring.sq().next().prepWrite(out.fd(), arena.allocate(READ_SIZE), 0);
            assertThat(run(ring)).isEqualTo(READ_SIZE);
            // Only reads, writes and transfers fail a link by coming up short: an fd, or 0, is no short result.
            ring.sq().next().prepSocket(io.uring4j.sys.Sockets.AF_INET, io.uring4j.sys.Sockets.SOCK_STREAM
                    | io.uring4j.sys.Sockets.SOCK_CLOEXEC, 0).userData(1).link();
            ring.sq().next().prepNop().userData(2);
            var cqes = submitAndReap(ring, 2);
            assertThat(cqes.get(0).res()).as("socket").isGreaterThanOrEqualTo(0);
            LibC.close(cqes.get(0).res());
            assertThat(cqes.get(1)).isEqualTo(cqe(2, 0));
        }
    }
}
