package io.uring4j.ring;

import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Shared plumbing for the file-operation tests: reaping CQEs into values, iovecs, data patterns, temp files. */
final class FileTestKit {
    /** {@code struct iovec}: base u64, len u64. */
    static final long IOVEC_SIZE = 16;

    private FileTestKit() {
    }

    /** A CQE copied out of the ring (the {@link Cqe} cursor is only valid until the head moves). */
    record Completion(long userData, int res, int flags) {
        boolean hasBuffer() {
            return CqeFlags.hasBuffer(flags);
        }

        int bufferId() {
            return CqeFlags.bufferId(flags);
        }
    }

    /** Waits for the next CQE, copies and consumes it. */
    static Completion next(IoUring ring) throws ErrnoException {
        Cqe cqe = ring.waitCqe();
        Completion c = new Completion(cqe.userData(), cqe.res(), cqe.flags());
        ring.cq().seen(cqe);
        return c;
    }

    /** Waits for {@code n} CQEs and returns them in posting order. */
    static List<Completion> next(IoUring ring, int n) throws ErrnoException {
        List<Completion> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            all.add(next(ring));
        }
        return all;
    }

    /** Submits what is prepared (asserting that exactly {@code expected} SQEs went in) and reaps as many CQEs. */
    static List<Completion> submitAndReap(IoUring ring, int expected) throws ErrnoException {
        assertThat(ring.submitAndWait(expected)).as("SQEs submitted").isEqualTo(expected);
        return next(ring, expected);
    }

    /** Submits the one prepared SQE and returns its CQE's result. */
    static int run(IoUring ring) throws ErrnoException {
        return submitAndReap(ring, 1).getFirst().res();
    }

    /** Runs a call expected to throw {@link ErrnoException}; returns its positive errno. */
    static int errnoOf(ThrowingCallable call) {
        ErrnoException e = catchThrowableOfType(ErrnoException.class, call);
        assertThat(e).as("expected an ErrnoException").isNotNull();
        return e.errno();
    }

    /** Skips the test when the kernel lacks {@code opcode}. */
    static void assumeSupported(IoUring ring, byte opcode) throws ErrnoException {
        assumeTrue(ring.register().probe().isSupported(opcode),
                () -> "kernel lacks IORING_OP_" + Opcode.name(opcode));
    }

    /** An array of {@code struct iovec} describing {@code buffers}. */
    static MemorySegment iovecs(Arena arena, MemorySegment... buffers) {
        MemorySegment iov = arena.allocate(IOVEC_SIZE * buffers.length, 8);
        for (int i = 0; i < buffers.length; i++) {
            iov.set(JAVA_LONG, IOVEC_SIZE * i, buffers[i].address());
            iov.set(JAVA_LONG, IOVEC_SIZE * i + 8, buffers[i].byteSize());
        }
        return iov;
    }

    /** The byte at {@code pos} of the test pattern {@code seed}: position-dependent, so misplaced data shows. */
    static byte patternByte(int seed, long pos) {
        return (byte) (seed * 31 + pos * 7 + (pos >>> 9));
    }

    static byte[] pattern(int seed, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = patternByte(seed, i);
        }
        return bytes;
    }

    static void fillPattern(MemorySegment buf, int seed) {
        for (long i = 0; i < buf.byteSize(); i++) {
            buf.set(JAVA_BYTE, i, patternByte(seed, i));
        }
    }

    static void fill(MemorySegment buf, byte value) {
        buf.fill(value);
    }

    static byte[] bytes(MemorySegment buf) {
        return buf.toArray(JAVA_BYTE);
    }

    /** Opens {@code path} with {@code flags} (mode 0644), asserting success. */
    static int open(Path path, int flags) {
        int fd = LibC.open(path.toString(), flags, 0644);
        assertThat(fd).as("open(%s)", path).isGreaterThanOrEqualTo(0);
        return fd;
    }

    /** Creates a pipe, asserting success: {read end, write end}. */
    static int[] pipe() {
        int[] fds = new int[2];
        assertThat(LibC.pipe2(fds, LibC.O_CLOEXEC)).isZero();
        return fds;
    }

    /** Closes every fd, ignoring -1. */
    static void closeAll(int... fds) {
        for (int fd : fds) {
            if (fd >= 0) {
                LibC.close(fd);
            }
        }
    }
}
