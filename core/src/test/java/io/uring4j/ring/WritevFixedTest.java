package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.LibC;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/** WRITEV_FIXED (6.15): a gathering write whose iovecs point into a registered buffer (liburing's vec-regbuf.c). */
class WritevFixedTest {
    @TempDir
    Path dir;

    @Test
    void writevFixedGathersFromARegisteredBuffer() throws Exception {
        Path file = dir.resolve("w");
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            assumeSupported(ring, Opcode.WRITEV_FIXED);
            MemorySegment registered = arena.allocate(4096, 4096);
            registered.asSlice(0, 5).copyFrom(MemorySegment.ofArray("hello".getBytes(StandardCharsets.US_ASCII)));
            registered.asSlice(200, 6).copyFrom(MemorySegment.ofArray(" world".getBytes(StandardCharsets.US_ASCII)));
            ring.register().buffers(registered);
            MemorySegment iov = arena.allocate(32, 8);
            iov.set(JAVA_LONG, 0, registered.address());
            iov.set(JAVA_LONG, 8, 5);
            iov.set(JAVA_LONG, 16, registered.address() + 200);
            iov.set(JAVA_LONG, 24, 6);
            int fd = LibC.open(file.toString(), LibC.O_WRONLY | LibC.O_CREAT, 0644);
            try {
                ring.sq().next().prepWritevFixed(fd, iov, 2, 0, 0, 0).userData(1);
                assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, 11));
            } finally {
                LibC.close(fd);
            }
            assertThat(Files.readString(file)).isEqualTo("hello world");
        }
    }

    @Test
    void anIovecOutsideTheRegisteredBufferIsRefused() throws Exception {
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            assumeSupported(ring, Opcode.WRITEV_FIXED);
            MemorySegment registered = arena.allocate(4096, 4096);
            ring.register().buffers(registered);
            MemorySegment elsewhere = arena.allocate(64);
            MemorySegment iov = arena.allocate(16, 8);
            iov.set(JAVA_LONG, 0, elsewhere.address());
            iov.set(JAVA_LONG, 8, 8);
            int fd = LibC.open(dir.resolve("x").toString(), LibC.O_WRONLY | LibC.O_CREAT, 0644);
            try {
                ring.sq().next().prepWritevFixed(fd, iov, 1, 0, 0, 0).userData(1);
                assertThat(submitAndReap(ring).res()).as("EFAULT: not inside buffer 0").isEqualTo(-io.uring4j.sys.Errno.EFAULT);
            } finally {
                LibC.close(fd);
            }
        }
    }
}
