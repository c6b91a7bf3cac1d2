package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Newer opcodes with typed preps: PIPE, xattrs, READV_FIXED (liburing's pipe.c, xattr.c, vec-regbuf.c). */
class NewerOpsTest {
    @TempDir
    Path dir;

    private static String ascii(MemorySegment bytes) {
        return new String(bytes.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    private static Cqe reap(IoUring ring, long userData) throws Exception {
        ring.submitAndWait(1);
        Cqe cqe = ring.waitCqe();
        assertThat(cqe.userData()).isEqualTo(userData);
        return cqe;
    }

    @Test
    void pipeOpcodeCreatesAWorkingPipe() throws Exception {
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            assumeTrue(ring.register().probe().isSupported(Opcode.PIPE), "kernel lacks IORING_OP_PIPE (6.16)");
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            ring.sq().next().prepPipe(fds, LibC.O_CLOEXEC).userData(1);
            Cqe cqe = reap(ring, 1);
            assertThat(cqe.res()).isZero();
            ring.cq().seen(cqe);
            int readEnd = fds.getAtIndex(JAVA_INT, 0);
            int writeEnd = fds.getAtIndex(JAVA_INT, 1);
            MemorySegment hello = arena.allocateFrom("hello", StandardCharsets.UTF_8).asSlice(0, 5);
            assertThat(LibC.write(writeEnd, hello)).isEqualTo(5);
            MemorySegment in = arena.allocate(5);
            assertThat(LibC.read(readEnd, in)).isEqualTo(5);
            assertThat(ascii(in)).isEqualTo("hello");
            LibC.close(readEnd);
            LibC.close(writeEnd);
        }
    }

    @Test
    void xattrsRoundTripByFdAndByPath() throws Exception {
        Path file = Files.writeString(dir.resolve("x"), "data");
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            Probe probe = ring.register().probe();
            assumeTrue(probe.isSupported(Opcode.FSETXATTR) && probe.isSupported(Opcode.GETXATTR),
                    "kernel lacks the xattr opcodes (5.19)");
            int fd = LibC.open(file.toString(), LibC.O_RDWR, 0);
            MemorySegment name = arena.allocateFrom("user.uring4j");
            MemorySegment value = arena.allocateFrom("v1", StandardCharsets.UTF_8).asSlice(0, 2);
            ring.sq().next().prepFsetxattr(fd, name, value, 0).userData(1);
            Cqe set = reap(ring, 1);
            assumeTrue(set.res() != -Errno.EOPNOTSUPP, "the temp file system has no user xattrs");
            assertThat(set.res()).isZero();
            ring.cq().seen(set);

            MemorySegment out = arena.allocate(16);
            ring.sq().next().prepGetxattr(arena.allocateFrom(file.toString()), name, out).userData(2);
            Cqe get = reap(ring, 2);
            assertThat(get.res()).isEqualTo(2);
            assertThat(out.getString(0, StandardCharsets.UTF_8)).isEqualTo("v1");
            ring.cq().seen(get);

            ring.sq().next().prepFgetxattr(fd, arena.allocateFrom("user.missing"), out).userData(3);
            Cqe missing = reap(ring, 3);
            assertThat(missing.res()).isEqualTo(-Errno.ENODATA);
            ring.cq().seen(missing);
            LibC.close(fd);
        }
    }

    @Test
    void readvFixedReadsIntoARegisteredBuffer() throws Exception {
        Path file = Files.writeString(dir.resolve("r"), "0123456789abcdef");
        try (IoUring ring = IoUring.open(8); Arena arena = Arena.ofConfined()) {
            assumeTrue(ring.register().probe().isSupported(Opcode.READV_FIXED), "kernel lacks READV_FIXED (6.15)");
            MemorySegment registered = arena.allocate(4096, 4096);
            ring.register().buffers(registered);
            MemorySegment iov = arena.allocate(32, 8);
            iov.set(JAVA_LONG, 0, registered.address());
            iov.set(JAVA_LONG, 8, 4);
            iov.set(JAVA_LONG, 16, registered.address() + 100);
            iov.set(JAVA_LONG, 24, 6);
            int fd = LibC.open(file.toString(), LibC.O_RDONLY, 0);
            ring.sq().next().prepReadvFixed(fd, iov, 2, 0, 0, 0).userData(4);
            Cqe cqe = reap(ring, 4);
            assertThat(cqe.res()).isEqualTo(10);
            ring.cq().seen(cqe);
            assertThat(ascii(registered.asSlice(0, 4))).isEqualTo("0123");
            assertThat(ascii(registered.asSlice(100, 6))).isEqualTo("456789");
            LibC.close(fd);
        }
    }
}
