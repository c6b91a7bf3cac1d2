package io.uring4j.portable;

import io.uring4j.ring.CompletionQueue;
import io.uring4j.ring.CqeFlags;
import io.uring4j.ring.EnterFlags;
import io.uring4j.ring.OpFlags;
import io.uring4j.ring.Opcode;
import io.uring4j.ring.SetupFlags;
import io.uring4j.ring.SqeFlags;
import io.uring4j.ring.SubmissionQueue;
import io.uring4j.sys.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * One ring's kernel side: consumes SQEs, runs requests (inline, on the {@link WorkQueue} or the {@link Timer}),
 * posts CQEs, keeps overflowed CQEs in order, and wakes the one thread waiting in enter.
 *
 * <p>Ordering on the shared ring memory mirrors the kernel's: the SQ tail is read with acquire (SQE contents
 * after it) and the SQ head published with release (the slots may be reused); a CQE is written before its tail
 * is published with release, and the CQ head is read with acquire (the application is done with the slot).
 *
 * <p>Locking: {@link #lock} guards the CQ producer side, the overflow list, in-flight and drain accounting, the
 * timer list and the request pool. Enter is called by one thread at a time (the ring API is single-threaded),
 * so the SQ consumer side is unlocked, as is the wait: the waiter publishes itself in {@link #waiter} and
 * posters unpark it after their tail store — no wait queue.
 */
final class PortableRing {
    /** Every address, for reading what SQEs point at (iovecs, timespecs): the kernel's copy_from_user. */
    static final MemorySegment USER = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final VarHandle INT = JAVA_INT.varHandle();
    /** A long at any address (a timespec or enter argument may be unaligned); one instance, not one per read. */
    private static final ValueLayout.OfLong ANY_LONG = JAVA_LONG.withByteAlignment(1);
    private static final ValueLayout.OfInt ANY_INT = JAVA_INT.withByteAlignment(1);
    /** execute(): the request completes later (armed on the timer or the poller). */
    static final int PENDING = Integer.MIN_VALUE;
    /** execute(): the request must go on on an io-wq worker (its next system call may block). */
    static final int NEEDS_WORKER = Integer.MIN_VALUE + 1;
    /** IORING_NOTIF_USAGE_ZC_COPIED: a zero-copy send's notification says the data was copied. */
    private static final int NOTIF_USAGE_ZC_COPIED = 1 << 31;
    private static final int ENTER_FLAGS = EnterFlags.GETEVENTS | EnterFlags.SQ_WAKEUP | EnterFlags.SQ_WAIT
            | EnterFlags.EXT_ARG | EnterFlags.REGISTERED_RING;
    /** {@link #gate} of an R_DISABLED ring: nobody may enter (EBADFD) until ENABLE_RINGS. */
    private static final Object DISABLED = new Object();
    /**
     * {@code -During4j.portable.links=requeue}: a finished request's successor goes back through the io-wq's
     * queue instead of running in place — the variant the kernel's {@code nxt} propagation replaced, kept to
     * measure the difference ({@code ./uring4j bench --compare-portable}).
     */
    static final boolean REQUEUE_LINKS = "requeue".equals(System.getProperty("uring4j.portable.links"));
    /**
     * {@code -During4j.portable.wait=condvar}: waiters sleep on a condition variable that every post signals —
     * a wait queue — instead of the single published waiter woken once its CQ tail is reached. For measuring.
     */
    static final boolean CONDVAR_WAIT = "condvar".equals(System.getProperty("uring4j.portable.wait"));

    final int fd;
    final int setupFlags;
    final int sqEntries;
    final int cqEntries;
    private final int sqMask;
    private final int cqMask;
    /** 64 or 128 (SQE128). */
    private final int sqeSize;
    /** log2 of the CQE size: 4, or 5 with CQE32 (whose second half we always leave zero). */
    private final int cqeShift;
    /**
     * Who may enter: any thread (null); on a SINGLE_ISSUER ring its issuer, the creator or the thread that enabled
     * it, the only one that may enter or register (else EEXIST); nobody while R_DISABLED ({@link #DISABLED}:
     * EBADFD). One check on every enter covers all three.
     */
    private volatile Object gate;
    /** REGISTER_RESTRICTIONS on the disabled ring; in force ({@link #restrictions}) once it is enabled. */
    private Restrictions registeredRestrictions;
    /** What a restricted ring allows, checked per SQE; null (nothing to check) on an unrestricted ring. */
    private Restrictions restrictions;
    final Personalities personalities = new Personalities();
    /**
     * COOP_TASKRUN with TASKRUN_FLAG, or DEFER_TASKRUN: a request the poller thread found ready runs again in the
     * issuer's next enter (the kernel's task work, run on the next transition into the kernel), not on the
     * poller thread — so nothing completes between two enters that the application did not see coming.
     * IORING_SQ_TASKRUN tells the application to enter. (Plain COOP_TASKRUN is not deferred: the kernel would
     * run the work at the next interrupt anyway, and an application that only peeks would wait forever here.)
     */
    private final boolean resumeInEnter;
    /** TASKRUN_FLAG: IORING_SQ_TASKRUN is kept up to date. */
    private final boolean taskrunFlag;
    /** Ready requests waiting for the next enter (COOP_TASKRUN), oldest first, under the lock. */
    private final RequestFifo taskWork = new RequestFifo();
    /** Offset of the SQ index array; -1 with NO_SQARRAY. */
    private final long arrayOff;
    private final Arena arena;
    final MemorySegment mem;
    final MemorySegment sqes;

    final ReentrantLock lock = new ReentrantLock();
    /** {@link #CONDVAR_WAIT} only: what posters signal. */
    private final java.util.concurrent.locks.Condition cqChanged = lock.newCondition();
    final RequestPool pool;
    final WorkQueue wq;
    final Timer timer;
    final Poller poller;
    final FileTable files;
    final BufferTable buffers = new BufferTable();
    final BufRings bufRings = new BufRings();
    final CqEventfd eventfd;
    final DirectIo directIo;
    final FileFacts fileFacts = new FileFacts();
    final ReadWrite rw;
    final SocketOps sockets;

    /** Our SQ head: only enter moves it. */
    private int sqHead;
    /** Our CQ tail, under the lock; published to the ring with release. */
    private int cqTail;
    /** CQEs that did not fit in the CQ, oldest first: (user_data, res, flags). */
    private final LongIntIntQueue overflow = new LongIntIntQueue();
    /** Requests issued (not deferred) and not completed. */
    private int inflight;
    /** An IO_DRAIN chain is running: everything submitted after it waits for it. */
    private boolean drainActive;
    /** Chains held back by IO_DRAIN, in submission order. */
    private final RequestFifo deferred = new RequestFifo();
    private volatile Thread waiter;
    /** The waiter sleeps in the poller's epoll_wait: wake it with {@link Poller#wakeUp}, not unpark. */
    private volatile boolean waiterPolls;
    /** The CQ tail the waiter needs (its head + min_complete): posters below it do not wake it. */
    private volatile int waitTarget;
    /**
     * TIMEOUT requests completed by expiry or count, the kernel's cq_timeouts: each one ends a wait, even one
     * for more CQEs than have come. Bumped under the lock right after the timeout's CQE, so a waiter that sees
     * it sees the CQE too.
     */
    private volatile int timeoutsFired;
    volatile boolean closed;

    PortableRing(int fd, int setupFlags, int sqEntries, int cqEntries, long arrayOff, Arena arena,
                 MemorySegment mem, MemorySegment sqes) {
        this.fd = fd;
        this.setupFlags = setupFlags;
        this.sqEntries = sqEntries;
        this.cqEntries = cqEntries;
        this.sqMask = sqEntries - 1;
        this.cqMask = cqEntries - 1;
        this.sqeSize = (setupFlags & SetupFlags.SQE128) != 0 ? 128 : 64;
        this.cqeShift = (setupFlags & SetupFlags.CQE32) != 0 ? 5 : 4;
        this.gate = (setupFlags & SetupFlags.R_DISABLED) != 0 ? DISABLED
                : (setupFlags & SetupFlags.SINGLE_ISSUER) != 0 ? Thread.currentThread() : null;
        boolean defer = (setupFlags & SetupFlags.DEFER_TASKRUN) != 0;
        this.taskrunFlag = (setupFlags & SetupFlags.TASKRUN_FLAG) != 0;
        this.resumeInEnter = taskrunFlag || defer;
        this.arrayOff = arrayOff;
        this.arena = arena;
        this.mem = mem;
        this.sqes = sqes;
        this.pool = new RequestPool(cqEntries);
        String name = "uring4j-portable-" + Integer.toHexString(fd);
        this.wq = new WorkQueue(this, Math.max(1, Math.min(sqEntries, 4 * Runtime.getRuntime().availableProcessors())),
                name + "-iowq");
        this.timer = new Timer(this, name + "-timer");
        // The condition-variable waiter cannot poll: with it, a poller thread does (the design it stands for).
        this.poller = new Poller(this, name + "-poller", !defer || CONDVAR_WAIT);
        this.files = new FileTable(this);
        this.eventfd = new CqEventfd(arena);
        this.directIo = new DirectIo(this);
        this.rw = new ReadWrite(this);
        this.sockets = new SocketOps(this);
    }

    // ---- enter -------------------------------------------------------------------------------------------

    int enter(int toSubmit, int minComplete, int flags, long arg, long argSize) {
        if ((flags & ~ENTER_FLAGS) != 0) {
            return -Errno.EINVAL;
        }
        Object allowed = gate;
        if (allowed != null && allowed != Thread.currentThread()) {
            return allowed == DISABLED ? -Errno.EBADFD : -Errno.EEXIST;
        }
        long timeout = -1;
        long minWait = 0;
        if ((flags & EnterFlags.EXT_ARG) != 0) {
            if (argSize != 24) {
                return -Errno.EINVAL;
            }
            minWait = arg == 0 ? 0 : Integer.toUnsignedLong(USER.get(ANY_INT, arg + 12)) * 1000;
            long ts = arg == 0 ? 0 : USER.get(ANY_LONG, arg + 16);
            if (ts != 0) {
                timeout = Math.max(0, timespecNanos(ts));
            }
        }
        if (overflow.count > 0) {
            flushOverflow();
        }
        int submitted = 0;
        if (toSubmit > 0) {
            fileFacts.beginBatch();
            directIo.beginBatch();
            try {
                submitted = submit(toSubmit);
            } finally {
                fileFacts.endBatch();
                directIo.flush();
            }
        }
        runTaskWork();
        if ((flags & EnterFlags.GETEVENTS) != 0) {
            int min = Math.min(minComplete, cqEntries);
            if (poller.issuerPolls() && (poller.hasArmed() || directIo.busy()) && cqReady() >= min) {
                poller.poll(0);         // the task work of a DEFER_TASKRUN ring: what became ready runs now
            }
            int ret = minWait > 0 && min > 1 ? waitCqMinTimeout(min, minWait, timeout) : waitCq(min, timeout);
            if (submitted == 0) {
                return ret;
            }
        }
        return submitted;
    }

    /**
     * Whether the calling thread may register: SINGLE_ISSUER rings answer other threads than the issuer with
     * EEXIST, as the kernel does; before it is enabled, a disabled ring has no issuer yet.
     */
    boolean mayRegister() {
        Object allowed = gate;
        return allowed == null || allowed == DISABLED || allowed == Thread.currentThread();
    }

    /** Whether the ring is R_DISABLED still. */
    boolean disabled() {
        return gate == DISABLED;
    }

    /** The restrictions in force, or null. */
    Restrictions restrictions() {
        return restrictions;
    }

    /** REGISTER_RESTRICTIONS: only on a disabled ring (EBADFD), only once (EBUSY). Under the lock. */
    int restrict(long arg, int nr) {
        if (gate != DISABLED) {
            return -Errno.EBADFD;
        }
        if (registeredRestrictions != null) {
            return -Errno.EBUSY;
        }
        Restrictions parsed = Restrictions.parse(arg, nr);
        if (parsed == null) {
            return -Errno.EINVAL;
        }
        registeredRestrictions = parsed;
        return 0;
    }

    /**
     * REGISTER_ENABLE_RINGS: the ring accepts enters; on a SINGLE_ISSUER ring the calling thread becomes the
     * issuer, and registered restrictions come into force. Under the lock.
     */
    int enable() {
        if (gate != DISABLED) {
            return -Errno.EBADFD;
        }
        restrictions = registeredRestrictions;      // published by the volatile store below
        gate = (setupFlags & SetupFlags.SINGLE_ISSUER) != 0 ? Thread.currentThread() : null;
        return 0;
    }

    static long timespecNanos(long ts) {
        long sec = USER.get(ANY_LONG, ts);
        long nsec = USER.get(ANY_LONG, ts + 8);
        return sec * 1_000_000_000L + nsec;
    }

    /**
     * FEAT_MIN_TIMEOUT, as the kernel's batch wait: {@code min} CQEs within {@code minWait}; after that ETIME if
     * any CQE is there or there is no later timeout, else a wait for one until the timeout.
     */
    private int waitCqMinTimeout(int min, long minWait, long timeoutNanos) {
        boolean longer = timeoutNanos > minWait;
        int ret = waitCq(min, longer || timeoutNanos < 0 ? minWait : timeoutNanos);
        if (ret != -Errno.ETIME || !longer || cqReady() > 0) {
            return ret;
        }
        return waitCq(1, timeoutNanos - minWait);
    }

    /**
     * Waits until {@code min} CQEs are ready; 0, -ETIME or -EINTR (a Java interrupt stands in for a signal). The
     * waiter parks, or, on a DEFER_TASKRUN ring, polls — waits in epoll_wait and runs what becomes ready right
     * here; posters wake it by unparking it or through the poller's eventfd ({@link #waiterPolls}).
     */
    private int waitCq(int min, long timeoutNanos) {
        if (cqReady() >= min) {
            return 0;
        }
        if (CONDVAR_WAIT) {
            return waitCqOnCondition(min, timeoutNanos);
        }
        boolean polls = poller.issuerPolls();
        long deadline = System.nanoTime() + timeoutNanos;
        int timeouts = timeoutsFired;
        waitTarget = (int) INT.getAcquire(mem, (long) RingLayout.CQ_HEAD) + min;
        waiterPolls = polls;
        waiter = Thread.currentThread();    // volatile: ordered before the re-check below
        try {
            while (true) {
                if (!polls) {
                    runTaskWork();          // what a poller thread found ready (polling runs it in poll)
                }
                if (overflow.count > 0) {
                    flushOverflow();
                }
                if (cqReady() >= min || timeoutsFired != timeouts) {
                    return 0;
                }
                long left = -1;
                if (timeoutNanos >= 0) {
                    left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return -Errno.ETIME;
                    }
                }
                if (polls) {
                    long millis = left < 0 ? -1 : Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000);
                    int ret = poller.poll((int) millis);
                    if (ret < 0) {
                        return ret;
                    }
                } else if (left < 0) {
                    LockSupport.park(this);
                } else {
                    LockSupport.parkNanos(this, left);
                }
                if (Thread.interrupted()) {
                    return -Errno.EINTR;
                }
            }
        } finally {
            waiter = null;
            waiterPolls = false;
        }
    }

    /**
     * Whether anything may be waiting to be found by polling changed: requests armed on the poller, or direct
     * I/O on AIO. With TASKRUN_FLAG on a ring whose issuer polls, IORING_SQ_TASKRUN is up while there is —
     * readiness and AIO completions are only found by entering, so "work may be pending" is the truthful answer
     * to an application that peeks. Under the lock.
     */
    void pendingChanged() {
        if (taskrunFlag && poller.issuerPolls()) {
            if (poller.hasArmed() || directIo.busy()) {
                INT.getAndBitwiseOrRelease(mem, (long) RingLayout.SQ_FLAGS, SubmissionQueue.TASKRUN);
            } else if (taskWork.isEmpty()) {
                INT.getAndBitwiseAndRelease(mem, (long) RingLayout.SQ_FLAGS, ~SubmissionQueue.TASKRUN);
            }
        }
    }

    /** {@link #pendingChanged} for direct I/O, which keeps its own lock: takes the ring's, if it matters. */
    void directIoChanged() {
        if (taskrunFlag && poller.issuerPolls()) {
            lock.lock();
            try {
                pendingChanged();
            } finally {
                lock.unlock();
            }
        }
    }

    /** A registered eventfd: on a DEFER_TASKRUN ring the poller gets a thread to signal it. Under the lock. */
    void eventfdRegistered() {
        poller.useThread();
    }

    /** {@link #waitCq} as a plain condition-variable wait ({@link #CONDVAR_WAIT}). */
    private int waitCqOnCondition(int min, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        int timeouts = timeoutsFired;
        while (true) {
            runTaskWork();
            if (overflow.count > 0) {
                flushOverflow();
            }
            lock.lock();
            try {
                if (cqReady() >= min || timeoutsFired != timeouts) {
                    return 0;
                }
                if (timeoutNanos >= 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return -Errno.ETIME;
                    }
                    cqChanged.awaitNanos(left);
                } else {
                    cqChanged.await();
                }
            } catch (InterruptedException e) {
                return -Errno.EINTR;
            } finally {
                lock.unlock();
            }
        }
    }

    private int cqReady() {
        return (int) INT.getAcquire(mem, (long) RingLayout.CQ_TAIL) - (int) INT.getAcquire(mem, (long) RingLayout.CQ_HEAD);
    }

    // ---- submission --------------------------------------------------------------------------------------

    /** Consumes up to {@code toSubmit} SQEs; returns how many were consumed (io_submit_sqes). */
    private int submit(int toSubmit) {
        int tail = (int) INT.getAcquire(mem, (long) RingLayout.SQ_TAIL);
        int n = Math.min(toSubmit, tail - sqHead);
        int consumed = 0;
        Request chainHead = null;
        Request chainTail = null;
        int chainError = 0;
        Request chainFailed = null;
        boolean submitAll = (setupFlags & SetupFlags.SUBMIT_ALL) != 0;
        while (consumed < n) {
            int index = arrayOff < 0 ? sqHead & sqMask : mem.get(JAVA_INT, arrayOff + 4L * (sqHead & sqMask));
            sqHead++;
            consumed++;
            if (index < 0 || index >= sqEntries) {
                INT.setRelease(mem, (long) RingLayout.SQ_DROPPED, (int) INT.getOpaque(mem, (long) RingLayout.SQ_DROPPED) + 1);
                break;
            }
            Request r = acquire();
            int err = copySqe(r, (long) index * sqeSize);
            if (err == 0 && r.opcode == Opcode.LINK_TIMEOUT) {
                if (chainTail == null || chainTail.opcode == Opcode.LINK_TIMEOUT) {
                    err = -Errno.EINVAL;
                } else {
                    chainTail.linkTimeout = r;
                    r.linkTimeout = chainTail;
                }
            }
            boolean linksOn = (r.sqeFlags & (SqeFlags.IO_LINK | SqeFlags.IO_HARDLINK)) != 0;
            r.state = Request.LINKED;
            if (chainHead == null) {
                chainHead = r;
            } else {
                chainTail.link = r;
            }
            chainTail = r;
            if (err != 0 && chainFailed == null) {
                chainFailed = r;
                chainError = err;
            }
            if (!linksOn) {
                boolean stop = chainFailed != null && !submitAll;
                endChain(chainHead, chainFailed, chainError);
                chainHead = chainTail = chainFailed = null;
                if (stop) {
                    break;
                }
            }
        }
        if (chainHead != null) {
            endChain(chainHead, chainFailed, chainError);     // the batch ended inside a chain: it ends here
        }
        INT.setRelease(mem, (long) RingLayout.SQ_HEAD, sqHead);
        return consumed;
    }

    private Request acquire() {
        lock.lock();
        try {
            return pool.acquire();
        } finally {
            lock.unlock();
        }
    }

    /** SUBMIT_STABLE: everything the request needs is copied now. Returns 0 or the prep error. */
    private int copySqe(Request r, long sqe) {
        final MemorySegment s = sqes;
        r.opcode = s.get(JAVA_BYTE, sqe);
        r.sqeFlags = s.get(JAVA_BYTE, sqe + 1);
        r.ioprio = s.get(JAVA_SHORT, sqe + 2) & 0xffff;
        r.fd = s.get(JAVA_INT, sqe + 4);
        r.off = s.get(JAVA_LONG, sqe + 8);
        r.addr = s.get(JAVA_LONG, sqe + 16);
        r.len = s.get(JAVA_INT, sqe + 24);
        r.opFlags = s.get(JAVA_INT, sqe + 28);
        r.userData = s.get(JAVA_LONG, sqe + 32);
        r.bufIndex = s.get(JAVA_SHORT, sqe + 40) & 0xffff;
        r.fileIndex = s.get(JAVA_INT, sqe + 44);
        if ((r.sqeFlags & ~OpDefs.SUPPORTED_SQE_FLAGS) != 0 || OpDefs.of(r.opcode) == null) {
            return -Errno.EINVAL;
        }
        int refused = admit(r, sqe);
        return refused != 0 ? refused : OpDefs.prep(r);
    }

    /**
     * The rest of the kernel's io_init_req, in its order: restrictions (-EACCES), the personality (-EINVAL),
     * and addr3 where an opcode reads it (FTRUNCATE, FIXED_FD_INSTALL: must be zero; MSG_RING: SEND_FD's source
     * slot). A method of its own so that {@link #copySqe} stays small enough for the JIT to inline it into
     * {@link #submit}.
     */
    private int admit(Request r, long sqe) {
        if (restrictions != null && !restrictions.allows(r.opcode, r.sqeFlags & 0xff)) {
            return -Errno.EACCES;
        }
        int personality = sqes.get(JAVA_SHORT, sqe + 42) & 0xffff;
        if ((personality != 0 && !personalities.contains(personality))
                || (r.opcode == Opcode.FTRUNCATE || r.opcode == Opcode.FIXED_FD_INSTALL)
                    && sqes.get(JAVA_LONG, sqe + 48) != 0) {
            return -Errno.EINVAL;
        }
        if (r.opcode == Opcode.MSG_RING) {
            r.progress = (int) sqes.get(JAVA_LONG, sqe + 48);
        }
        return 0;
    }

    /**
     * Queues a complete chain, or fails it whole when a member was refused at prep: that member completes with
     * its error and every other one, earlier members and hard links included, with -ECANCELED.
     */
    private void endChain(Request head, Request failed, int error) {
        if (failed != null) {
            lock.lock();
            try {
                for (Request r = head; r != null; ) {
                    Request next = r.link;
                    if (r == failed) {
                        post(r.userData, error, 0, true);       // refused at prep: a zero-copy send has no notification
                    } else {
                        postFinal(r, -Errno.ECANCELED, 0, true, false);
                    }
                    pool.release(r);
                    r = next;
                }
            } finally {
                lock.unlock();
            }
            wake(false);
            return;
        }
        boolean drain = false;
        int length = 0;
        for (Request r = head; r != null; r = r.link) {
            drain |= (r.sqeFlags & SqeFlags.IO_DRAIN) != 0;
            length++;
        }
        lock.lock();
        try {
            if (!deferred.isEmpty() || drainActive || (drain && inflight > 0)) {
                head.state = Request.DEFERRED;
                deferred.add(head);
                return;
            }
            inflight += length;
            drainActive |= drain;
        } finally {
            lock.unlock();
        }
        issue(head, false);
    }

    // ---- execution ---------------------------------------------------------------------------------------

    /**
     * Runs {@code r} and then its successors right here, as long as each can run on this thread: blocking work
     * found on a non-worker thread is handed to the io-wq, and a request that completes later (a timer) ends
     * the run; its completion continues the chain.
     */
    void issue(Request r, boolean onWorker) {
        Request first = r;
        while (r != null) {
            armLinkTimeout(r);
            OpDefs.OpDef def = OpDefs.of(r.opcode);
            boolean async = (r.sqeFlags & SqeFlags.ASYNC) != 0;
            if (!onWorker && (def.mayBlock() || async)) {
                r.state = Request.RUNNING;
                int res = r.cancelRequested || async || !def.nowaitFirst() ? NEEDS_WORKER : rw.tryInline(r);
                if (res == NEEDS_WORKER) {
                    wq.enqueue(r);
                    return;
                }
                if (res == PENDING) {
                    return;
                }
                r = finish(r, res, false);
            } else if (REQUEUE_LINKS && onWorker && r != first) {
                wq.enqueue(r);
                return;
            } else {
                r = run(r, onWorker);
            }
        }
    }

    /** Executes {@code r}; returns the successor to run in place, or null (it waits, or went to the io-wq). */
    private Request run(Request r, boolean onWorker) {
        r.state = Request.RUNNING;
        int res = r.cancelRequested ? -Errno.ECANCELED : OpDefs.issue(this, r, onWorker);
        if (res == PENDING) {
            return null;
        }
        if (res == NEEDS_WORKER) {
            wq.enqueue(r);
            return null;
        }
        return finish(r, res, onWorker);
    }

    /**
     * The poller found the requests of {@code ready} (linked through {@link Request#nextQueued}) ready: they run
     * again now, or, found by the poller's thread with COOP_TASKRUN + TASKRUN_FLAG or DEFER_TASKRUN, in the
     * issuer's next enter — raising IORING_SQ_TASKRUN and
     * waking a waiter, as the kernel does when it queues task work.
     */
    void readied(Request ready) {
        if (!resumeInEnter || poller.issuerPolls()) {       // no deferral needed: we are the issuer, in enter
            while (ready != null) {
                Request r = ready;
                ready = r.nextQueued;
                r.nextQueued = null;
                resume(r);
            }
            return;
        }
        lock.lock();
        try {
            Request tail = ready;
            tail.state = Request.READY;
            while (tail.nextQueued != null) {
                tail = tail.nextQueued;
                tail.state = Request.READY;
            }
            taskWork.addChain(ready, tail);
            INT.getAndBitwiseOrRelease(mem, (long) RingLayout.SQ_FLAGS, SubmissionQueue.TASKRUN);
        } finally {
            lock.unlock();
        }
        // "Work pending" goes to the registered eventfd too — unless the work is a wait on that very eventfd,
        // woken by our own signal: the kernel recognises that wake-up as its own (EPOLL_URING_WAKE).
        wake(true, true, !onlyWaitsOnEventfd(ready));
    }

    private boolean onlyWaitsOnEventfd(Request ready) {
        for (Request r = ready; r != null; r = r.nextQueued) {
            if (r.pollFd != eventfd.source) {
                return false;
            }
        }
        return true;
    }

    /** Takes a READY request off the task-work list (cancel, link timeout); it is RUNNING then. Under the lock. */
    boolean takeTaskWork(Request r) {
        if (r.state != Request.READY) {
            return false;
        }
        taskWork.unlink(r);         // a READY request is always in the list
        if (taskWork.isEmpty()) {
            INT.getAndBitwiseAndRelease(mem, (long) RingLayout.SQ_FLAGS, ~SubmissionQueue.TASKRUN);
        }
        r.state = Request.RUNNING;
        return true;
    }

    /** In enter, on the issuer: runs the ready requests the poller queued (COOP_TASKRUN + TASKRUN_FLAG). */
    private void runTaskWork() {
        if (!resumeInEnter) {
            return;
        }
        Request ready;
        lock.lock();
        try {
            ready = taskWork.takeAll();
            for (Request q = ready; q != null; q = q.nextQueued) {
                q.state = Request.RUNNING;          // out of the list: no longer for cancel to take
            }
            if (ready != null) {
                INT.getAndBitwiseAndRelease(mem, (long) RingLayout.SQ_FLAGS, ~SubmissionQueue.TASKRUN);
            }
        } finally {
            lock.unlock();
        }
        while (ready != null) {
            Request r = ready;
            ready = r.nextQueued;
            r.nextQueued = null;
            resume(r);
        }
    }

    /**
     * {@code r}'s file is ready: it runs again here, on the poller thread or the issuer — a read tried without
     * blocking first, anything that may block on the io-wq — and its chain goes on from there.
     */
    private void resume(Request r) {
        try {
            issue(r, false);
        } catch (IllegalStateException e) {
            if (!closed) {
                throw e;
            }
        }
    }

    /**
     * Arms {@code r} on the poller until {@code fd} reports one of {@code events}: {@link #PENDING}, -ECANCELED
     * if a cancel asked for it meanwhile, or the epoll error (-EPERM: a file that is always ready).
     */
    int await(Request r, int fd, int events) {
        return arm(r, fd, events, false);
    }

    /** {@link #await} for the events {@code r}'s opcode waits for ({@link OpDefs.OpDef#pollEvents}). */
    int await(Request r, int fd) {
        return arm(r, fd, OpDefs.of(r.opcode).pollEvents(), false);
    }

    /** {@link #await} for a multishot poll, which stays armed and posts a CQE per wake-up. */
    int awaitMultishot(Request r, int fd, int events) {
        return arm(r, fd, events, true);
    }

    private int arm(Request r, int fd, int events, boolean multishot) {
        lock.lock();
        try {
            int ret = multishot ? poller.armMultishot(r, fd, events) : poller.arm(r, fd, events);
            return ret == 0 ? PENDING : ret;
        } finally {
            lock.unlock();
        }
    }

    /** A MSG_RING data message from another ring (or this one): its CQE, posted and woken like any other. */
    int postMessage(long userData, int res, int flags) {
        lock.lock();
        try {
            if (closed) {
                return -Errno.EBADFD;
            }
            post(userData, res, flags, true);
        } finally {
            lock.unlock();
        }
        wake(true);
        return 0;
    }

    /** A multishot request's intermediate CQE: {@code res} with F_MORE (and {@code flags}); it goes on. */
    void postMore(Request r, int res, int flags) {
        lock.lock();
        try {
            post(r.userData, res, flags | CqeFlags.F_MORE, true);
        } finally {
            lock.unlock();
        }
        wake(true);
    }

    /** A worker picked {@code r}: run it and its chain in place. After close, ring memory is gone: stop. */
    void runOnWorker(Request r) {
        try {
            issue(r, true);
        } catch (IllegalStateException e) {
            if (!closed) {
                throw e;
            }
        }
    }

    /**
     * Starts {@code r}'s LINK_TIMEOUT, as it starts to run. The kernel starts it once the request's first issue
     * has returned: work done in that one issue ({@link OpDefs.OpDef#doneInFirstIssue}) is never bounded by it, so its
     * timeout is not started at all and ends -ECANCELED with the request.
     */
    private void armLinkTimeout(Request r) {
        Request lt = r.linkTimeout;
        if (lt == null || r.opcode == Opcode.LINK_TIMEOUT || OpDefs.of(r.opcode).doneInFirstIssue()) {
            return;
        }
        lock.lock();
        try {
            if (lt.state == Request.LINKED) {
                timer.arm(lt, System.nanoTime() + timespecNanos(lt.addr));
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Completes {@code r} with {@code res}: posts its CQE (unless skipped), retires its disarmed link timeout,
     * fails the rest of the chain on error (not after a hard link), starts drained requests once nothing is in
     * flight, and returns the successor to run in place, or null.
     */
    Request finish(Request r, int res, boolean async) {
        boolean failed = res < 0 || (OpDefs.of(r.opcode).failsShort() && res < r.wanted);
        boolean hardlink = (r.sqeFlags & SqeFlags.IO_HARDLINK) != 0;
        Request next;
        Request drained;
        Request canceller;
        lock.lock();
        try {
            canceller = r.canceller;
            boolean skips = (r.sqeFlags & SqeFlags.CQE_SKIP_SUCCESS) != 0;
            if (!skips || failed) {
                postFinal(r, res, r.cqeFlags, r.opcode != Opcode.TIMEOUT, true);
            }
            if (r.opcode == Opcode.TIMEOUT && res != -Errno.ECANCELED) {
                timeoutsFired++;        // single writer: under the lock
            }
            next = r.link;
            Request lt = r.linkTimeout;
            if (lt != null && r.opcode != Opcode.LINK_TIMEOUT) {
                // Our guard is still in the chain right behind us: we beat it, so it completes -ECANCELED.
                if (lt.state == Request.ARMED) {
                    timer.remove(lt);
                }
                if ((lt.sqeFlags & SqeFlags.CQE_SKIP_SUCCESS) == 0) {
                    post(lt.userData, -Errno.ECANCELED, 0, true);
                }
                next = lt.link;
                retire(lt);
            }
            retire(r);
            if (next != null && failed && !hardlink) {
                // The kernel's REQ_F_SKIP_LINK_CQES: a failure in a request that skips its CQE on success
                // silences the cancelled rest of the chain (its own error is still posted).
                cancelChain(next, (r.sqeFlags & SqeFlags.CQE_SKIP_SUCCESS) == 0);
                next = null;
            }
            drained = releaseDeferred();
        } finally {
            lock.unlock();
        }
        wake(async, r.opcode == Opcode.TIMEOUT);     // a timeout ends the wait even short of min_complete
        if (canceller != null) {
            issue(finish(canceller, res == -Errno.ECANCELED ? 0 : -Errno.EALREADY, async), false);
        }
        while (drained != null) {
            Request d = drained;
            drained = d.nextQueued;
            d.nextQueued = null;
            issue(d, false);
        }
        return next;
    }

    /**
     * A LINK_TIMEOUT expired before the request it guards: it completes with -ETIME and leaves the chain, and
     * the guarded request is cancelled if it has not started — returned (RUNNING) for the caller to finish with
     * -ECANCELED outside the lock. A request already running on a worker finishes with its own result: a
     * blocking system call cannot be interrupted. Under the lock.
     */
    Request linkTimeoutFired(Request lt) {
        Request target = lt.linkTimeout;
        target.link = lt.link;
        target.linkTimeout = null;
        if ((lt.sqeFlags & SqeFlags.CQE_SKIP_SUCCESS) == 0) {
            post(lt.userData, -Errno.ETIME, 0, true);
        }
        retire(lt);
        boolean taken = false;
        if (target.state == Request.ARMED) {
            timer.remove(target);
            taken = true;
        } else if (target.state == Request.QUEUED) {
            taken = wq.remove(target);
        } else {
            taken = poller.remove(target) || takeTaskWork(target);
        }
        if (taken) {
            target.state = Request.RUNNING;
            wake(true);
            return target;
        }
        // Running, picked by a worker just now, or being issued: it stops before executing or when it would
        // wait for readiness; inside a system call it runs out.
        target.cancelRequested = true;
        wake(true);
        return null;
    }

    /** Completes every request from {@code first} on with -ECANCELED (a failed link). Under the lock. */
    private void cancelChain(Request first, boolean post) {
        for (Request r = first; r != null; ) {
            Request next = r.link;
            if (r.state == Request.ARMED) {
                timer.remove(r);
            }
            if (post) {
                postFinal(r, -Errno.ECANCELED, 0, true, false);
            }
            retire(r);
            r = next;
        }
    }

    private void retire(Request r) {
        inflight--;
        boolean held = r.fileHeld;
        int fd = r.fd;
        pool.release(r);
        if (held) {
            files.released(fd);
        }
    }

    /**
     * With nothing in flight, the drain barrier is passed: starts deferred chains in order, up to and including
     * the next IO_DRAIN one (which everything after it waits for). Under the lock; returns them linked through
     * {@link Request#nextQueued}.
     */
    private Request releaseDeferred() {
        if (inflight != 0 || deferred.isEmpty()) {
            if (inflight == 0) {
                drainActive = false;
            }
            return null;
        }
        drainActive = false;
        RequestFifo out = new RequestFifo();
        while (!deferred.isEmpty()) {
            Request d = deferred.peek();
            boolean drain = false;
            int length = 0;
            for (Request q = d; q != null; q = q.link) {
                drain |= (q.sqeFlags & SqeFlags.IO_DRAIN) != 0;
                length++;
            }
            if (drain && !out.isEmpty()) {
                break;
            }
            deferred.poll();
            d.state = Request.LINKED;
            inflight += length;
            out.add(d);
            if (drain) {
                drainActive = true;
                break;
            }
        }
        return out.takeAll();
    }

    // ---- completion queue --------------------------------------------------------------------------------

    /**
     * Posts a CQE, or appends it to the overflow list when the CQ is full or already backlogged (order is kept:
     * nothing overtakes an overflowed CQE). Under the lock; {@code counts} is false for timeout CQEs, which
     * counted timeouts do not count.
     */
    void post(long userData, int res, int flags, boolean counts) {
        if (overflow.count == 0 && !tryPost(userData, res, flags)) {
            overflow.add(userData, res, flags);
            INT.getAndBitwiseOrRelease(mem, (long) RingLayout.SQ_FLAGS, SubmissionQueue.CQ_OVERFLOW);
        } else if (overflow.count > 0) {
            overflow.add(userData, res, flags);
        }
        if (counts) {
            timer.countCompletion();
        }
    }

    /**
     * A request's final CQE. A zero-copy send that got past prep is followed by its notification (F_NOTIF), as
     * in the kernel, failed or cancelled too; its result announces it (F_MORE) only if the send ran — one
     * cancelled before it ran ({@code ran} false: a failed link) has none, as the kernel's. We always send by
     * copying, so the buffer is free at once; with ZC_REPORT_USAGE the notification says so. Under the lock.
     */
    private void postFinal(Request r, int res, int flags, boolean counts, boolean ran) {
        if (!OpDefs.of(r.opcode).notifies()) {
            post(r.userData, res, flags, counts);
            return;
        }
        post(r.userData, res, ran ? flags | CqeFlags.F_MORE : 0, counts);
        boolean report = (r.ioprio & OpFlags.SendRecv.ZC_REPORT_USAGE) != 0;
        post(r.userData, report ? NOTIF_USAGE_ZC_COPIED : 0, CqeFlags.F_NOTIF, counts);
    }

    private boolean tryPost(long userData, int res, int flags) {
        int head = (int) INT.getAcquire(mem, (long) RingLayout.CQ_HEAD);
        if (cqTail - head >= cqEntries) {
            return false;
        }
        long at = RingLayout.CQES + ((long) (cqTail & cqMask) << cqeShift);
        mem.set(JAVA_LONG, at, userData);
        mem.set(JAVA_INT, at + 8, res);
        mem.set(JAVA_INT, at + 12, flags);
        if (cqeShift == 5) {
            mem.set(JAVA_LONG, at + 16, 0L);        // big_cqe[]: the slot may hold an older CQE's
            mem.set(JAVA_LONG, at + 24, 0L);
        }
        cqTail++;
        INT.setRelease(mem, (long) RingLayout.CQ_TAIL, cqTail);
        return true;
    }

    /** Moves overflowed CQEs into the CQ, in order, as far as there is room; clears the flag once empty. */
    private void flushOverflow() {
        lock.lock();
        try {
            while (overflow.count > 0 && tryPost(overflow.peekLong(), overflow.peekFirst(), overflow.peekSecond())) {
                overflow.removeFirst();
            }
            if (overflow.count == 0) {
                INT.getAndBitwiseAndRelease(mem, (long) RingLayout.SQ_FLAGS, ~SubmissionQueue.CQ_OVERFLOW);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * After posting: wakes the waiter if the CQ now holds what it waits for (or CQEs wait in the overflow list
     * for it to flush, or {@code always}) — the kernel's wake-up check of nr_events, so a chain of ten CQEs
     * costs one unpark, not ten. The full fence orders our tail store before reading {@link #waiter}: the other
     * half of the waiter's store-then-check. Then signals the eventfd.
     */
    void wake(boolean async) {
        wake(async, false, true);
    }

    private void wake(boolean async, boolean always) {
        wake(async, always, true);
    }

    private void wake(boolean async, boolean always, boolean notify) {
        if (CONDVAR_WAIT) {
            lock.lock();
            try {
                cqChanged.signalAll();
            } finally {
                lock.unlock();
            }
        }
        VarHandle.fullFence();
        Thread w = waiter;
        if (w != null && (always || overflow.count > 0
                || (int) INT.getAcquire(mem, (long) RingLayout.CQ_TAIL) - waitTarget >= 0)) {
            if (!waiterPolls) {
                LockSupport.unpark(w);
            } else if (w != Thread.currentThread()) {
                poller.wakeUp();        // the issuer running ready requests in its own wait needs no wake-up
            }
        }
        if (notify && eventfd.fd >= 0 && (!eventfd.asyncOnly || async)
                && ((int) INT.getOpaque(mem, (long) RingLayout.CQ_FLAGS) & CompletionQueue.EVENTFD_DISABLED) == 0) {
            eventfd.signal();
        }
    }

    // ---- lifetime ----------------------------------------------------------------------------------------

    /** The ring fd is closed: stop workers and the timer, drop what is in flight, free the memory. */
    void close() {
        closed = true;
        poller.close();
        wq.close();
        directIo.close();
        timer.close();
        lock.lock();
        try {
            files.close();
            buffers.clear();
            bufRings.clear();
            eventfd.close();
        } finally {
            lock.unlock();
        }
        try {
            arena.close();
        } catch (IllegalStateException e) {
            // a worker is touching the ring right now: the memory goes with the arena's last user
        }
    }
}
