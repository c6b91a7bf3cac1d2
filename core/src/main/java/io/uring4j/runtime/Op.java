package io.uring4j.runtime;

import io.uring4j.ring.Sqe;
import io.uring4j.ring.Timespec;
import io.uring4j.ring.abi.OpFlags;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * A request to run on an event loop: writes its SQE when the loop gets to it.
 *
 * <p>An op owns the memory its SQE points at. The loop keeps the op object referenced until the request's
 * final CQE — after the caller cancels, times out, is interrupted, or closes the runtime — so whatever the op
 * holds (a buffer, a path) cannot be collected while the kernel may touch it. Small kernel-visible structs
 * (timespecs, iovecs, socklen_t) go into {@code scratch}: {@link #SCRATCH_BYTES} of native memory that belongs to
 * the request slot and lives exactly as long as the request.
 *
 * <p>The static methods make ready-made ops for the common requests ({@code Op.read(fd, buffer, 0)}); files and
 * sockets have richer ones in {@code FileOps} and {@code NetOps}. Arguments are checked there, on the caller's
 * thread, so a bad argument is an exception where the mistake was made. Buffers must be native memory the caller
 * keeps alive until the request completes (the op holds a reference; closing the buffer's arena early is the
 * caller's bug).
 */
@FunctionalInterface
public interface Op {
    /** Bytes of per-request native scratch memory handed to {@link #prepare}. */
    int SCRATCH_BYTES = 64;

    /**
     * Fills {@code sqe}, which carries the request's user_data (do not overwrite it): a prep method first, which
     * writes every other field, then any single fields.
     *
     * @param scratch {@link #SCRATCH_BYTES} bytes of native memory owned by this request until its final CQE
     */
    void prepare(Sqe sqe, MemorySegment scratch);

    /**
     * The result the future and blocking styles report for a CQE result; negative values are errors. Timers
     * override this to report their expiry (-ETIME) as success.
     */
    default int result(int cqeResult) {
        return cqeResult;
    }

    static Op nop() {
        return (sqe, scratch) -> sqe.prepNop();
    }

    /** A no-op that completes with {@code result}. */
    static Op nop(int result) {
        return (sqe, scratch) -> sqe.prepNop(result);
    }

    /** pread into all of {@code buffer}. */
    static Op read(int fd, MemorySegment buffer, long offset) {
        requireNative(buffer);
        requireOffset(offset);
        return (sqe, scratch) -> sqe.prepRead(fd, buffer, offset);
    }

    /** pwrite of all of {@code buffer}. */
    static Op write(int fd, MemorySegment buffer, long offset) {
        requireNative(buffer);
        requireOffset(offset);
        return (sqe, scratch) -> sqe.prepWrite(fd, buffer, offset);
    }

    /** Read into a pool buffer through the fixed-buffer path (the pool must be registered: {@link UringBuilder#fixedBuffers}). */
    static Op readFixed(int fd, BufferPool.Buffer buffer, long offset) {
        requireOffset(offset);
        return (sqe, scratch) -> sqe.prepReadFixed(fd, buffer.segment(), offset, BufferPool.FIXED_INDEX);
    }

    /** Write from a pool buffer through the fixed-buffer path. */
    static Op writeFixed(int fd, BufferPool.Buffer buffer, long offset) {
        requireOffset(offset);
        return (sqe, scratch) -> sqe.prepWriteFixed(fd, buffer.segment(), offset, BufferPool.FIXED_INDEX);
    }

    /** pread into a direct {@link java.nio.ByteBuffer} between its position and limit; heap buffers are refused. */
    static Op read(int fd, java.nio.ByteBuffer buffer, long offset) {
        return read(fd, direct(buffer), offset);
    }

    /** pwrite from a direct {@link java.nio.ByteBuffer} between its position and limit; heap buffers are refused. */
    static Op write(int fd, java.nio.ByteBuffer buffer, long offset) {
        return write(fd, direct(buffer), offset);
    }

    /** A timer that fires at {@code deadlineNanos} of CLOCK_MONOTONIC ({@code System.nanoTime()} is not that clock). */
    static Op timeoutAt(long monotonicNanos) {
        return new Op() {
            @Override
            public void prepare(Sqe sqe, MemorySegment scratch) {
                Timespec.set(scratch, monotonicNanos);
                sqe.prepTimeout(scratch, 0, OpFlags.Timeout.ABS);
            }

            @Override
            public int result(int cqeResult) {
                return isTimerExpiry(cqeResult) ? 0 : cqeResult;
            }
        };
    }

    /** Cancels every request of this loop; the result is how many. */
    static Op cancelAll() {
        return (sqe, scratch) -> sqe.prepCancel(0, OpFlags.Cancel.ANY | OpFlags.Cancel.ALL);
    }

    static Op fsync(int fd) {
        return (sqe, scratch) -> sqe.prepFsync(fd, 0);
    }

    static Op close(int fd) {
        return (sqe, scratch) -> sqe.prepClose(fd);
    }

    /** Closes direct descriptor {@code slot} of this loop's file table (see {@link UringBuilder#directDescriptors}). */
    static Op closeDirect(int slot) {
        return (sqe, scratch) -> sqe.prepCloseDirect(slot);
    }

    /** One-shot poll; the result is the ready mask. */
    static Op poll(int fd, int events) {
        return (sqe, scratch) -> sqe.prepPollAdd(fd, events);
    }

    /**
     * A timer that fires once after {@code delay}. Its CQE result is -ETIME; the future and blocking styles
     * report that expiry as 0. The timespec lives in the request's scratch memory, not in the caller's frame.
     */
    static Op timeout(Duration delay) {
        long nanos = delay.toNanos();
        if (nanos < 0) {
            throw new IllegalArgumentException("negative delay: " + delay);
        }
        return new Op() {
            @Override
            public void prepare(Sqe sqe, MemorySegment scratch) {
                Timespec.set(scratch, nanos);
                sqe.prepTimeout(scratch, 0, 0);
            }

            @Override
            public int result(int cqeResult) {
                return isTimerExpiry(cqeResult) ? 0 : cqeResult;
            }
        };
    }

    /** A repeating timer: a CQE with F_MORE every {@code period} until cancelled (6.4). */
    static Op periodic(Duration period) {
        long nanos = period.toNanos();
        if (nanos <= 0) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        return (sqe, scratch) -> {
            Timespec.set(scratch, nanos);
            sqe.prepTimeout(scratch, 0, OpFlags.Timeout.MULTISHOT);
        };
    }

    /** Whether a timer's result means it expired (-ETIME). */
    static boolean isTimerExpiry(int result) {
        return result == -io.uring4j.sys.Errno.ETIME;
    }

    /** Cancels every request on {@code fd}; the result is how many. */
    static Op cancelFd(int fd) {
        return (sqe, scratch) -> sqe.prepCancelFd(fd, OpFlags.Cancel.ALL);
    }

    /**
     * Cancels every request on direct descriptor {@code slot}; the result is how many. Close alone would leave
     * them running: each holds its own reference to the file.
     */
    static Op cancelDirect(int slot) {
        return (sqe, scratch) -> sqe.prepCancelFd(slot, OpFlags.Cancel.FD_FIXED | OpFlags.Cancel.ALL);
    }

    private static MemorySegment direct(java.nio.ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("heap ByteBuffers cannot be handed to the kernel: use ByteBuffer.allocateDirect"
                    + " or a BufferPool buffer");
        }
        return MemorySegment.ofBuffer(buffer);
    }

    private static void requireNative(MemorySegment buffer) {
        if (!buffer.isNative()) {
            throw new IllegalArgumentException(
                    "heap memory cannot be handed to the kernel: use a native segment (Arena.allocate) or a direct buffer");
        }
    }

    private static void requireOffset(long offset) {
        if (offset < -1) {
            throw new IllegalArgumentException("negative file offset: " + offset);
        }
    }
}
