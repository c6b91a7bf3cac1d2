package io.uring4j.ring;

import io.uring4j.sys.ErrnoException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Submitting and reaping for the ring tests: completions copied out of the CQ as {@link Completion}s, in the
 * order the kernel posted them, and the usual views of them.
 *
 * <p>Every wait is bounded by {@link #PATIENCE_NANOS}: a completion that never comes (a bug) fails the test
 * instead of hanging the build. Not for SQPOLL rings, where a submit may count short (the thread takes SQEs
 * itself): those tests submit and wait by hand and reap with {@link #reap(IoUring, int)}.
 */
final class Reap {
    /**
     * How long a test waits for a completion it expects: far above anything a loaded machine needs, and far
     * below the 30 s the tests use for timers that must never fire, so "it completed at all" can stand in for
     * "an update shortened that timer".
     */
    static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private Reap() {
    }

    /** Waits for the next CQE, copies it and consumes it. */
    static Completion reap(IoUring ring) throws ErrnoException {
        return reap(ring, 1).getFirst();
    }

    /** The next {@code count} CQEs, in the order the kernel posted them. */
    static List<Completion> reap(IoUring ring, int count) throws ErrnoException {
        List<Completion> out = new ArrayList<>(count);
        while (out.size() < count) {
            long start = System.nanoTime();
            if (ring.waitCqes(1, PATIENCE_NANOS) == null) {
                fail("no CQE within %d s (waited %d ms; cq ready %d, sq flags %d): got %d of %d: %s",
                        TimeUnit.NANOSECONDS.toSeconds(PATIENCE_NANOS),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), ring.cq().ready(),
                        ring.sq().kernelFlags(), out.size(), count, out);
            }
            ring.cq().drain(cqe -> out.add(Completion.of(cqe)), count - out.size());
        }
        return out;
    }

    /**
     * Submits what is prepared, asserting that the kernel took all of it (a submit stops early at an SQE that
     * fails at submission), then waits for and returns {@code count} CQEs — more than the SQEs for multishot
     * requests, zero-copy notifications and messages, or fewer, for requests submitted earlier.
     */
    static List<Completion> submitAndReap(IoUring ring, int count) throws ErrnoException {
        int prepared = ring.sq().ready();
        assertThat(ring.submitAndWait(count, PATIENCE_NANOS)).as("SQEs submitted").isEqualTo(prepared);
        return reap(ring, count);
    }

    /** Submits what is prepared and returns the one CQE that follows. */
    static Completion submitAndReap(IoUring ring) throws ErrnoException {
        return submitAndReap(ring, 1).getFirst();
    }

    /** Submits the one prepared SQE and returns its CQE's result. */
    static int run(IoUring ring) throws ErrnoException {
        return submitAndReap(ring).res();
    }

    /** Copies every CQE that is in the CQ right now, without entering the kernel. */
    static List<Completion> drainReady(IoUring ring) {
        List<Completion> out = new ArrayList<>();
        ring.cq().drain(cqe -> out.add(Completion.of(cqe)));
        return out;
    }

    /** Waits for {@code count} CQEs and maps user_data to result, for requests whose order is not defined. */
    static Map<Long, Integer> reapResults(IoUring ring, int count) throws ErrnoException {
        Map<Long, Integer> results = new LinkedHashMap<>();
        byUserData(reap(ring, count)).forEach((userData, cqe) -> results.put(userData, cqe.res()));
        return results;
    }

    /** The CQEs keyed by user_data, for requests whose relative order the kernel does not define. */
    static Map<Long, Completion> byUserData(List<Completion> cqes) {
        Map<Long, Completion> map = new LinkedHashMap<>();
        for (Completion cqe : cqes) {
            assertThat(map.put(cqe.userData(), cqe)).as("a second CQE for user_data %d in %s", cqe.userData(), cqes)
                    .isNull();
        }
        return map;
    }

    /** The one CQE with {@code userData} among {@code cqes}. */
    static Completion only(List<Completion> cqes, long userData) {
        List<Completion> matching = cqes.stream().filter(c -> c.userData() == userData).toList();
        assertThat(matching).as("CQEs with user_data %d in %s", userData, cqes).hasSize(1);
        return matching.getFirst();
    }

    static List<Long> userDataOf(List<Completion> cqes) {
        return cqes.stream().map(Completion::userData).toList();
    }

    /** Nothing more is posted, nor held back by the kernel for the next enter. */
    static void assertNoMoreCqes(IoUring ring) throws ErrnoException {
        Cqe extra = ring.peekCqe();
        assertThat(extra == null ? null : Completion.of(extra)).as("an unexpected extra CQE").isNull();
    }
}
