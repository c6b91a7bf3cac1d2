package io.uring4j.ring;

import io.uring4j.sys.ErrnoException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * JMH microbenchmarks of the ring core's hot path, one piece at a time: prepare an SQE, publish the SQ tail,
 * reap CQEs, one io_uring_enter, and the whole nop cycle at batch 32 and at QD1. Run them with
 * <pre>{@code ./uring4j bench --jmh -prof gc RingHotPathBench}</pre>
 * {@code -prof gc} must show {@code gc.alloc.rate.norm ≈ 0 B/op} for every one.
 *
 * <p>This class lives in the ring's package (in the tools module, on the class path) because publishing the
 * tail ({@code SubmissionQueue.flush}) is package-private: users publish through {@code submit}.
 *
 * <p>An SQ slot cannot be handed out again before the kernel consumed it, so the pieces that fill the SQ
 * ({@code prepareSqe}, {@code publishTail}) and the one that empties the CQ ({@code reapCqes}) work on
 * {@value #BATCH} entries per invocation and let an untimed per-invocation step submit or refill (a few
 * microseconds of work per invocation, so JMH's per-invocation timing costs well under 1%). The ring has no
 * SINGLE_ISSUER/DEFER_TASKRUN and no registered fd: JMH does not promise that one thread runs every iteration.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RingHotPathBench {
    static final int BATCH = 1024;
    static final int CQ_ENTRIES = 4 * BATCH;

    /** A ring, and a CQE handler that keeps what it reads (so reading cannot be optimized away). */
    @State(Scope.Thread)
    public static class Ring implements CqeHandler {
        IoUring ring;
        SubmissionQueue sq;
        CompletionQueue cq;
        long sum;

        @Setup(Level.Trial)
        public void open() throws ErrnoException {
            ring = IoUring.builder().entries(BATCH).cqEntries(CQ_ENTRIES).coopTaskrun().build();
            sq = ring.sq();
            cq = ring.cq();
        }

        @TearDown(Level.Trial)
        public void close() {
            ring.close();
        }

        @Override
        public void handle(Cqe cqe) {
            sum += cqe.userData() + cqe.res();
        }
    }

    /**
     * A ring whose SQ is emptied, untimed, after each invocation: what it holds is submitted and reaped.
     * (Its own ring: JMH gives a state injected into another state's helper a separate instance.)
     */
    public static class EmptySq extends Ring {
        @TearDown(Level.Invocation)
        public void recycle() throws ErrnoException {
            int pending = sq.ready();
            if (pending > 0) {
                ring.submitAndWait(pending);
            }
            while (cq.drain(this) > 0) {
                // NOP completions are posted inline: one pass takes them all
            }
        }
    }

    /** A ring with {@value #CQ_ENTRIES} NOP completions waiting in the CQ before each invocation (untimed). */
    public static class FullCq extends Ring {
        @Setup(Level.Invocation)
        public void fill() throws ErrnoException {
            for (int i = 0; i < CQ_ENTRIES / BATCH; i++) {
                for (int j = 0; j < BATCH; j++) {
                    sq.next().prepNop().userData(j);
                }
                ring.submitAndWait(BATCH);
            }
        }
    }

    /** {@code sq.next().prepNop().userData(i)}: take a slot and write all of it. Per SQE. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void prepareSqe(EmptySq r) {
        final SubmissionQueue sq = r.sq;
        for (int i = 0; i < BATCH; i++) {
            sq.next().prepNop().userData(i);
        }
    }

    /** Take a slot and publish the tail (a release store) after each: prepareSqe without the fill, plus the store. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int publishTail(EmptySq r) {
        final SubmissionQueue sq = r.sq;
        int unconsumed = 0;
        for (int i = 0; i < BATCH; i++) {
            sq.next();
            unconsumed = sq.flush();
        }
        return unconsumed;
    }

    /** Reap in batches of 32 with {@code cq.drain}: acquire the tail, read each CQE, release the head. Per CQE. */
    @Benchmark
    @OperationsPerInvocation(CQ_ENTRIES)
    public long reapCqes(FullCq r) {
        final CompletionQueue cq = r.cq;
        int reaped = 0;
        while (reaped < CQ_ENTRIES) {
            reaped += cq.drain(r, 32);
        }
        return r.sum;
    }

    /** One io_uring_enter with nothing to submit or wait for (GETEVENTS): the syscall round trip from Java. */
    @Benchmark
    public int enter(Ring r) throws ErrnoException {
        return r.ring.submitAndGetEvents();
    }

    /** The nop loop of {@code bench -N1 -d32 -s32 -c32}: prepare 32, submit and wait for 32, reap 32. Per op. */
    @Benchmark
    @OperationsPerInvocation(32)
    public long nopCycle32(Ring r) throws ErrnoException {
        for (int i = 0; i < 32; i++) {
            r.sq.next().prepNop().userData(i);
        }
        r.ring.submitAndWait(32);
        r.cq.drain(r);
        return r.sum;
    }

    /** One NOP at queue depth 1: prepare, submit and wait, reap. */
    @Benchmark
    public long nopQd1(Ring r) throws ErrnoException {
        r.sq.next().prepNop().userData(1);
        r.ring.submitAndWait(1);
        r.cq.drain(r);
        return r.sum;
    }
}
