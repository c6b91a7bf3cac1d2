package io.uring4j.ring;

import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.GeteventsArgLayout;
import io.uring4j.ring.abi.ParamsLayout;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.IoUringSyscalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An io_uring instance: the ring fd, its mapped submission and completion queues, and the submit and wait
 * calls with liburing's rules for when to enter the kernel.
 *
 * <pre>{@code
 * try (IoUring ring = IoUring.builder().entries(64).build()) {
 *     ring.sq().next().prepNop().userData(42);
 *     ring.submitAndWait(1);
 *     Cqe cqe = ring.cq().peek();            // user_data 42, res 0
 *     ring.cq().seen(cqe);
 * }
 * }</pre>
 *
 * <p>A ring is not thread-safe: one thread prepares, submits and reaps (a SINGLE_ISSUER or DEFER_TASKRUN ring
 * enforces this in the kernel, which answers other threads with EEXIST). Registration calls may come from any
 * thread, except on a SINGLE_ISSUER ring, where the kernel holds io_uring_register to the issuer as well.
 * Memory the kernel reads or writes for a request stays the caller's responsibility until the request's final
 * CQE; the runtime layer above the ring takes that over.
 *
 * <p>Closing is idempotent and unmaps everything; any later use throws {@link IllegalStateException}.
 */
public final class IoUring implements AutoCloseable {

    private final Engine engine;
    private final int ringFd;
    private final int setupFlags;
    private final int features;
    private int sqEntries;
    private int cqEntries;
    private final Arena arena;
    /** The ring memory (SQ ring, CQ ring if separate, SQE array), for madvise. */
    /** Every ring mapping, in use or left behind by a resize; all unmapped at close. */
    private final List<MemorySegment> mappings = new ArrayList<>();
    private final SubmissionQueue sq;
    private final CompletionQueue cq;
    private final Registrar registrar;
    /** io_uring_getevents_arg (24 bytes) followed by its timespec (16), reused by every timed wait. */
    private final MemorySegment waitArg;
    private final boolean sqpoll;
    /** IOPOLL without SQPOLL: completions are found only by entering (liburing's INT_FLAG_CQ_ENTER). */
    private final boolean cqEnter;
    /**
     * SINGLE_ISSUER rings: the issuer thread as far as this library knows — the creator, or the thread that
     * enabled an R_DISABLED ring; null before that. Only used to explain EEXIST.
     */
    private volatile Thread issuer;
    private final Thread creator;
    /** The kernel engine, when that is the engine: enters from the creator thread then use {@link #callState}. */
    private final KernelEngine kernel;
    /** errno capture buffer for enters from the creator thread (no thread-local lookup on the hot path). */
    private final MemorySegment callState;

    /** The fd passed to enter: the ring fd, or its registered index once {@link Registrar#ringFd()} ran. */
    private int enterFd;
    /** OR'ed into every enter: REGISTERED_RING once the ring fd is registered. */
    private int enterFlags;
    private boolean registerWithIndex;
    private volatile boolean closed;
    /** {@link #dontFork()} was asked for: it applies to the mappings a resize adds as well. */
    private boolean dontFork;

    IoUring(Engine engine, int ringFd, MemorySegment params, Arena arena, MemorySegment sqRing,
            MemorySegment cqRing, MemorySegment sqeArray, boolean registeredIndexOnly) {
        this.engine = engine;
        this.arena = arena;
        addMappings(sqRing, cqRing, sqeArray);
        this.setupFlags = params.get(JAVA_INT, ParamsLayout.FLAGS);
        this.features = params.get(JAVA_INT, ParamsLayout.FEATURES);
        this.sqEntries = params.get(JAVA_INT, ParamsLayout.SQ_ENTRIES);
        this.cqEntries = params.get(JAVA_INT, ParamsLayout.CQ_ENTRIES);
        this.sqpoll = (setupFlags & SetupFlags.SQPOLL) != 0;
        this.cqEnter = (setupFlags & SetupFlags.IOPOLL) != 0 && !sqpoll;
        int sqeSize = (setupFlags & SetupFlags.SQE128) != 0 ? 128 : 64;
        this.sq = new SubmissionQueue(sqRing, params, sqeArray, sqeSize, sqpoll);
        this.cq = new CompletionQueue(cqRing, params, (setupFlags & SetupFlags.CQE32) != 0,
                (setupFlags & SetupFlags.CQE_MIXED) != 0);
        this.waitArg = arena.allocate(GeteventsArgLayout.SIZE + Timespec.SIZE, 8);
        this.issuer = (setupFlags & (SetupFlags.SINGLE_ISSUER | SetupFlags.R_DISABLED)) == SetupFlags.SINGLE_ISSUER
                ? Thread.currentThread() : null;
        this.creator = Thread.currentThread();
        this.kernel = engine instanceof KernelEngine k ? k : null;
        this.callState = IoUringSyscalls.newCallState(arena);
        if (registeredIndexOnly) {
            this.ringFd = -1;
            this.enterFd = ringFd;
            this.enterFlags = EnterFlags.REGISTERED_RING;
            this.registerWithIndex = true;
        } else {
            this.ringFd = ringFd;
            this.enterFd = ringFd;
        }
        this.registrar = new Registrar(this);
    }

    /** A builder for a ring on the kernel's io_uring. */
    public static IoUringBuilder builder() {
        return new IoUringBuilder();
    }

    /** A default ring of {@code entries} SQEs (and 2 × entries CQEs). */
    public static IoUring open(int entries) throws ErrnoException {
        return builder().entries(entries).build();
    }

    // ---- queues ----------------------------------------------------------------------------------------

    /** The submission queue; throws {@link IllegalStateException} once the ring is closed. */
    public SubmissionQueue sq() {
        checkOpen();
        return sq;
    }

    /** The completion queue; throws {@link IllegalStateException} once the ring is closed. */
    public CompletionQueue cq() {
        checkOpen();
        return cq;
    }

    /** Registration calls (files, buffers, ring fd, eventfd, buffer rings, probe, ...). */
    public Registrar register() {
        checkOpen();
        return registrar;
    }

    // ---- submit and wait -------------------------------------------------------------------------------

    /** Submits prepared SQEs; returns how many the kernel consumed. Enters the kernel only when needed. */
    public int submit() throws ErrnoException {
        checkOpen();
        return submit(sq.flush(), 0, false);
    }

    /**
     * {@link #submit()} for an owner that needs the room in a full SQ before it can go on: the kernel's "not now"
     * ({@link #underPressure}) is tried again after a pause, up to {@value #PRESSURE_TRIES} times, then thrown.
     */
    public int submitPatiently() throws ErrnoException {
        for (int tries = 1; ; tries++) {
            try {
                return submit();
            } catch (ErrnoException e) {
                if (!underPressure(e) || tries == PRESSURE_TRIES) {
                    throw e;
                }
                LockSupport.parkNanos(PRESSURE_PAUSE_NANOS);
            }
        }
    }

    /** Submits and waits until at least {@code waitNr} CQEs are ready. Returns the number submitted. */
    public int submitAndWait(int waitNr) throws ErrnoException {
        checkOpen();
        return submit(sq.flush(), waitNr, false);
    }

    /** Submits and runs pending task work / flushes overflow, without waiting (io_uring_submit_and_get_events). */
    public int submitAndGetEvents() throws ErrnoException {
        checkOpen();
        return submit(sq.flush(), 0, true);
    }

    /**
     * Submits, then waits up to {@code timeoutNanos} for {@code waitNr} CQEs in the same enter. Returns the
     * number submitted, even when the wait timed out: check {@link CompletionQueue#ready()}.
     */
    public int submitAndWait(int waitNr, long timeoutNanos) throws ErrnoException {
        return submitAndWaitMinTimeout(waitNr, 0, Math.max(0, timeoutNanos));     // negative: no wait, as before
    }

    /**
     * Submits, then waits for {@code waitNr} CQEs for at most {@code minWaitNanos}; after that it returns if a
     * CQE is ready or no overall timeout is set ({@code timeoutNanos < 0}), else waits for one until the timeout
     * ({@code io_uring_submit_and_wait_min_timeout}, FEAT_MIN_TIMEOUT, 6.12). Under DEFER_TASKRUN the completing
     * side wakes the waiter only when {@code waitNr} completions are pending, so a busy ring pays one wake-up per
     * batch rather than one per completion. Returns the number submitted; the kernel refuses a minimum wait
     * without FEAT_MIN_TIMEOUT (EINVAL).
     */
    public int submitAndWaitMinTimeout(int waitNr, long minWaitNanos, long timeoutNanos) throws ErrnoException {
        checkOpen();
        int submit = sq.flush();
        int submitted = 0;
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            int flags = EnterFlags.GETEVENTS | EnterFlags.EXT_ARG;
            if (sqpoll && submit > 0 && sq.needsWakeup()) {
                flags |= EnterFlags.SQ_WAKEUP;
            }
            long remaining = timeoutNanos < 0 ? -1 : Math.max(0, deadline - System.nanoTime());
            int ret = enter(submit, waitNr, flags, waitArg(remaining, minWaitNanos), GeteventsArgLayout.SIZE);
            if (ret >= 0) {
                return submitted + ret;
            }
            if (ret == -Errno.ETIME) {
                return submitted + submit - sq.flush();
            }
            if (ret != -Errno.EINTR) {
                throw enterFailure(ret);
            }
            int left = sq.flush();
            submitted += submit - left;
            submit = left;
        }
    }

    /**
     * SQPOLL: waits until the kernel thread has made room in a full SQ ({@code IORING_ENTER_SQ_WAIT}, liburing's
     * {@code io_uring_sqring_wait}). Returns at once if there is room already. The kernel's wait also ends early
     * when the thread has a signal or task work pending, so it is repeated until there is room.
     *
     * @throws IllegalStateException on a ring without SQPOLL, where a full SQ only means "submit first"
     */
    public void sqRingWait() throws ErrnoException {
        checkOpen();
        if (!sqpoll) {
            throw new IllegalStateException("sqRingWait is for SQPOLL rings: without SQPOLL, submit to make room");
        }
        while (sq.spaceLeft() == 0) {
            enterOrThrow(0, 0, EnterFlags.SQ_WAIT, 0, 0);
        }
    }

    /**
     * Whether waits in this ring count as iowait (they do by default). Idle network servers look 100 % busy in
     * iowait otherwise; turning it off needs FEAT_NO_IOWAIT (6.15), and is a no-op before that.
     */
    public void iowait(boolean enabled) {
        checkOpen();
        if (!enabled && hasFeature(Features.NO_IOWAIT)) {
            enterFlags |= EnterFlags.NO_IOWAIT;
        } else {
            enterFlags &= ~EnterFlags.NO_IOWAIT;
        }
    }

    /** Whether this ring's waits count as iowait: false once {@link #iowait} turned it off on a kernel with FEAT_NO_IOWAIT. */
    public boolean countsIowait() {
        return (enterFlags & EnterFlags.NO_IOWAIT) == 0;
    }

    private void addMappings(MemorySegment sqRing, MemorySegment cqRing, MemorySegment sqeArray) {
        mappings.add(sqRing);
        if (!cqRing.equals(sqRing)) {
            mappings.add(cqRing);
        }
        mappings.add(sqeArray);
    }

    /**
     * Gives the ring new SQ and CQ sizes ({@code IORING_REGISTER_RESIZE_RINGS}, 6.13; liburing's
     * {@code io_uring_resize_rings}), keeping every published SQE and every CQE not yet reaped. The kernel resizes
     * only DEFER_TASKRUN rings (EINVAL otherwise) and refuses sizes too small for what waits in them (EOVERFLOW);
     * CQEs in its overflow list move into the ring as room allows, as always. Call it on the thread that submits
     * and reaps, with every SQE prepared already submitted. {@link #sq()} and {@link #cq()} stay the same objects,
     * now on the new rings; an SQE or CQE handle taken before belongs to the old ones, which stay mapped until
     * {@link #close()}, so a stale handle touches memory the kernel no longer reads, never an unmapped page.
     */
    public void resize(int sqEntries, int cqEntries) throws ErrnoException {
        checkOpen();
        if ((setupFlags & SetupFlags.NO_MMAP) != 0) {
            throw new ErrnoException("io_uring_register(REGISTER_RESIZE_RINGS)", -Errno.EINVAL,
                    "this ring lives in memory the application gave (NO_MMAP); liburing does not resize those either");
        }
        sq.flush();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment params = scratch.allocate(ParamsLayout.SIZE, 8);
            params.set(JAVA_INT, ParamsLayout.SQ_ENTRIES, sqEntries);
            params.set(JAVA_INT, ParamsLayout.CQ_ENTRIES, cqEntries);
            params.set(JAVA_INT, ParamsLayout.FLAGS, SetupFlags.CQSIZE);
            registrar.resizeRings(params);
            // The new layout keeps this ring's flags and features, whatever the kernel wrote back in those fields.
            params.set(JAVA_INT, ParamsLayout.FLAGS, setupFlags);
            params.set(JAVA_INT, ParamsLayout.FEATURES, features);
            IoUringBuilder.Mapped m = IoUringBuilder.map(engine, ringFd, params, arena);
            addMappings(m.sqRing(), m.cqRing(), m.sqes());
            if (dontFork) {
                dontFork();
            }
            sq.remap(m.sqRing(), params, m.sqes());
            cq.remap(m.cqRing(), params);
            this.sqEntries = params.get(JAVA_INT, ParamsLayout.SQ_ENTRIES);
            this.cqEntries = params.get(JAVA_INT, ParamsLayout.CQ_ENTRIES);
        }
    }

    /**
     * Keeps the ring memory out of child processes ({@code MADV_DONTFORK}, liburing's
     * {@code io_uring_ring_dontfork}): a forked child sharing the rings could corrupt them.
     */
    public void dontFork() throws ErrnoException {
        checkOpen();
        dontFork = true;                               // a later resize's mappings too
        for (MemorySegment mapping : mappings) {
            int ret = io.uring4j.sys.LibC.madvise(mapping.address(), mapping.byteSize(), io.uring4j.sys.LibC.MADV_DONTFORK);
            if (ret < 0) {
                throw new ErrnoException("madvise(MADV_DONTFORK)", ret);
            }
        }
    }

    /** Enters with GETEVENTS only: runs deferred task work and flushes overflowed CQEs into the CQ. */
    public int getEvents() throws ErrnoException {
        checkOpen();
        return enterOrThrow(0, 0, EnterFlags.GETEVENTS, 0, 0);
    }

    /** Waits for one CQE and returns it at the head (consume it with {@link CompletionQueue#seen}). */
    public Cqe waitCqe() throws ErrnoException {
        return waitCqes(1, -1);
    }

    /**
     * Waits until {@code waitNr} CQEs are ready, or {@code timeoutNanos} passed ({@code < 0}: no timeout).
     * Returns the CQE at the head, or {@code null} if the time ran out with none ready. Submits nothing.
     * The timeout is applied once, across signals and retries (liburing issue #393).
     */
    public Cqe waitCqes(int waitNr, long timeoutNanos) throws ErrnoException {
        checkOpen();
        final boolean timed = timeoutNanos >= 0;
        final long deadline = timed ? System.nanoTime() + timeoutNanos : 0;
        boolean looped = false;
        while (true) {
            Cqe cqe = cq.peek();
            if (cqe == null && waitNr == 0) {
                if (looped || !(cqEnter || sq.cqNeedsFlush())) {
                    return null;
                }
            } else if (cqe != null && waitNr <= cq.ready()) {
                return cqe;     // (ready() re-reads the tail: without the null check a CQE landing between
            }                   // peek and ready would make us return null as if the wait had timed out)
            if (looped && timed && (cqe != null || deadline - System.nanoTime() <= 0)) {
                return cqe;     // as liburing: a timed wait returns what the first wake-up brought
            }
            long arg = 0;
            long argSize = 0;
            if (timed) {
                arg = timedWaitArg(Math.max(0, deadline - System.nanoTime()));
                argSize = GeteventsArgLayout.SIZE;
            }
            int ret = enter(0, waitNr, EnterFlags.GETEVENTS | (timed ? EnterFlags.EXT_ARG : 0), arg, argSize);
            if (ret == -Errno.ETIME) {
                return cq.peek();
            }
            if (ret == -Errno.EINTR) {
                continue;       // a signal: wait again for what is left of the same deadline
            }
            if (ret < 0) {
                throw enterFailure(ret);
            }
            if (cqe != null) {
                return cqe;
            }
            // Woken with nothing to show: a timeout request elsewhere in the ring fired (the kernel wakes
            // waiters for those), or task work ran. Wait again for what is left of the same deadline.
            looped = true;
        }
    }

    /** The CQE at the head, entering the kernel first only if completions are pending there; else null. */
    public Cqe peekCqe() throws ErrnoException {
        checkOpen();
        Cqe cqe = cq.peek();
        if (cqe == null && (cqEnter || sq.cqNeedsFlush())) {
            getEvents();
            cqe = cq.peek();
        }
        return cqe;
    }

    /**
     * liburing's {@code __io_uring_submit}: enter only if there is something to submit (and, under SQPOLL, the
     * kernel thread sleeps), or completions must be waited for or flushed.
     */
    private int submit(int submitted, int waitNr, boolean getEvents) throws ErrnoException {
        boolean cqNeedsEnter = getEvents || waitNr > 0 || cqEnter || sq.cqNeedsFlush();
        int flags = 0;
        boolean sqNeedsEnter = false;
        if (submitted > 0) {
            if (!sqpoll) {
                sqNeedsEnter = true;
            } else if (sq.needsWakeup()) {
                flags |= EnterFlags.SQ_WAKEUP;
                sqNeedsEnter = true;
            }
        }
        if (!sqNeedsEnter && !cqNeedsEnter) {
            return submitted;
        }
        if (cqNeedsEnter) {
            flags |= EnterFlags.GETEVENTS;
        }
        return enterOrThrow(submitted, waitNr, flags, 0, 0);
    }

    private long timedWaitArg(long nanos) {
        return waitArg(nanos, 0);
    }

    /** The getevents arg: {@code nanos < 0} sets no timespec; the minimum wait is rounded up to a microsecond. */
    private long waitArg(long nanos, long minWaitNanos) {
        final MemorySegment a = waitArg;
        a.set(JAVA_LONG, GeteventsArgLayout.SIGMASK, 0L);      // none
        a.set(JAVA_INT, GeteventsArgLayout.SIGMASK_SZ, 8);     // _NSIG / 8
        a.set(JAVA_INT, GeteventsArgLayout.MIN_WAIT_USEC,
                (int) Math.min(Integer.MAX_VALUE, (minWaitNanos + 999) / 1000));
        if (nanos < 0) {
            a.set(JAVA_LONG, GeteventsArgLayout.TS, 0L);
            return a.address();
        }
        a.set(JAVA_LONG, GeteventsArgLayout.TS, a.address() + GeteventsArgLayout.SIZE);   // right behind the arg
        a.set(JAVA_LONG, GeteventsArgLayout.SIZE, nanos / 1_000_000_000L);
        a.set(JAVA_LONG, GeteventsArgLayout.SIZE + 8, nanos % 1_000_000_000L);
        return a.address();
    }

    /** Enters, retrying on EINTR (signals from the JVM and profilers are routine); throws on errors. */
    private int enterOrThrow(int toSubmit, int minComplete, int flags, long arg, long argSize)
            throws ErrnoException {
        while (true) {
            int ret = enter(toSubmit, minComplete, flags, arg, argSize);
            if (ret >= 0) {
                return ret;
            }
            if (ret != -Errno.EINTR) {
                throw enterFailure(ret);
            }
        }
    }

    /**
     * The raw {@code io_uring_enter2}, with the registered ring index and flag applied. Returns the result or
     * {@code -errno}.
     */
    public int enter(int toSubmit, int minComplete, int flags, long arg, long argSize) {
        checkOpen();
        if (kernel != null && Thread.currentThread() == creator) {
            return kernel.enter(callState, enterFd, toSubmit, minComplete, flags | enterFlags, arg, argSize);
        }
        return engine.enter(enterFd, toSubmit, minComplete, flags | enterFlags, arg, argSize);
    }

    /**
     * io_uring_enter's "not now": EAGAIN (no memory for a request), EBUSY (overflowed CQEs could not be flushed) or
     * ENOMEM. Nothing was submitted: the SQEs wait in the SQ, and the kernel asks for the CQ to be reaped and the
     * call repeated. An owner that gave up here would strand every request in flight.
     */
    public static boolean underPressure(ErrnoException e) {
        return e.errno() == Errno.EAGAIN || e.errno() == Errno.EBUSY || e.errno() == Errno.ENOMEM;
    }

    /**
     * How long to pause after {@link #underPressure} with no completion to reap: long enough not to spin against a
     * kernel under pressure, short enough that a caller does not notice.
     */
    public static final long PRESSURE_PAUSE_NANOS = 50_000;
    private static final int PRESSURE_TRIES = 100;

    /**
     * For an owner whose enter failed with {@code e}: rethrows it unless it is the kernel's "not now"
     * ({@link #underPressure}). Then what is queued stays for the next enter, made after the CQ is reaped (which
     * EBUSY asks for); with nothing to reap, this pauses first, so that the owner does not spin.
     */
    public void rethrowUnlessUnderPressure(ErrnoException e) throws ErrnoException {
        if (!underPressure(e)) {
            throw e;
        }
        if (cq.ready() == 0) {
            LockSupport.parkNanos(PRESSURE_PAUSE_NANOS);
        }
    }

    private ErrnoException enterFailure(int ret) {
        String hint = switch (-ret) {
            case Errno.EEXIST -> singleIssuerHint("submit or wait");
            case Errno.EBADFD -> "the ring was created R_DISABLED: call register().enableRings() first";
            case Errno.EBADR -> "the kernel dropped completions (out of memory); cq().overflow() counts them";
            case Errno.EBUSY -> "overflowed completions could not be flushed: reap the CQ, then retry";
            case Errno.EOWNERDEAD -> "the SQPOLL thread has died";
            case Errno.ENXIO -> "the ring is being torn down";
            case Errno.EAGAIN -> "the kernel could not allocate request memory: reap completions and retry";
            default -> null;
        };
        return new ErrnoException("io_uring_enter", ret, hint);
    }

    /**
     * Why a SINGLE_ISSUER ring answered EEXIST to the calling thread, or null if the ring is not SINGLE_ISSUER or
     * the caller is its known issuer (then EEXIST means something else).
     */
    String singleIssuerHint(String action) {
        if ((setupFlags & SetupFlags.SINGLE_ISSUER) == 0) {
            return null;
        }
        Thread owner = issuer;
        Thread caller = Thread.currentThread();
        if (owner == caller) {
            return null;
        }
        return "this ring is SINGLE_ISSUER: only its issuer thread may " + action + " (issuer: "
                + (owner == null ? "unknown" : owner) + ", called from " + caller + ")";
    }

    /** REGISTER_ENABLE_RINGS succeeded on the calling thread: for SINGLE_ISSUER, it is now the issuer. */
    void enabledBy(Thread thread) {
        if ((setupFlags & SetupFlags.SINGLE_ISSUER) != 0 && issuer == null) {
            issuer = thread;
        }
    }

    // ---- registration plumbing -------------------------------------------------------------------------

    /** io_uring_register on this ring, through the registered index when the kernel accepts it. */
    int registerRaw(int opcode, long arg, int nrArgs) {
        checkOpen();
        if (registerWithIndex) {
            return engine.register(enterFd, opcode | RegisterOpcode.USE_REGISTERED_RING, arg, nrArgs);
        }
        return engine.register(ringFd, opcode, arg, nrArgs);
    }

    void ringFdRegistered(int index) {
        enterFd = index;
        enterFlags |= EnterFlags.REGISTERED_RING;
        registerWithIndex = hasFeature(Features.REG_REG_RING);
    }

    void ringFdUnregistered() {
        enterFd = ringFd;
        enterFlags &= ~EnterFlags.REGISTERED_RING;
        registerWithIndex = false;
    }

    /** The registered ring index, or -1 when enter uses the plain fd. */
    int registeredIndex() {
        return (enterFlags & EnterFlags.REGISTERED_RING) != 0 ? enterFd : -1;
    }

    Arena arena() {
        return arena;
    }

    Engine engine() {
        return engine;
    }

    // ---- facts -----------------------------------------------------------------------------------------

    /** The ring fd; -1 for a REGISTERED_FD_ONLY ring. */
    public int fd() {
        checkOpen();
        return ringFd;
    }

    /** The setup flags the ring was created with (after fall-backs). */
    public int setupFlags() {
        return setupFlags;
    }

    /** {@code IORING_FEAT_*} bits. */
    public int features() {
        return features;
    }

    public boolean hasFeature(int feature) {
        return (features & feature) == feature;
    }

    public int sqEntries() {
        return sqEntries;
    }

    public int cqEntries() {
        return cqEntries;
    }

    public Engine engineUsed() {
        return engine;
    }

    /** The ring's own memory: what is allocated here lives exactly as long as the ring (wait regions). */
    Arena memory() {
        return arena;
    }

    /** The engine serving this ring: under {@code auto}, the one it chose for this ring (kernel or portable). */
    public Engine engineServing() {
        return engine instanceof AutoEngine auto ? auto.owner(enterFd) : engine;
    }

    public boolean isOpen() {
        return !closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("io_uring is closed");
        }
    }

    /** Unregisters the ring fd (if registered), unmaps the rings and closes the fd. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        int index = registeredIndex();
        if (index >= 0) {
            registrar.unregisterRingIndex(index);
        }
        try {
            arena.close();
        } finally {
            if (ringFd >= 0) {
                engine.close(ringFd);
            }
        }
    }

    @Override
    public String toString() {
        return "IoUring[fd=" + ringFd + " sq=" + sqEntries + " cq=" + cqEntries + " flags="
                + SetupFlags.toString(setupFlags) + (closed ? " closed" : "") + "]";
    }
}
