package io.uring4j.ring;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.sys.Errno;

/**
 * A copy of one CQE. {@link Cqe} is a cursor, valid only until the CQ head moves; a test that looks at several
 * completions keeps these. Records compare by value, so a whole completion sequence can be asserted in one
 * {@code containsExactly(cqe(1, -ETIME), cqe(2, 0))}; a failure prints errno and flag names, not numbers.
 * Reaping them is {@link Reap}'s job.
 */
record Completion(long userData, int res, int flags) {
    static Completion of(Cqe cqe) {
        return new Completion(cqe.userData(), cqe.res(), cqe.flags());
    }

    /** The expected completion {@code (userData, res)} with no CQE flags. */
    static Completion cqe(long userData, int res) {
        return new Completion(userData, res, 0);
    }

    boolean hasMore() {
        return CqeFlags.hasMore(flags);
    }

    boolean hasBuffer() {
        return CqeFlags.hasBuffer(flags);
    }

    int bufferId() {
        return CqeFlags.bufferId(flags);
    }

    boolean isNotification() {
        return CqeFlags.isNotification(flags);
    }

    @Override
    public String toString() {
        return "(user_data=" + userData + " res=" + (res < 0 ? Errno.name(res) : Integer.toString(res))
                + (flags == 0 ? "" : " flags=" + CqeFlags.toString(flags)) + ")";
    }
}
