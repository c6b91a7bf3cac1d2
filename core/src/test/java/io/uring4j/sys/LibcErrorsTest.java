package io.uring4j.sys;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every libc call linked with the shared shape ({@link Native#LONGS}) reports a failure as {@code -errno}: an
 * {@code int} result is the low half of the register returned, so a call site that took the whole register as is
 * would answer 4294967295 for -1 instead of the errno. Each call here fails on purpose, on a bad fd or argument.
 */
class LibcErrorsTest {
    private static final int BAD_FD = -1;

    /** A CQE can carry the kernel's internal restart code (a worker's request interrupted): it is named too. */
    @Test
    void theKernelsRestartCodesHaveNames() {
        assertThat(new ErrnoException("splice", -512)).hasMessage(
                "splice: ERESTARTSYS (Interrupted system call (the kernel's restart code))");
        assertThat(Errno.name(516)).isEqualTo("ERESTART_RESTARTBLOCK");
        assertThat(Errno.name(515)).isEqualTo("errno 515");
    }

    @Test
    void descriptorCallsNameTheBadDescriptor() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(16);
            assertThat(LibC.close(BAD_FD)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.read(BAD_FD, buf)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.write(BAD_FD, buf)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.pread(BAD_FD, buf, 0)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.pwrite(BAD_FD, buf, 0)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.preadv2(BAD_FD, buf, 0, 0)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.pwritev2(BAD_FD, buf, 0, 0)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.fsync(BAD_FD, false)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.fsync(BAD_FD, true)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.ftruncate(BAD_FD, 0)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.lseek(BAD_FD, 0, LibC.SEEK_CUR)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.fileSize(BAD_FD)).isEqualTo(-Errno.EBADF);
            assertThat(LibC.fileType(BAD_FD)).isEqualTo(-Errno.EBADF);
        }
    }

    @Test
    void badArgumentsAreRefusedWithTheirErrno() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(LibC.eventfd(0, -1)).isEqualTo(-Errno.EINVAL);
            assertThat(LibC.pipe2(new int[2], -1)).isEqualTo(-Errno.EINVAL);
            assertThat(LibC.munmap(1, LibC.PAGE_SIZE)).as("unaligned").isEqualTo(-Errno.EINVAL);
            assertThat(LibC.madvise(1, LibC.PAGE_SIZE, LibC.MADV_DONTFORK)).as("unaligned").isEqualTo(-Errno.EINVAL);
            assertThat(LibC.mmap(0, 0, LibC.PROT_READ, LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS, -1, 0))
                    .as("zero length").isEqualTo(-Errno.EINVAL);
            assertThat(LibC.setrlimit(-1, 0, 0)).isEqualTo(-Errno.EINVAL);
            assertThat(LibC.getrlimit(-1)).as("refused").isNull();
            assertThat(LibC.open("/nonexistent/uring4j", LibC.O_RDONLY, 0)).isEqualTo(-Errno.ENOENT);
            assertThat(LibC.pathType(arena.allocateFrom("/nonexistent/uring4j"))).isEqualTo(-Errno.ENOENT);
        }
    }

    @Test
    void socketCallsNameTheBadDescriptor() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment addr = Sockets.loopback(arena, 0);
            MemorySegment buf = arena.allocate(16);
            MemorySegment msghdr = Sockets.msghdr(arena, MemorySegment.NULL, buf);
            assertThat(Sockets.bind(BAD_FD, addr)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.listen(BAD_FD, 1)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.connect(BAD_FD, addr)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.accept4(BAD_FD, 0)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.getsockname(BAD_FD, addr)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.getpeername(BAD_FD, addr)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.setsockopt(BAD_FD, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1))
                    .isEqualTo(-Errno.EBADF);
            assertThat(Sockets.getsockopt(BAD_FD, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, arena.allocate(4)))
                    .isEqualTo(-Errno.EBADF);
            assertThat(Sockets.shutdown(BAD_FD, Sockets.SHUT_RDWR)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.recv(BAD_FD, buf, 0)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.send(BAD_FD, buf, 0)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.recvmsg(BAD_FD, msghdr, 0)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.sendmsg(BAD_FD, msghdr, 0)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.nonBlocking(BAD_FD, true)).isEqualTo(-Errno.EBADF);
            assertThat(Sockets.socket(12345, Sockets.SOCK_STREAM, 0)).isEqualTo(-Errno.EAFNOSUPPORT);
            assertThat(Sockets.socketpair(12345, Sockets.SOCK_STREAM, 0, new int[2]))
                    .isEqualTo(-Errno.EAFNOSUPPORT);
        }
    }
}
