package io.uring4j.portable;

import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.GeteventsArgLayout;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One ring's kernel side, along the kernel's own seams: {@link SqConsumer} reads SQEs, {@link Links} runs
 * requests and their chains (inline, on the {@link WorkQueue}, the {@link Timer} or the {@link Poller}),
 * {@link CqProducer} posts CQEs and wakes the {@link Waiter}, {@link TaskWork} runs what the poller found ready.
 * This class wires them and is the ring's entry: enter (submit, then wait), who may enter, and close. The state
 * its lock guards is one object, {@link RingLock}.
 */
final class PortableRing {
    /** Every address, for reading what SQEs point at (iovecs, timespecs): the kernel's copy_from_user. */
    static final MemorySegment USER = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    /** A long at any address (a timespec or enter argument may be unaligned); one instance, not one per read. */
    private static final ValueLayout.OfLong ANY_LONG = JAVA_LONG.withByteAlignment(1);
    private static final ValueLayout.OfInt ANY_INT = JAVA_INT.withByteAlignment(1);
    /** execute(): the request completes later (armed on the timer or the poller). */
    static final int PENDING = Integer.MIN_VALUE;
    /** execute(): the request must go on on an io-wq worker (its next system call may block). */
    static final int NEEDS_WORKER = Integer.MIN_VALUE + 1;
    private static final int ENTER_FLAGS = EnterFlags.GETEVENTS | EnterFlags.SQ_WAKEUP | EnterFlags.SQ_WAIT
            | EnterFlags.EXT_ARG | EnterFlags.REGISTERED_RING;
    /** {@link #gate} of an R_DISABLED ring: nobody may enter (EBADFD) until ENABLE_RINGS. */
    private static final Object DISABLED = new Object();

    final int fd;
    final int setupFlags;
    final int sqEntries;
    final int cqEntries;
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
    private final Arena arena;
    final MemorySegment mem;
    final MemorySegment sqes;

    final RingLock lock;
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
    private final Waiter waiter;
    final CqProducer cq;
    final TaskWork taskWork;
    final Links links;
    private final SqConsumer sq;
    volatile boolean closed;

    PortableRing(int fd, int setupFlags, int sqEntries, int cqEntries, long arrayOff, Arena arena,
                 MemorySegment mem, MemorySegment sqes) {
        this.fd = fd;
        this.setupFlags = setupFlags;
        this.sqEntries = sqEntries;
        this.cqEntries = cqEntries;
        this.gate = (setupFlags & SetupFlags.R_DISABLED) != 0 ? DISABLED
                : (setupFlags & SetupFlags.SINGLE_ISSUER) != 0 ? Thread.currentThread() : null;
        this.arena = arena;
        this.mem = mem;
        this.sqes = sqes;
        this.lock = new RingLock(cqEntries);
        String name = "uring4j-portable-" + Integer.toHexString(fd);
        this.wq = new WorkQueue(this, Math.max(1, Math.min(sqEntries, 4 * Runtime.getRuntime().availableProcessors())),
                name + "-iowq");
        this.timer = new Timer(this, name + "-timer");
        this.waiter = Waiter.chosen(this);
        boolean defer = (setupFlags & SetupFlags.DEFER_TASKRUN) != 0;
        this.poller = new Poller(this, name + "-poller", !defer || !waiter.mayPoll());
        this.files = new FileTable(this);
        this.eventfd = new CqEventfd(arena);
        this.directIo = new DirectIo(this);
        this.rw = new ReadWrite(this);
        this.sockets = new SocketOps(this);
        this.cq = new CqProducer(this, waiter);
        this.taskWork = new TaskWork(this);
        this.links = new Links(this, LinkPropagation.chosen());
        this.sq = new SqConsumer(this, arrayOff);
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
            if (argSize != GeteventsArgLayout.SIZE) {
                return -Errno.EINVAL;
            }
            minWait = arg == 0 ? 0 : Integer.toUnsignedLong(USER.get(ANY_INT, arg + GeteventsArgLayout.MIN_WAIT_USEC)) * 1000;
            long ts = arg == 0 ? 0 : USER.get(ANY_LONG, arg + GeteventsArgLayout.TS);
            if (ts != 0) {
                timeout = Math.max(0, timespecNanos(ts));
            }
        }
        cq.flushIfOverflowed();
        int submitted = 0;
        if (toSubmit > 0) {
            fileFacts.beginBatch();
            directIo.beginBatch();
            try {
                submitted = sq.submit(toSubmit);
            } finally {
                fileFacts.endBatch();
                directIo.flush();
            }
        }
        taskWork.run();
        if ((flags & EnterFlags.GETEVENTS) != 0) {
            int min = Math.min(minComplete, cqEntries);
            if (poller.issuerPolls() && (poller.hasArmed() || directIo.busy()) && cq.ready() >= min) {
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
        if (ret != -Errno.ETIME || !longer || cq.ready() > 0) {
            return ret;
        }
        return waitCq(1, timeoutNanos - minWait);
    }

    /** Waits until {@code min} CQEs are ready ({@link Waiter#await}); 0, -ETIME or -EINTR. */
    private int waitCq(int min, long timeoutNanos) {
        return cq.ready() >= min ? 0 : waiter.await(min, timeoutNanos);
    }

    /** A registered eventfd: on a DEFER_TASKRUN ring the poller gets a thread to signal it. Under the lock. */
    void eventfdRegistered() {
        poller.useThread();
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
