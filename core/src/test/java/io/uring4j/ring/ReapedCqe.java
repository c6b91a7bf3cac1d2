package io.uring4j.ring;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A copy of one CQE, for tests that look at several completions at once: {@link Cqe} is a cursor, valid only
 * until the CQ head moves. Records compare by value, so a whole completion sequence can be asserted in one
 * {@code containsExactly(cqe(1, -ETIME), cqe(2, 0))}; a failure prints errno names, not numbers.
 *
 * <p>The reaping helpers wait with a bound: a completion that never comes fails the test instead of hanging it.
 */
record ReapedCqe(long userData, int res, int flags) {
    /** How long a test waits for a completion it expects; far above anything the tests expect to take. */
    static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** The expected completion {@code (userData, res)} with no CQE flags. */
    static ReapedCqe cqe(long userData, int res) {
        return new ReapedCqe(userData, res, 0);
    }

    static ReapedCqe of(Cqe cqe) {
        return new ReapedCqe(cqe.userData(), cqe.res(), cqe.flags());
    }

    /** Waits for the next CQE, copies it and consumes it. */
    static ReapedCqe next(IoUring ring) throws ErrnoException {
        Cqe cqe = ring.waitCqes(1, PATIENCE_NANOS);
        assertThat(cqe).as("a CQE within %d s", TimeUnit.NANOSECONDS.toSeconds(PATIENCE_NANOS)).isNotNull();
        ReapedCqe copy = of(cqe);
        ring.cq().seen(cqe);
        return copy;
    }

    /** The next {@code count} CQEs, in the order the kernel posted them. */
    static List<ReapedCqe> next(IoUring ring, int count) throws ErrnoException {
        List<ReapedCqe> cqes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            cqes.add(next(ring));
        }
        return cqes;
    }

    /** The same CQEs keyed by user_data, for requests whose relative order the kernel does not define. */
    static Map<Long, ReapedCqe> byUserData(List<ReapedCqe> cqes) {
        Map<Long, ReapedCqe> map = new LinkedHashMap<>();
        for (ReapedCqe cqe : cqes) {
            assertThat(map.put(cqe.userData(), cqe)).as("a second CQE for user_data %d in %s", cqe.userData(), cqes)
                    .isNull();
        }
        return map;
    }

    static List<Long> userDataOf(List<ReapedCqe> cqes) {
        return cqes.stream().map(ReapedCqe::userData).toList();
    }

    /** Nothing more is posted, nor held back by the kernel for the next enter. */
    static void assertNoMoreCqes(IoUring ring) throws ErrnoException {
        Cqe extra = ring.peekCqe();
        assertThat(extra == null ? null : of(extra)).as("an unexpected extra CQE").isNull();
    }

    boolean hasMore() {
        return CqeFlags.hasMore(flags);
    }

    @Override
    public String toString() {
        return "(user_data=" + userData + " res=" + (res < 0 ? Errno.name(res) : Integer.toString(res))
                + (flags == 0 ? "" : " flags=" + CqeFlags.toString(flags)) + ")";
    }
}
