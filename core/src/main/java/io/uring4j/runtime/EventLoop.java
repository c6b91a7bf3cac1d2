package io.uring4j.runtime;

import io.uring4j.ring.CompletionQueue;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.CqeHandler;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Sqe;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One platform thread that owns one ring: the only thread that prepares SQEs, enters the kernel and reaps.
 *
 * <h2>An iteration</h2>
 * Run the tasks other threads handed over (each prepares its SQEs), then one {@code io_uring_enter} that submits
 * and — when there is nothing else to do — waits for at least one CQE, then reap the whole CQ batch and
 * dispatch each CQE to its request's {@link CompletionHandler}. Before blocking the loop may spin briefly
 * ({@link UringBuilder#spinNanos}).
 *
 * <h2>Hand-over and wake-up</h2>
 * On the loop thread, {@link #submit(Op, CompletionHandler)} writes the SQE directly: no atomic, no lock. Other
 * threads enqueue a task on an MPSC queue and wake the loop through an eventfd the ring is reading — but only
 * if the loop announced it is about to sleep, and only the first of them: one write per sleep, not per task.
 * While a {@link #callBounded} request (regular-file I/O) is in flight the loop is sure to wake for its CQE, so
 * it announces a bounded sleep, and other bounded calls handed over meanwhile ride along with that wake-up
 * instead of writing the eventfd; anything else still wakes it. A bounded sleep lasts at most 50 µs, so a rider
 * waits no longer than that even behind a slow disk's read; and a sleep is bounded only while bounded calls keep
 * coming, so a lone fsync does not make the loop wake every 50 µs.
 *
 * <h2>Batched sleeps</h2>
 * With {@link UringBuilder#batchWait} a busy loop sleeps until a batch of CQEs is ready or the maximum delay has
 * passed (the kernel's min-timeout wait). Under DEFER_TASKRUN the side that completes a request
 * — the softirq of a peer's send, often on the peer's own CPU — then wakes the loop once per batch instead of
 * once per completion; on a VM a cross-CPU wake-up is an IPI that costs that side microseconds. The loop
 * waits for a batch only after a wake-up that reaped a quarter of one (4 at least), so light load waits for one CQE
 * and pays no added latency; a hand-over from another thread may wait up to the maximum delay.
 *
 * <h2>Waking blocked callers</h2>
 * Blocking calls of virtual threads completed in one reaped batch are woken with one foreign unpark: the first
 * waiter unparks the rest from its carrier, where that is a push onto the carrier's own queue. From the loop
 * thread each unpark is an external submission to the scheduler that may wake a parked carrier (a futex call),
 * which made that round trip cost more than the I/O on this design's 2-vCPU bench machine.
 *
 * <h2>Lifetime</h2>
 * A request holds its {@link Op} (and so the memory it points at) from submit until its final CQE. Closing
 * cancels everything in flight and keeps reaping until every request has completed; only then are the ring
 * and the request scratch memory released.
 */
public final class EventLoop implements Executor {
    /** Internal user_data: the eventfd read that wakes the loop. */
    private static final long WAKEUP = -1L;
    /** Internal user_data: a cancellation the loop issued itself; its own result is not interesting. */
    private static final long INTERNAL_CANCEL = -2L;

    private static final int AWAKE = 0;
    private static final int SLEEPING = 1;
    /** Asleep until a CQE that is sure to come, or {@link #RIDE_ALONG_NANOS}: bounded calls do not wake it. */
    private static final int SLEEPING_BOUNDED = 2;
    /**
     * How long a bounded call may wait for the loop's next wake-up: a slow device (a disk's 10 ms) must not make
     * a second file call wait for the first one's completion.
     */
    private static final long RIDE_ALONG_NANOS = 50_000;
    /**
     * How long the loop pauses after io_uring_enter failed for want of memory with nothing to reap: long enough not
     * to spin against a kernel under pressure, short enough that a caller does not notice.
     */
    private static final long PRESSURE_PAUSE_NANOS = 50_000;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(EventLoop.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The eventfd increment every waker writes: read-only after initialisation, so shared by all. */
    private static final MemorySegment ONE = Arena.global().allocateFrom(JAVA_LONG, 1L);

    private static final System.Logger LOG = System.getLogger("io.uring4j.runtime");

    private final Uring runtime;
    private final int id;
    private final UringBuilder config;
    private final Thread thread;
    /** Runnables, and {@link SelfSubmitting} requests handed over as they are (no wrapper to allocate). */
    private final ConcurrentLinkedQueue<Object> tasks = new ConcurrentLinkedQueue<>();
    /**
     * Submissions that found the table full, retried after the next reap: {@link SelfSubmitting} requests and
     * chains as they are (so that a cancel can take them out), other submissions as Runnables. Loop thread only.
     */
    private final ArrayDeque<Object> deferred = new ArrayDeque<>();
    /** Control submissions that found even the reserved slots taken: they may take any slot that frees. */
    private final ArrayDeque<Runnable> deferredControl = new ArrayDeque<>();
    /** Whether {@link #deferred} holds anything: lets a closing fd skip a hand-over to a loop with no waiters. */
    private volatile boolean slotWaiters;
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CqeHandler dispatcher = this::dispatch;
    private final LoopCounters stats = new LoopCounters();

    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    private volatile boolean closing;
    /** Set once the loop has finished its work; hand-overs are refused from then on. */
    private volatile boolean exiting;
    private final java.util.concurrent.atomic.AtomicInteger waking = new java.util.concurrent.atomic.AtomicInteger();
    private volatile Throwable startFailure;
    private volatile String closeFailure;

    // Loop-thread state.
    private IoUring ring;
    private Arena arena;
    private RequestTable table;
    private int eventfd = -1;
    /** Requests in flight from {@link #callBounded}: while any is, a sleep ends with a CQE for sure. */
    private int boundedInFlight;
    /**
     * Set by other threads when they hand over a bounded call, cleared by the loop as it goes to sleep. Only
     * then is a sleep bounded (timed): a lone long request — an fsync of milliseconds — sleeps untimed, since
     * no one is there to ride along, and the first caller to come wakes the loop as any hand-over does.
     */
    private volatile boolean boundedHandedOver;
    /** Blocking calls of virtual threads completed in the current reaped batch ({@link #flushWakes}). */
    private BlockingCall wakeHead;
    private BlockingCall wakeTail;
    private MemorySegment eventfdValue;
    private boolean wakeupArmed;
    private boolean cancelIssued;
    /** {@link UringBuilder#batchWait} asked for and the kernel has FEAT_MIN_TIMEOUT. */
    private boolean batchWait;
    /**
     * A sleep waits for a batch only after a wake-up that reaped at least this many CQEs (a quarter of a batch,
     * and never fewer than a lone connection's receive and send can bring at once): under light load each sleep
     * waits for one, so batching adds no latency there.
     */
    private int batchThreshold;
    private int lastReaped;

    EventLoop(Uring runtime, int id, UringBuilder config) throws ErrnoException {
        this.runtime = runtime;
        this.id = id;
        this.config = config;
        this.thread = Thread.ofPlatform().name("uring4j-loop-" + id).daemon(true).unstarted(this::run);
        thread.start();
        try {
            started.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new ErrnoException("uring4j event loop start", Errno.EINTR);
        }
        if (startFailure instanceof ErrnoException e) {
            throw e;
        }
        if (startFailure != null) {
            throw new IllegalStateException("event loop " + id + " failed to start", startFailure);
        }
    }

    // ---- submitting --------------------------------------------------------------------------------------

    /** Whether the calling thread is this loop's thread. */
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /**
     * Submits {@code op}; {@code handler} receives its completion(s) on this loop's thread. On the loop thread
     * the SQE is written at once and nothing is allocated; from other threads the request is handed over.
     *
     * @throws RejectedExecutionException if the runtime is closed
     */
    public void submit(Op op, CompletionHandler handler) {
        checkAccepting();
        if (inLoop()) {
            submitNow(op, handler);
        } else {
            handOver(() -> submitNow(op, handler));
        }
    }

    /**
     * Submits {@code op} and returns its result as a future: the CQE result, or an {@link ErrnoException}
     * naming the opcode and errno. For single-shot requests.
     */
    public CompletableFuture<Integer> submitAsync(Op op) {
        OpFuture future = new OpFuture(this, op, null);
        submitSelf(future);
        return future;
    }

    /**
     * {@link #submitAsync(Op)} of a request on {@code guard}'s fd: it becomes a user of the fd when prepared and
     * stops being one at its final CQE; closed meanwhile, it fails with {@link java.nio.channels.ClosedChannelException}
     * without reaching the kernel, and a close never waits for it while it waits for a slot.
     */
    public CompletableFuture<Integer> submitAsync(Op op, FdGuard guard) {
        OpFuture future = new OpFuture(this, op, Objects.requireNonNull(guard, "guard"));
        submitSelf(future);
        return future;
    }

    /** A request that is its own op and handler (the future and blocking styles). */
    interface SelfSubmitting extends Op, CompletionHandler {
        /** The user_data its SQE carries; 0 until it is prepared (loop thread). */
        long userData();

        /** A cancel came before the request was prepared (any thread): it must not reach the kernel. */
        boolean withdrawn();

        /** The fd guard the request becomes a user of when prepared, or null. */
        FdGuard guard();
    }

    /** {@link #submit} for a request that is its own handler: handed over without a task object around it. */
    void submitSelf(SelfSubmitting request) {
        checkAccepting();
        if (inLoop()) {
            submitSelfNow(request);
        } else {
            enqueue(request);
        }
    }

    /**
     * Any thread: cancels {@code request}, submitted earlier with {@link #submitSelf}. On the loop this runs after
     * the submission (one FIFO queue), so the request is in flight — cancelled in the kernel, and it completes
     * through its handler as usual — or still waiting for a slot: then it never reaches the kernel and completes
     * at once with -ECANCELED. Never waits for a slot itself.
     */
    void cancelSelf(SelfSubmitting request) {
        if (!inLoop()) {
            try {
                handOver(() -> cancelSelf(request));
            } catch (RejectedExecutionException closing) {
                // the runtime is closing and cancels everything itself
            }
            return;
        }
        if (deferred.remove(request)) {
            request.complete(-Errno.ECANCELED, 0);
            flushWakes();
            return;
        }
        long userData = request.userData();
        if (userData != 0 && table.lookup(userData) != null) {
            cancel(userData);
        }
    }

    /**
     * Submits {@code op} and parks the calling thread (virtual or platform) until it completes. Returns the CQE
     * result; a negative result is thrown as {@link ErrnoException}. An interrupt cancels the request, waits for
     * its completion, and throws {@link java.io.InterruptedIOException}.
     */
    public int call(Op op) throws IOException {
        return new BlockingCall(op, this, false, null).call();
    }

    /**
     * {@link #call} for a request that completes on its own, without an outside event — regular-file I/O,
     * not a pipe or socket. While one is in flight the loop is sure to wake for its CQE, so other threads'
     * hand-overs wait for that wake-up instead of writing the loop's eventfd.
     */
    public int callBounded(Op op) throws IOException {
        return new BlockingCall(op, this, true, null).call();
    }

    /**
     * {@link #call} (or with {@code bounded}, {@link #callBounded}) of a request on {@code guard}'s fd. The request
     * becomes a user of the fd when it is prepared — as the kernel looks a file up when it issues the request —
     * not while it waits for a slot: a close then never waits for requests that have not reached the kernel,
     * and they fail with {@link java.nio.channels.ClosedChannelException} once prepared.
     */
    public int call(Op op, FdGuard guard, boolean bounded) throws IOException {
        return new BlockingCall(op, this, bounded, Objects.requireNonNull(guard, "guard")).call();
    }

    /** Starts a chain of linked requests; add steps, then submit. */
    public Chain chain(Op first) {
        return new Chain(this, first);
    }

    void submitChain(Chain.ChainFuture chain) {
        checkAccepting();
        if (inLoop()) {
            submitChainNow(chain);
        } else {
            enqueue(chain);
        }
    }

    /** Loop thread: reserves a slot and an SQE for every step, then writes them back to back. */
    private void submitChainNow(Chain.ChainFuture chain) {
        int n = chain.ops.length;
        if (closing) {
            chain.completeExceptionally(new RejectedExecutionException("uring4j runtime is closed: chain not submitted"));
            return;
        }
        if (chain.withdrawn) {
            withdraw(chain);
            return;
        }
        if (n > ring.sq().entries() || n > table.size()) {
            chain.completeExceptionally(new IllegalArgumentException("a chain of " + n
                    + " steps does not fit this loop (SQ " + ring.sq().entries() + ", slots " + table.size() + ")"));
            return;
        }
        if (!table.hasRoom(n)) {
            tableFull();
            defer(chain);
            return;
        }
        if (chain.guard != null) {
            try {
                chain.guard.acquireForRequest();
            } catch (UncheckedIOException closed) {
                chain.completeExceptionally(closed.getCause());
                return;
            }
            chain.guarding = true;
        }
        if (ring.sq().spaceLeft() < n) {
            flushSq();
        }
        for (int i = 0; i < n; i++) {
            RequestTable.Request r = table.acquire(chain.step(i), chain.ops[i]);
            Sqe sqe = nextSqe();
            sqe.userData(r.userData());
            chain.userData[i] = r.userData();
            try {
                chain.ops[i].prepare(sqe, r.scratch);
            } catch (RuntimeException e) {
                // Keep the chain's shape: this step fails as the kernel would fail it, and breaks the link.
                LOG.log(System.Logger.Level.DEBUG, "uring4j loop " + id + ": chain step " + i + " failed to prepare", e);
                sqe.prepNop(-Errno.EINVAL);
            }
            sqe.addFlags(chain.links[i]);
            r.opcode = sqe.opcode();
            stats.submitted++;
        }
    }

    /**
     * Cancels the steps of {@code chain} that have not completed; a chain still waiting for slots never reaches
     * the kernel, and every step reports -ECANCELED.
     */
    void cancelChain(Chain.ChainFuture chain) {
        chain.withdrawn = true;
        Runnable task = () -> {
            if (deferred.remove(chain)) {
                withdraw(chain);
                return;
            }
            for (int i = 0; i < chain.ops.length; i++) {
                if (!chain.done[i] && chain.userData[i] != 0) {
                    cancel(chain.userData[i]);
                }
            }
        };
        if (inLoop()) {
            task.run();
        } else {
            try {
                handOver(task);
            } catch (RejectedExecutionException closing) {
                // closing cancels everything itself
            }
        }
    }

    /** A chain cancelled before it was prepared: every step reports -ECANCELED, none reaches the kernel. */
    private static void withdraw(Chain.ChainFuture chain) {
        for (int i = 0; i < chain.ops.length; i++) {
            chain.step(i).complete(-Errno.ECANCELED, 0);
        }
    }

    /** Runs {@code task} on the loop thread. */
    @Override
    public void execute(Runnable task) {
        checkAccepting();
        handOver(task);
    }

    /**
     * Cancels the request {@code userData} (as seen by an {@link Op} in its SQE). The request still completes
     * through its handler, usually with -ECANCELED; the cancellation's own outcome is not reported.
     */
    public void cancel(long userData) {
        if (inLoop()) {
            prepareInternal().prepCancel(userData, 0).userData(INTERNAL_CANCEL);
        } else {
            handOver(() -> cancel(userData));
        }
    }

    /**
     * Any thread: queues {@code task} (a Runnable or a {@link SelfSubmitting} request) for the loop. No counter
     * on this path: the task is queued first and {@code exiting} read after, while the loop sets {@code exiting}
     * first and drains the queue after — so either that final drain finds the task, or the caller sees
     * {@code exiting} and takes the task back. The owner thread never comes here.
     */
    private void handOver(Runnable task) {
        enqueue(task);
    }

    private void enqueue(Object task) {
        tasks.offer(task);
        if (exiting) {
            if (tasks.remove(task)) {
                throw new RejectedExecutionException("uring4j runtime is closed: its event loop has stopped");
            }
            return;         // the final drain got it first: it ran and failed its handler
        }
        boolean bounded = BlockingCall.isBounded(task);
        if (bounded && !boundedHandedOver) {
            boundedHandedOver = true;
        }
        int state = (int) STATE.getVolatile(this);
        if ((state == SLEEPING || state == SLEEPING_BOUNDED && !bounded) && STATE.compareAndSet(this, state, AWAKE)) {
            wake();
        }
    }

    /**
     * Writes the wake-up eventfd. {@code waking} counts threads in here — once per sleep of the loop, not per
     * hand-over — so that the loop, once {@code exiting}, closes the eventfd only after they are out: a write to
     * a closed fd number could land in whatever file reuses it.
     */
    private void wake() {
        waking.incrementAndGet();
        try {
            if (!exiting) {
                writeEventfd();
            }
        } finally {
            waking.decrementAndGet();
        }
    }

    private void writeEventfd() {
        long ret = LibC.write(eventfd, ONE);
        if (ret < 0 && ret != -Errno.EAGAIN) {
            LOG.log(System.Logger.Level.ERROR, "uring4j loop " + id + ": eventfd write failed: " + Errno.name((int) ret));
        }
    }

    private void checkAccepting() {
        if (closing) {
            throw new RejectedExecutionException("uring4j runtime is closed: no new requests are accepted");
        }
    }

    /**
     * Submits a control request: one that must reach the kernel even while every ordinary slot is in flight (a
     * close's cancellation). It may take the slots the table keeps for such requests.
     */
    void submitControl(Op op, CompletionHandler handler) {
        checkAccepting();
        if (inLoop()) {
            if (!issue(op, handler, true)) {
                deferredControl.add(() -> submitControl(op, handler));
            }
        } else {
            handOver(() -> submitControl(op, handler));
        }
    }

    /** Loop thread: submits now, or queues the request until a slot frees. */
    private void submitNow(Op op, CompletionHandler handler) {
        if (!issue(op, handler, false)) {
            defer((Runnable) () -> submitNow(op, handler));
        }
    }

    private void submitSelfNow(SelfSubmitting request) {
        if (request.withdrawn()) {      // its cancel may still be queued behind a reap that freed a slot
            request.complete(-Errno.ECANCELED, 0);
            flushWakes();
            return;
        }
        if (!issue(request, request, false)) {
            defer(request);
        }
    }

    /**
     * Loop thread: binds a slot to the op and writes its SQE; false (nothing done) when no slot is free. A
     * closing runtime fails the handler instead.
     */
    private boolean issue(Op op, CompletionHandler handler, boolean control) {
        if (closing) {
            handler.failed(new RejectedExecutionException("uring4j runtime is closed: request not submitted"));
            return true;
        }
        RequestTable.Request r = control ? table.acquireControl(handler, op) : table.acquire(handler, op);
        if (r == null) {
            tableFull();
            return false;
        }
        Sqe sqe = nextSqe();
        sqe.userData(r.userData());
        try {
            op.prepare(sqe, r.scratch);
            if (handler instanceof BlockingCall b && b.bounded) {
                boundedInFlight++;
            }
        } catch (RuntimeException e) {
            sqe.prepNop().userData(INTERNAL_CANCEL);   // the slot is taken: turn it into a harmless NOP
            table.release(r);
            handler.failed(e);
            return true;
        }
        r.opcode = sqe.opcode();
        stats.submitted++;
        return true;
    }

    /** An SQE for an internal request; flushes the SQ to the kernel when it is full. */
    private Sqe prepareInternal() {
        return nextSqe();
    }

    private Sqe nextSqe() {
        Sqe sqe = ring.sq().next();
        while (sqe == null) {
            flushSq();
            sqe = ring.sq().next();
        }
        return sqe;
    }

    /** The SQ is full mid-iteration: hand what is prepared to the kernel now. */
    private void flushSq() {
        stats.sqFull++;
        RuntimeEvents.sqFull(id);
        try {
            ring.submit();
        } catch (ErrnoException e) {
            if (!underPressure(e)) {
                throw new IllegalStateException("uring4j loop " + id + ": submit failed while the SQ was full", e);
            }
            LockSupport.parkNanos(PRESSURE_PAUSE_NANOS);     // the caller finds the SQ still full and tries again
        }
    }

    /**
     * io_uring_enter's "not now": EAGAIN (no memory for a request), EBUSY (overflowed CQEs could not be flushed) or
     * ENOMEM. Nothing was submitted; the SQEs wait in the SQ, and the kernel asks for completions to be reaped and
     * the call repeated — a loop that died here would strand every request in flight.
     */
    private static boolean underPressure(ErrnoException e) {
        return e.errno() == Errno.EAGAIN || e.errno() == Errno.EBUSY || e.errno() == Errno.ENOMEM;
    }

    // ---- the loop ----------------------------------------------------------------------------------------

    private void run() {
        try {
            ring = RingFlags.create(config.engine(), config.entries(), config.cqEntries());
            arena = new TrackedArena();
            table = new RequestTable(config.maxInFlight(), arena);
            eventfd = LibC.eventfd(0, LibC.EFD_CLOEXEC | LibC.EFD_NONBLOCK);
            if (eventfd < 0) {
                throw new ErrnoException("eventfd", eventfd);
            }
            eventfdValue = arena.allocate(8, 8);
            registerRingFd();
            batchWait = config.batchCompletions() > 1 && ring.hasFeature(Features.MIN_TIMEOUT);
            batchThreshold = Math.max(4, config.batchCompletions() / 4);
            if (config.fixedBuffers() != null) {
                ring.register().buffers(config.fixedBuffers().slab());
            }
            if (config.directDescriptors() > 0) {
                ring.register().filesSparse(config.directDescriptors());
            }
        } catch (Throwable t) {
            startFailure = t;
            cleanUp();
            started.countDown();
            stopped.countDown();
            return;
        }
        started.countDown();
        try {
            loop();
        } catch (Throwable t) {
            closeFailure = "uring4j loop " + id + " died: " + t;
            LOG.log(System.Logger.Level.ERROR, closeFailure, t);
            closing = true;
        } finally {
            drainLateHandOvers();
            failUndelivered();
            cleanUp();
            stopped.countDown();
        }
    }

    /** Refuses further hand-overs, waits out threads still writing the eventfd, and fails what was queued. */
    private void drainLateHandOvers() {
        exiting = true;
        while (waking.get() != 0) {
            Thread.onSpinWait();
        }
        for (Object r; (r = tasks.poll()) != null; ) {
            try {
                runTask(r);     // submissions fail their handlers (closing is set); cancels find nothing
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.DEBUG, "uring4j loop " + id + ": late task failed", t);
            }
        }
    }

    private void loop() throws ErrnoException {
        final CompletionQueue cq = ring.cq();
        long closeDeadline = 0;
        while (true) {
            runTasks();
            retryDeferred();
            if (!wakeupArmed && !closing) {
                armWakeup();
            }
            if (closing) {
                if (!cancelIssued) {
                    closeDeadline = System.nanoTime() + config.closeTimeoutNanos();
                    cancelEverything();
                }
                if (table.inFlight() == 0 && !wakeupArmed) {
                    return;
                }
                if (System.nanoTime() - closeDeadline > 0) {
                    closeFailure = "uring4j loop " + id + ": " + table.inFlight()
                            + " request(s) did not complete within the close timeout; the ring is left mapped";
                    return;
                }
            }
            boolean block = tasks.isEmpty() && cq.ready() == 0;
            if (block && config.spinNanos() > 0 && ring.sq().ready() == 0) {
                block = spin(cq);       // only with nothing to submit: spinning must never delay a submission
            }
            boolean bounded = boundedInFlight > 0 && boundedHandedOver;
            if (block) {
                boundedHandedOver = false;
                STATE.setVolatile(this, bounded ? SLEEPING_BOUNDED : SLEEPING);
                if (!tasks.isEmpty() || closing) {        // re-check after announcing: a hand-over may have raced
                    STATE.setVolatile(this, AWAKE);
                    block = false;
                }
            }
            stats.enters++;
            try {
                if (block) {
                    if (closing) {
                        ring.submitAndWait(1, 10_000_000L);
                    } else if (bounded) {
                        ring.submitAndWait(1, RIDE_ALONG_NANOS);
                    } else if (batchWait && lastReaped >= batchThreshold) {
                        stats.batchWaits++;
                        ring.submitAndWaitMinTimeout(config.batchCompletions(), config.batchWaitNanos(), -1);
                    } else {
                        ring.submitAndWait(1);
                    }
                } else {
                    ring.submitAndGetEvents();
                }
            } catch (ErrnoException e) {
                if (!underPressure(e)) {
                    throw e;
                }
                if (cq.ready() == 0) {
                    LockSupport.parkNanos(PRESSURE_PAUSE_NANOS);
                }
            }
            STATE.setVolatile(this, AWAKE);
            if ((ring.sq().kernelFlags() & SqRingFlags.CQ_OVERFLOW) != 0) {
                stats.cqOverflow++;
                RuntimeEvents.cqOverflow(id, table.inFlight());
            }
            lastReaped = cq.drain(dispatcher);
            stats.reaped += lastReaped;
            flushWakes();
            retryDeferred();
        }
    }

    /**
     * Submissions that waited for a slot, in order, while slots are free (one that still finds none goes back to
     * the end). Only a completion or a failed preparation frees a slot, so a loop with nothing else to do sleeps
     * while they wait: a full table is no reason to spin.
     */
    private void retryDeferred() {
        for (int n = deferredControl.size(); n > 0 && table.anyFree(); n--) {
            deferredControl.poll().run();
        }
        if (deferred.isEmpty()) {
            if (slotWaiters) {
                slotWaiters = false;        // a cancel took the last one out
            }
            return;
        }
        for (int n = deferred.size(); n > 0 && table.hasRoom(1); n--) {
            runTask(deferred.poll());
        }
        slotWaiters = !deferred.isEmpty();
    }

    /** Counts a submission that found every slot in flight, and says so once per loop. */
    private void tableFull() {
        if (stats.tableFull++ == 0) {
            warn("all " + table.size() + " request slots are in flight; submissions wait for one (raise"
                    + " UringBuilder.maxInFlight if this is the steady state)", null);
        }
    }

        /**
     * Loop thread: queues a submission that found no slot. A close looks for the waiters on its fd only if there
     * are any ({@link #slotWaiters}); one that looked just before this submission came is caught here instead —
     * the close sets its guard closing and then reads the flag, this sets the flag and then reads the guard.
     */
    private void defer(Object submission) {
        deferred.add(submission);
        slotWaiters = true;
        FdGuard guard = submission instanceof SelfSubmitting request ? request.guard()
                : submission instanceof Chain.ChainFuture chain ? chain.guard : null;
        if (guard != null && guard.isClosing()) {
            deferred.removeLast();
            refuseIfOn(submission, guard);
        }
    }

    /**
     * Any thread: fails the blocking calls on {@code guard}'s fd that still wait for a slot, with
     * {@link java.nio.channels.ClosedChannelException} — as they would be once prepared, but now: a close wakes
     * the threads blocked on the fd, whatever else holds the slots.
     */
    void refuseSlotWaiters(FdGuard guard) {
        if (!slotWaiters) {
            return;
        }
        if (!inLoop()) {
            try {
                handOver(() -> refuseSlotWaiters(guard));
            } catch (RejectedExecutionException closing) {
                // the runtime is closing and fails everything itself
            }
            return;
        }
        if (deferred.removeIf(task -> refuseIfOn(task, guard))) {
            slotWaiters = !deferred.isEmpty();
        }
    }

    /** A waiting request or chain on {@code closed}'s fd fails with ClosedChannelException; true if it was one. */
    private static boolean refuseIfOn(Object task, FdGuard closed) {
        if (task instanceof SelfSubmitting request && request.guard() == closed) {
            request.failed(new ClosedChannelException());
            return true;
        }
        if (task instanceof Chain.ChainFuture chain && chain.guard == closed) {
            chain.completeExceptionally(new ClosedChannelException());
            return true;
        }
        return false;
    }

    /**
     * Busy-waits up to the configured spin for work; true if the loop should still block. Under DEFER_TASKRUN
     * a completion is invisible in the CQ until the loop enters the kernel, so the spin also watches the
     * IORING_SQ_TASKRUN flag (TASKRUN_FLAG), which the kernel raises as soon as completion work is pending.
     */
    private boolean spin(CompletionQueue cq) {
        long end = System.nanoTime() + config.spinNanos();
        do {
            if (!tasks.isEmpty() || cq.ready() > 0 || (ring.sq().kernelFlags() & SqRingFlags.TASKRUN) != 0) {
                return false;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - end < 0);
        return true;
    }

    /** Loop thread: a blocking call whose virtual waiter is woken with the rest of the reaped batch. */
    void wakeLater(BlockingCall call) {
        if (wakeHead == null) {
            wakeHead = call;
        } else {
            wakeTail.nextWake = call;
        }
        wakeTail = call;
    }

    /** One foreign unpark per batch: the first waiter unparks the others from its carrier (a local push). */
    private void flushWakes() {
        BlockingCall head = wakeHead;
        if (head != null) {
            wakeHead = wakeTail = null;
            BlockingCall rest = head.nextWake;
            head.nextWake = null;
            head.wakeBatch(rest);
        }
    }

    private void runTasks() {
        Object task;
        int budget = table.size();
        while (budget-- > 0 && (task = tasks.poll()) != null) {
            try {
                runTask(task);
            } catch (Throwable t) {
                stats.handlerFailures++;
                warn("task failed", t);
            }
        }
    }

    /**
     * Logs a handler's or task's failure, never throwing: the loop thread must outlive both, and a logger can
     * fail too — out of descriptors it cannot load its time-zone data or a class.
     */
    private void warn(String what, Throwable t) {
        try {
            LOG.log(System.Logger.Level.WARNING, "uring4j loop " + id + ": " + what, t);
        } catch (Throwable unloggable) {
            // counted in handlerFailures; nothing else can be done
        }
    }

    private void runTask(Object task) {
        switch (task) {
            case SelfSubmitting request -> submitSelfNow(request);
            case Chain.ChainFuture chain -> submitChainNow(chain);
            default -> ((Runnable) task).run();
        }
    }

    /** Enters through the registered ring index (skips the fd lookup); optional: kernels before 5.18 lack it. */
    private void registerRingFd() {
        try {
            ring.register().ringFd();
        } catch (ErrnoException e) {
            LOG.log(System.Logger.Level.DEBUG, "uring4j loop " + id + ": ring fd not registered: " + e.getMessage());
        }
    }

    private void armWakeup() {
        prepareInternal().prepRead(eventfd, eventfdValue, 0).userData(WAKEUP);
        wakeupArmed = true;
    }

    private void cancelEverything() {
        cancelIssued = true;
        if (table.inFlight() > 0) {
            RuntimeEvents.closeWithWork(id, table.inFlight());
        }
        prepareInternal().prepCancel(0, OpFlags.Cancel.ANY | OpFlags.Cancel.ALL).userData(INTERNAL_CANCEL);
        for (Runnable r; (r = deferredControl.poll()) != null; ) {
            r.run();          // fails its handler: closing is set
        }
        for (Object r; (r = deferred.poll()) != null; ) {
            runTask(r);       // each fails its handler: closing is set
        }
        for (Object r; (r = tasks.poll()) != null; ) {
            runTask(r);
        }
    }

    private void dispatch(Cqe cqe) {
        long userData = cqe.userData();
        if (userData < 0) {
            if (userData == WAKEUP) {
                wakeupArmed = false;
            }
            return;
        }
        RequestTable.Request r = table.lookup(userData);
        if (r == null) {
            stats.stale++;
            return;
        }
        int result = cqe.res();
        int flags = cqe.flags();
        CompletionHandler handler = r.handler;
        if ((flags & CqeFlags.F_MORE) == 0) {
            table.release(r);
            if (handler instanceof BlockingCall b && b.bounded) {
                boundedInFlight--;
            }
        }
        stats.completed++;
        try {
            handler.complete(result, flags);
        } catch (Throwable t) {
            stats.handlerFailures++;
            warn("completion handler failed", t);
        }
    }

    /** After an abandoned close: requests that never completed learn it (their memory stays mapped). */
    private void failUndelivered() {
        if (table == null) {
            return;
        }
        table.forEachInFlight(r -> {
            CompletionHandler h = r.handler;
            try {
                h.failed(new IllegalStateException(closeFailure != null ? closeFailure
                        : "uring4j runtime closed before the request completed"));
            } catch (Throwable ignored) {
                // a handler's failure must not stop the others from being told
            }
        });
    }

    private void cleanUp() {
        boolean leak = closeFailure != null && table != null && table.inFlight() > 0;
        if (ring != null && !leak) {
            ring.close();
        }
        if (eventfd >= 0 && !leak) {
            LibC.close(eventfd);
        }
        if (arena != null && !leak) {
            arena.close();
        }
    }

    // ---- close and facts ---------------------------------------------------------------------------------

    /** Starts closing: refuses new work and cancels what is in flight. */
    void close() {
        if (closing) {
            return;
        }
        closing = true;
        if (eventfd >= 0 && Thread.currentThread() != thread) {
            STATE.setVolatile(this, AWAKE);
            wake();
        }
    }

    /** Waits for the loop thread to finish; returns a description of what went wrong, or null. */
    String awaitTermination(long timeoutNanos) throws InterruptedException {
        if (!stopped.await(timeoutNanos, java.util.concurrent.TimeUnit.NANOSECONDS)) {
            return "uring4j loop " + id + " did not stop";
        }
        return closeFailure;
    }

    public int id() {
        return id;
    }

    public Uring runtime() {
        return runtime;
    }

    /** The loop's ring (for the loop thread only: {@code io_uring} rings here are SINGLE_ISSUER). */
    public IoUring ring() {
        return ring;
    }

    /** A snapshot of this loop's counters (values written by the loop thread, read without ordering). */
    public LoopStats stats() {
        RequestTable t = table;
        IoUring r = ring;
        return stats.snapshot(t == null ? 0 : t.inFlight(), r == null || !r.isOpen() ? 0 : r.cq().overflow());
    }

    Thread thread() {
        return thread;
    }

    @Override
    public String toString() {
        return "EventLoop[" + id + (closing ? " closing" : "") + "]";
    }
}
