package io.uring4j.runtime;

import io.uring4j.ring.Sqe;

import java.lang.foreign.MemorySegment;

/**
 * A request to run on an event loop: writes its SQE when the loop gets to it.
 *
 * <p>An op owns the memory its SQE points at. The loop keeps the op object referenced until the request's
 * final CQE — after the caller cancels, times out, is interrupted, or closes the runtime — so whatever the op
 * holds (a buffer, a path) cannot be collected while the kernel may touch it. Small kernel-visible structs
 * (timespecs, iovecs, socklen_t) go into {@code scratch}: {@link #SCRATCH_BYTES} of native memory that belongs to
 * the request slot and lives exactly as long as the request.
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
}
