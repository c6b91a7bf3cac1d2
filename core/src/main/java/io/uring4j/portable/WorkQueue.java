package io.uring4j.portable;

import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The io-wq of one ring: requests (linked through {@link Request#nextQueued}, so queueing allocates nothing)
 * served by daemon threads that block in system calls. Workers are started on demand and leave after
 * {@link #IDLE_NANOS} without work, like io-wq's. The lock is taken once per work item: a worker that finishes a
 * request runs the linked successor itself ({@link Links#runOnWorker}) without coming back here.
 *
 * <p>Work is sorted as the kernel's io_prep_async_work sorts it ({@link #workClass}):
 * <ul>
 *   <li>work on a pipe, socket or other file that may block forever goes to the <em>unbound</em> workers, so a
 *       splice waiting on an empty pipe never takes a worker from file I/O;</li>
 *   <li>the rest goes to the <em>bound</em> workers, at most {@code min(SQ entries, 4 × CPUs)};</li>
 *   <li>buffered writes to one regular file carry its inode as a hash, and run one at a time in submission
 *       order: the first waits in the queue, the others behind it in its chain, and the worker that ran one runs
 *       the next (so O_APPEND records land in order, even through two descriptors).</li>
 * </ul>
 * REGISTER_IOWQ_MAX_WORKERS changes both limits ({@link #maxWorkers}): a worker beyond its class's new limit
 * leaves once its request is done.
 */
final class WorkQueue {
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How long closing the ring waits for workers to leave (one inside a slow system call may not). */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** The kernel allows RLIMIT_NPROC unbound workers; threads of ours are dearer than its kthreads. */
    static final int UNBOUND_MAX = 1024;
    private static final MemorySegment USER = PortableRing.USER;
    /** {@link #workClass}: unhashed work for the bounded workers, and work for the unbound ones. */
    static final long BOUND = 0;
    static final long UNBOUND = -1;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition gone = lock.newCondition();
    private final PortableRing ring;
    private final String name;
    private final Account bound;
    private final Account unbound;
    /** Hashes with a request queued or running, each with the requests waiting behind it. */
    private long[] hashes = new long[8];
    private Request[] chainHeads = new Request[8];
    private Request[] chainTails = new Request[8];
    private int chains;
    /** Worker threads alive, for close. */
    private int alive;
    private int started;
    private boolean closed;

    /** One class of workers (the kernel's io_wq_acct): its FIFO and its limit. */
    private final class Account {
        final Condition work = lock.newCondition();
        int max;
        final RequestFifo queue = new RequestFifo();
        /** Workers started and not yet leaving: at most {@link #max}. */
        int workers;
        /** Workers waiting for work, and how many of them a push has signalled but have not yet woken. */
        int idle;
        int woken;

        Account(int max) {
            this.max = max;
        }

        /** Under the lock. */
        void push(Request r) {
            r.state = Request.QUEUED;
            queue.add(r);
            if (!wakeIdle() && workers < max) {
                startWorker();
            }
        }

        /**
         * Signals an idle worker no other push has claimed yet: a second push before the first one's worker
         * woke must not count on that worker again, or its request waits behind the first one. Under the lock.
         */
        boolean wakeIdle() {
            if (idle <= woken) {
                return false;
            }
            woken++;
            work.signal();
            return true;
        }

        /** Under the lock. */
        void startWorker() {
            workers++;
            alive++;
            Thread.ofPlatform().daemon().name(name + "-" + started++).start(() -> serve(this));
        }

        /**
         * A new limit (0 keeps this one), in force at once: idle workers beyond it leave, and under a raised one
         * workers start for what waits. Returns the previous limit. Under the lock.
         */
        int limit(int newMax) {
            int previous = max;
            if (newMax != 0) {
                max = newMax;
                work.signalAll();
                for (Request q = queue.peek(); q != null && workers < max && idle == 0 && !closed; q = q.nextQueued) {
                    startWorker();
                }
            }
            return previous;
        }
    }

    WorkQueue(PortableRing ring, int boundMax, String name) {
        this.ring = ring;
        this.name = name;
        this.bound = new Account(boundMax);
        this.unbound = new Account(UNBOUND_MAX);
    }

    void enqueue(Request r) {
        long work = workClass(r);       // a system call: outside the lock
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (work == UNBOUND) {
                r.deadline = 0;
                unbound.push(r);
                return;
            }
            r.deadline = work;
            if (work != BOUND) {
                int c = chainOf(work);
                if (c >= 0) {
                    r.state = Request.QUEUED;
                    r.nextQueued = null;
                    if (chainTails[c] == null) {
                        chainHeads[c] = r;
                    } else {
                        chainTails[c].nextQueued = r;
                    }
                    chainTails[c] = r;
                    return;
                }
                addChain(work);
            }
            bound.push(r);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Which workers run {@code r}, as the kernel's io_prep_async_work decides from the opcode's definition
     * ({@link OpDefs}): {@link #UNBOUND} for work on a file that is neither regular nor a block device (it may
     * wait forever) if the opcode says so (unbound_nonreg_file); for a buffered write to a regular file
     * (hash_reg_file), a positive hash of its inode, which serializes the writes to that file (not a splice into
     * it: measured, the kernel lets writes pass a splice blocked on its pipe); else {@link #BOUND}. O_DIRECT
     * writes are not hashed: ext4 and xfs take them in parallel (FOP_DIO_PARALLEL_WRITE). One statx per run of
     * requests on one fd in an SQ batch ({@link FileFacts}).
     */
    private long workClass(Request r) {
        OpDefs.OpDef def = OpDefs.of(r.opcode);
        boolean hashed = def.hashRegFile();
        if (!def.unboundNonregFile()) {
            return BOUND;
        }
        int fd = ring.files.fd(r);
        if (fd < 0) {
            return BOUND;               // the worker reports the error
        }
        long kind = ring.fileFacts.kind(fd);
        if (kind == Sys.OTHER_FILE) {
            return UNBOUND;
        }
        if (kind <= 0 || !hashed) {
            return BOUND;
        }
        int flags = ring.fileFacts.flags(fd);
        return flags >= 0 && (flags & FileFacts.O_DIRECT) != 0 ? BOUND : kind;
    }

    /**
     * REGISTER_IOWQ_MAX_WORKERS: {@code arg} holds the new bound and unbound limits (u32 each; 0 keeps one, each
     * is capped at RLIMIT_NPROC) and receives the previous ones. 0, or -EINVAL for a value above INT_MAX.
     */
    int maxWorkers(long arg) {
        int newBound = USER.get(JAVA_INT, arg);
        int newUnbound = USER.get(JAVA_INT, arg + 4);
        if (newBound < 0 || newUnbound < 0) {
            return -Errno.EINVAL;
        }
        long[] nproc = LibC.getrlimit(LibC.RLIMIT_NPROC);
        int cap = nproc == null || nproc[0] < 0 || nproc[0] > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) nproc[0];
        lock.lock();
        try {
            USER.set(JAVA_INT, arg, bound.limit(Math.min(newBound, cap)));
            USER.set(JAVA_INT, arg + 4, unbound.limit(Math.min(newUnbound, cap)));
            return 0;
        } finally {
            lock.unlock();
        }
    }

    /** Workers started and not leaving in class bound ({@code true}) or unbound. */
    int workers(boolean inBound) {
        lock.lock();
        try {
            return (inBound ? bound : unbound).workers;
        } finally {
            lock.unlock();
        }
    }

    /** Takes {@code r} out of the queue if no worker has picked it up yet; the caller then cancels it. */
    boolean remove(Request r) {
        lock.lock();
        try {
            if (unbound.queue.unlink(r)) {
                return true;
            }
            long hash = r.deadline;
            if (bound.queue.unlink(r)) {
                if (hash != BOUND) {
                    Request next = nextOfChain(hash);     // the one behind it takes its place
                    if (next != null) {
                        bound.push(next);
                    }
                }
                return true;
            }
            int c = hash == BOUND ? -1 : chainOf(hash);
            if (c < 0) {
                return false;
            }
            Request prev = null;
            for (Request q = chainHeads[c]; q != null; prev = q, q = q.nextQueued) {
                if (q == r) {
                    if (prev == null) {
                        chainHeads[c] = q.nextQueued;
                    } else {
                        prev.nextQueued = q.nextQueued;
                    }
                    if (chainTails[c] == q) {
                        chainTails[c] = prev;
                    }
                    q.nextQueued = null;
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drops queued work and waits (boundedly) for the workers to leave, so that their per-thread resources are
     * released when the ring's close returns.
     */
    void close() {
        lock.lock();
        try {
            closed = true;
            bound.queue.takeAll();
            unbound.queue.takeAll();
            Arrays.fill(chainHeads, null);
            Arrays.fill(chainTails, null);
            chains = 0;
            bound.work.signalAll();
            unbound.work.signalAll();
            long wait = CLOSE_WAIT_NANOS;
            while (alive > 0 && wait > 0) {
                wait = gone.awaitNanos(wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    private void serve(Account account) {
        try {
            serveUntilIdle(account);
        } finally {
            lock.lock();
            try {
                alive--;
                gone.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    private void serveUntilIdle(Account account) {
        while (true) {
            Request r;
            lock.lock();
            try {
                long wait = IDLE_NANOS;
                while (account.queue.isEmpty() && !closed && wait > 0 && account.workers <= account.max) {
                    account.idle++;
                    try {
                        wait = account.work.awaitNanos(wait);
                    } catch (InterruptedException e) {
                        wait = 0;
                    } finally {
                        account.idle--;
                        if (account.woken > 0) {
                            account.woken--;    // ours, or, timed out, we take the queue's request in its place
                        }
                    }
                }
                if (account.queue.isEmpty() || closed || account.workers > account.max) {
                    account.workers--;      // idle, closing, or one too many since the limit was lowered
                    if (!account.queue.isEmpty() && !closed) {
                        account.wakeIdle();     // the wake-up this worker may have taken goes to one that stays
                    }
                    return;
                }
                r = account.queue.poll();
                r.state = Request.RUNNING;
            } finally {
                lock.unlock();
            }
            runHashed(r);
        }
    }

    /** Runs {@code r}, then the requests of its hash that queued behind it meanwhile, in order. */
    private void runHashed(Request r) {
        while (r != null) {
            long hash = r.deadline;     // read before running: r may be recycled (or re-armed) by then
            ring.links.runOnWorker(r);
            if (hash == BOUND) {
                return;
            }
            lock.lock();
            try {
                r = closed ? null : nextOfChain(hash);
                if (r != null) {
                    r.state = Request.RUNNING;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** Under the lock: the next request of {@code hash}'s chain, or null after retiring the chain. */
    private Request nextOfChain(long hash) {
        int c = chainOf(hash);
        if (c < 0) {
            return null;
        }
        Request next = chainHeads[c];
        if (next == null) {
            chains--;
            hashes[c] = hashes[chains];
            chainHeads[c] = chainHeads[chains];
            chainTails[c] = chainTails[chains];
            chainHeads[chains] = chainTails[chains] = null;
            return null;
        }
        chainHeads[c] = next.nextQueued;
        if (chainHeads[c] == null) {
            chainTails[c] = null;
        }
        next.nextQueued = null;
        return next;
    }

    private int chainOf(long hash) {
        for (int c = 0; c < chains; c++) {
            if (hashes[c] == hash) {
                return c;
            }
        }
        return -1;
    }

    private void addChain(long hash) {
        if (chains == hashes.length) {
            hashes = Arrays.copyOf(hashes, 2 * chains);
            chainHeads = Arrays.copyOf(chainHeads, 2 * chains);
            chainTails = Arrays.copyOf(chainTails, 2 * chains);
        }
        hashes[chains++] = hash;
    }
}
