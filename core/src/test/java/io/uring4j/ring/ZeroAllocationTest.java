package io.uring4j.ring;

import io.uring4j.ring.abi.SetupFlags;

import com.sun.management.ThreadMXBean;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hot path allocates nothing: preparing, submitting, waiting for and reaping 1,000,000 NOPs allocates
 * 0 bytes once warm, measured with {@link ThreadMXBean#getThreadAllocatedBytes(long)} — on the kernel's io_uring
 * and on the portable engine (whose enter, SQ consumption and completion run on this thread too). Each case
 * names its engine: this class runs in a JVM of its own (see core/pom.xml), not in the portable suite.
 */
class ZeroAllocationTest {
    private static final int DEPTH = 128;
    private static final int BATCH = 32;
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Kept in a field: a handler allocated per drain would be the allocation we are looking for. */
    private final CqeHandler reaper = this::reap;
    private long reaped;
    private long errors;

    private void reap(Cqe cqe) {
        reaped++;
        if (cqe.res() != 0) {
            errors++;
        }
    }

    static Stream<Arguments> nopRings() {
        return onEachEngine(0, SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN | SetupFlags.COOP_TASKRUN);
    }

    static Stream<Arguments> timedWaitRings() {
        return onEachEngine(0, SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN);
    }

    private static Stream<Arguments> onEachEngine(int... setupFlags) {
        return Stream.of(Engine.kernel(), Engine.portable())
                .flatMap(engine -> Arrays.stream(setupFlags)
                        .mapToObj(flags -> Arguments.of(Named.of(engine.name(), engine), flags)));
    }

    @ParameterizedTest(name = "{0} engine, setup flags {1}")
    @MethodSource("nopRings")
    void millionNopsAllocateNothing(Engine engine, int flags) throws Exception {
        try (IoUring ring = IoUring.builder().entries(DEPTH).flags(flags).engine(engine).build()) {
            assertWarmRunAllocatesNothing(ring, 1_000_000, false);
        }
    }

    @ParameterizedTest(name = "timed waits, {0} engine, setup flags {1}")
    @MethodSource("timedWaitRings")
    void timedWaitsAndRegisteredRingFdAllocateNothing(Engine engine, int flags) throws Exception {
        try (IoUring ring = IoUring.builder().entries(DEPTH).flags(flags).engine(engine).build()) {
            ring.register().ringFd();
            assertWarmRunAllocatesNothing(ring, 300_000, true);
        }
    }

    /**
     * Warms the hot path up, then runs {@code ops} NOPs and asserts they all succeeded and allocated 0 bytes.
     * A JIT deoptimisation in the middle of a run (another test's classes can invalidate a compiled method)
     * materialises a few scalar-replaced objects, so a run is repeated up to three times; an allocation per op
     * would show in every one of them.
     */
    private void assertWarmRunAllocatesNothing(IoUring ring, long ops, boolean timedWait) throws Exception {
        warmUp(ring, timedWait);
        long tid = Thread.currentThread().threadId();
        long least = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 3 && least != 0; attempt++) {
            long before = THREADS.getThreadAllocatedBytes(tid);
            run(ring, ops, timedWait);
            least = Math.min(least, THREADS.getThreadAllocatedBytes(tid) - before);
            assertThat(errors).isZero();
        }
        assertThat(least).as("bytes allocated for %,d NOPs%s (least of 3 runs)", ops,
                timedWait ? " with timed waits" : "").isZero();
    }

    /**
     * Runs until a round of 100,000 NOPs allocates nothing: the interpreter and C1 allocate where C2's escape
     * analysis does not, so "steady state" means after the hot path is compiled.
     */
    private void warmUp(IoUring ring, boolean timedWait) throws Exception {
        long tid = Thread.currentThread().threadId();
        for (int round = 0; round < 100; round++) {
            long before = THREADS.getThreadAllocatedBytes(tid);
            run(ring, 100_000, timedWait);
            if (THREADS.getThreadAllocatedBytes(tid) == before) {
                return;
            }
        }
    }

    /** fio's t/io_uring loop shape: keep DEPTH in flight, submit in batches, wait for a batch, reap all. */
    private void run(IoUring ring, long ops, boolean timedWait) throws Exception {
        SubmissionQueue sq = ring.sq();
        CompletionQueue cq = ring.cq();
        long submitted = 0;
        reaped = 0;
        while (reaped < ops) {
            long inflight = submitted - reaped;
            int prepared = 0;
            while (prepared < BATCH && inflight + prepared < DEPTH && submitted + prepared < ops) {
                sq.next().prepNop().userData(submitted + prepared);
                prepared++;
            }
            int wait = (int) Math.min(BATCH, inflight + prepared);
            if (timedWait) {
                submitted += ring.submitAndWait(wait, 1_000_000_000L);
            } else {
                submitted += ring.submitAndWait(wait);
            }
            cq.drain(reaper);
        }
    }
}
