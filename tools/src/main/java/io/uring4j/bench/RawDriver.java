package io.uring4j.bench;

import io.uring4j.ring.CompletionQueue;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.CqeHandler;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Sqe;
import io.uring4j.ring.SubmissionQueue;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * {@code --api raw}: the ring core driven directly, doing per op exactly what {@code bench/c/uring4j_ref.c}
 * does — same setup flags and fall-backs, same registrations, same submit and wait rule, same checks — so
 * the Java/C ratio measures Java, not a different workload.
 *
 * <p>The loops allocate nothing: SQEs and the CQE cursor are views created at setup, the buffer slices are
 * made once, and this object is its own {@link CqeHandler}. {@code alloc_bytes_per_op} checks it on every run.
 */
final class RawDriver implements Driver, CqeHandler {
    /** Clock reads: every 64 loop iterations or 2048 completions, as in the C reference. */
    private static final int CHECK_MASK = 63;
    private static final int CHECK_OPS = 2048;
    /** Latencies above a minute are recorded as a minute (HdrHistogram needs a bound). */
    private static final long MAX_LATENCY = 60_000_000_000L;

    private final IoUring ring;
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final Arena arena = Arena.ofConfined();
    private final boolean registeredRing;

    private final boolean nop;
    private final boolean fixedBuffers;
    private final boolean random;
    private final boolean trackLatency;
    private final boolean polled;
    private final int link;
    private final int depth;
    private final int submitBatch;
    private final int completeBatch;
    private final int blockSize;
    /** ASYNC and FIXED_FILE, added to every SQE. */
    private final int baseFlags;
    /** NOP completes with 0, a read with the block size: anything else is fatal, as in t/io_uring. */
    private final int expectedRes;

    // read mode
    private final List<ReadTarget> targets;
    private final int[] fds;
    /** What goes in sqe->fd: the fd, or its index in the registered file table. */
    private final int[] sqeFds;
    private final long[] blocks;
    private final long[] seqOffsets;
    private final MemorySegment[] slotBuffers;
    private int fileCursor;
    private long rng = 0x9E3779B97F4A7C15L;

    /** Stack of free user_data slots (queue mode): a slot names a buffer and a latency stamp. */
    private final int[] freeSlots;
    private int nrFree;
    private final long[] slotStamps;
    private final Histogram histogram;

    // one run's state
    private Counters counters;
    private long deadline;
    private boolean stopped;
    private long calls;
    private long done;
    private long reaps;
    private long opsAtCheck;
    private long reapStamp;

    RawDriver(BenchOptions o, List<ReadTarget> targets) throws ErrnoException {
        this.nop = o.isNop();
        this.link = o.link;
        this.depth = o.depth;
        this.submitBatch = o.submitBatch;
        this.completeBatch = o.completeBatch;
        this.blockSize = o.blockSize;
        this.fixedBuffers = o.fixedBuffers == 1;
        this.random = o.random == 1;
        this.trackLatency = o.latency == 1;
        this.polled = o.polled == 1;
        this.expectedRes = nop ? 0 : blockSize;
        this.targets = nop ? List.of() : targets;
        this.ring = openRing(o);
        try {
            this.sq = ring.sq();
            this.cq = ring.cq();
            this.registeredRing = o.registeredRing == 1 && registerRingFd(ring);
            this.freeSlots = new int[depth];
            for (int i = 0; i < depth; i++) {
                freeSlots[nrFree++] = depth - 1 - i;
            }
            this.slotStamps = new long[depth];
            this.histogram = trackLatency ? new Histogram(MAX_LATENCY, 3) : null;

            int n = this.targets.size();
            this.fds = new int[n];
            this.sqeFds = new int[n];
            this.blocks = new long[n];
            this.seqOffsets = new long[n];
            this.slotBuffers = new MemorySegment[nop ? 0 : depth];
            this.baseFlags = (o.async == 1 ? SqeFlags.ASYNC : 0)
                    | (!nop && o.registeredFiles == 1 ? SqeFlags.FIXED_FILE : 0);
            if (!nop) {
                setUpFiles(o);
            }
        } catch (ErrnoException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * The C reference's flag set — CQSIZE(depth), COOP_TASKRUN, NO_SQARRAY, SINGLE_ISSUER|DEFER_TASKRUN with
     * {@code -D1}, IOPOLL with {@code -p1} — dropping one flag at a time on EINVAL, newest feature first.
     */
    private static IoUring openRing(BenchOptions o) throws ErrnoException {
        int[] drop = {SetupFlags.NO_SQARRAY, SetupFlags.DEFER_TASKRUN, SetupFlags.SINGLE_ISSUER,
            SetupFlags.COOP_TASKRUN};
        int flags = SetupFlags.COOP_TASKRUN | SetupFlags.NO_SQARRAY;
        if (o.defer == 1) {
            flags |= SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN;
        }
        if (o.polled == 1 && !o.isNop()) {
            flags |= SetupFlags.IOPOLL;
        }
        for (int i = 0; ; i++) {
            try {
                return IoUring.builder().entries(o.depth).cqEntries(o.depth).flags(flags).build();
            } catch (ErrnoException e) {
                if (e.errno() != Errno.EINVAL || i == drop.length) {
                    throw e;
                }
                flags &= ~drop[i];
            }
        }
    }

    /** {@code -X1}: enter through the registered index; an old kernel's refusal is reported, not fatal. */
    private static boolean registerRingFd(IoUring ring) {
        try {
            ring.register().ringFd();
            return true;
        } catch (ErrnoException e) {
            return false;
        }
    }

    /** Opens every file (O_NOATIME dropped where we do not own it), registers files and the buffer. */
    private void setUpFiles(BenchOptions o) throws ErrnoException {
        int flags = LibC.O_RDONLY | LibC.O_NOATIME | LibC.O_CLOEXEC | (o.direct == 1 ? LibC.O_DIRECT : 0);
        for (int i = 0; i < fds.length; i++) {
            ReadTarget t = targets.get(i);
            int fd = LibC.open(t.path().toString(), flags, 0);
            if (fd == -Errno.EPERM) {
                fd = LibC.open(t.path().toString(), flags & ~LibC.O_NOATIME, 0);
            }
            if (fd < 0) {
                throw new ErrnoException("open " + t.path(), fd);
            }
            fds[i] = fd;
            sqeFds[i] = o.registeredFiles == 1 ? i : fd;
            blocks[i] = t.size() / blockSize;
            if (blocks[i] == 0) {
                throw new BenchException(t.path() + " is smaller than one block (" + blockSize + " bytes)");
            }
        }
        if (o.registeredFiles == 1) {
            ring.register().files(fds);
        }
        // One page-aligned region, one block-size slot per in-flight I/O; registered as one iovec with -B1.
        MemorySegment buffers = arena.allocate((long) blockSize * depth, 4096);
        for (int i = 0; i < depth; i++) {
            slotBuffers[i] = buffers.asSlice((long) i * blockSize, blockSize);
        }
        if (fixedBuffers) {
            ring.register().buffers(buffers);
        }
    }

    @Override
    public String engine() {
        return ring.engineUsed().name();
    }

    @Override
    public String describe() {
        int f = ring.setupFlags();
        return String.format("Engine=io_uring (" + ring.engineUsed().name() + "), sq_ring=%d, cq_ring=%d, setup_flags=0x%x (single_issuer=%d, "
                        + "defer_taskrun=%d, no_sqarray=%d), registered_ring=%d", ring.sqEntries(), ring.cqEntries(), f,
                bit(f, SetupFlags.SINGLE_ISSUER), bit(f, SetupFlags.DEFER_TASKRUN), bit(f, SetupFlags.NO_SQARRAY),
                registeredRing ? 1 : 0);
    }

    private static int bit(int flags, int bit) {
        return (flags & bit) != 0 ? 1 : 0;
    }

    @Override
    public Histogram latencies() {
        return histogram;
    }

    @Override
    public void run(long durationNanos, Counters counters) throws ErrnoException {
        this.counters = counters;
        calls = done = reaps = opsAtCheck = 0;
        stopped = false;
        if (histogram != null) {
            histogram.reset();
        }
        long start = System.nanoTime();
        counters.start(start);
        deadline = durationNanos == 0 ? Long.MAX_VALUE : start + durationNanos;
        if (link > 0) {
            runLink();
        } else {
            runQueue();
        }
    }

    /**
     * Queue mode (nop and read): t/io_uring's submitter loop. As there, {@code inflight} already counts the
     * batch being submitted when the wait is decided, so in steady state ({@code -d128 -s32 -c32}) every enter
     * submits 32 and waits for 32. Every enter has GETEVENTS (something is always in flight): with
     * DEFER_TASKRUN, completions from io-wq are posted only then. After the deadline nothing new is prepared
     * and what is in flight drains, still checked but no longer counted.
     */
    private void runQueue() throws ErrnoException {
        final int depth = this.depth;
        int inflight = 0;
        int prepped = 0;
        int iteration = 0;
        while (!stopped || inflight != 0) {
            if (prepped == 0 && inflight < depth && !stopped) {
                prepped = prep(Math.min(depth - inflight, submitBatch));
                inflight += prepped;
            }
            int toSubmit = prepped;
            int toWait = toSubmit != 0 && inflight + toSubmit <= depth ? 0
                    : Math.min(inflight + toSubmit, completeBatch);
            int ret = enter(toWait);
            calls++;
            int reaped = reap();
            inflight -= reaped;
            reaps += reaped;
            if (ret >= 0) {
                // A short submit leaves the rest prepared for the next enter (t/io_uring's "submit_more").
                done += ret;
                prepped -= ret;
            }
            if (!stopped && ((++iteration & CHECK_MASK) == 0 || reaps - opsAtCheck >= CHECK_OPS)) {
                checkClock();
            }
        }
    }

    /**
     * Link mode: one chain of N linked NOPs per submit, waiting for all N completions in the same enter; the
     * next chain goes out only when the whole previous one is reaped.
     */
    private void runLink() throws ErrnoException {
        final int n = link;
        while (!stopped) {
            long stamp = trackLatency ? System.nanoTime() : 0;
            for (int i = 0; i < n; i++) {
                slotStamps[i] = stamp;
                fill(i, i + 1 < n ? SqeFlags.IO_LINK : 0);
            }
            int ret;
            do {
                ret = enter(n);
                calls++;
            } while (ret == -Errno.EAGAIN);
            if (ret != n) {
                throw new BenchException("short submit: " + ret + " of " + n);
            }
            done += n;
            int got = reap();
            while (got < n) {
                enter(n - got);
                calls++;
                got += reap();
            }
            reaps += n;
            checkClock();     // one chain is ≥ N ops: cheap enough
        }
    }

    /** Prepares {@code n} independent I/Os, each on a free slot; one clock read for the batch with -t1. */
    private int prep(int n) {
        long stamp = trackLatency ? System.nanoTime() : 0;
        for (int i = 0; i < n; i++) {
            int slot = freeSlots[--nrFree];
            slotStamps[slot] = stamp;
            fill(slot, 0);
        }
        return n;
    }

    private void fill(int slot, int flags) {
        Sqe sqe = sq.next();    // never null: at most depth SQEs are out, and the SQ has ≥ depth entries
        if (nop) {
            sqe.prepNop();
        } else {
            int f = nextFile();
            if (fixedBuffers) {
                sqe.prepReadFixed(sqeFds[f], slotBuffers[slot], nextOffset(f), 0);
            } else {
                sqe.prepRead(sqeFds[f], slotBuffers[slot], nextOffset(f));
            }
        }
        sqe.flags(flags | baseFlags).userData(slot);
    }

    private int nextFile() {
        int f = fileCursor;
        if (fds.length > 1) {
            fileCursor = f + 1 == fds.length ? 0 : f + 1;
        }
        return f;
    }

    /** xorshift64*, as in the C reference: a few cycles per offset. */
    private long nextOffset(int f) {
        if (!random) {
            long off = seqOffsets[f];
            seqOffsets[f] = off + 2L * blockSize > blocks[f] * blockSize ? 0 : off + blockSize;
            return off;
        }
        long x = rng;
        x ^= x >>> 12;
        x ^= x << 25;
        x ^= x >>> 27;
        rng = x;
        return Long.remainderUnsigned(x * 0x2545F4914F6CDD1DL, blocks[f]) * blockSize;
    }

    /**
     * Submits what is prepared and waits for {@code toWait} completions, always with GETEVENTS; returns the
     * number submitted, or -EAGAIN (the kernel was short of memory: nothing was submitted, reap and retry).
     */
    private int enter(int toWait) throws ErrnoException {
        try {
            return toWait > 0 ? ring.submitAndWait(toWait) : ring.submitAndGetEvents();
        } catch (ErrnoException e) {
            if (e.errno() == Errno.EAGAIN) {
                return -Errno.EAGAIN;
            }
            throw e;
        }
    }

    private int reap() {
        if (trackLatency) {
            reapStamp = System.nanoTime();
        }
        return cq.drain(this);
    }

    @Override
    public void handle(Cqe cqe) {
        int slot = (int) cqe.userData();
        int res = cqe.res();
        if (res != expectedRes) {
            throw unexpected(res);
        }
        if (trackLatency && !stopped) {
            histogram.recordValue(Math.min(reapStamp - slotStamps[slot], MAX_LATENCY));
        }
        if (link == 0) {
            freeSlots[nrFree++] = slot;
        }
    }

    private BenchException unexpected(int res) {
        if (polled && (res == -Errno.EOPNOTSUPP || res == -Errno.EINVAL)) {
            return new BenchException("polled I/O (-p1) was refused (" + Errno.name(res) + "): most files and "
                    + "devices cannot be polled (it needs an NVMe device with poll queues); run with -p0");
        }
        return new BenchException("unexpected completion: res=" + (res < 0 ? Errno.name(res) : "short read " + res)
                + ", expected " + expectedRes);
    }

    /** Publishes progress; past the deadline (or a stop request) freezes the totals. */
    private void checkClock() {
        long now = System.nanoTime();
        opsAtCheck = reaps;
        if (now >= deadline || counters.stopRequested()) {
            stopped = true;
            counters.finish(now, calls, done, reaps);
        } else {
            counters.publish(calls, done, reaps);
        }
    }

    @Override
    public void close() {
        try {
            ring.close();
        } finally {
            for (int fd : fds == null ? new int[0] : fds) {
                if (fd > 0) {
                    LibC.close(fd);
                }
            }
            arena.close();
        }
    }
}
