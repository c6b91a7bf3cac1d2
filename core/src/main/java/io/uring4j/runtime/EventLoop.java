package io.uring4j.runtime;

import io.uring4j.ring.CompletionQueue;
import io.uring4j.ring.IoUring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.Logs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * One platform thread that owns one ring: the only thread that prepares SQEs, enters the kernel and reaps.
 *
 * <h2>An iteration</h2>
 * Run the tasks other threads handed over (each prepares its SQEs), then one {@code io_uring_enter} that submits
 * and — when there is nothing else to do — waits for at least one CQE, then reap the whole CQ batch and
 * dispatch each CQE to its request's {@link CompletionHandler}. How the loop waits is its {@link SleepPolicy}'s.
 *
 * <h2>Hand-over</h2>
 * On the loop thread, {@link #submit(Op, CompletionHandler)} writes the SQE directly: no atomic, no lock. Other
 * threads enqueue a task on an MPSC queue and wake the loop through its {@link Waker}. A request or chain that is
 * its own task ({@link Submission}) is queued as it is. Submissions that find every slot in flight wait in
 * {@link SlotWaiters}; blocking calls completed in one reaped batch are woken together ({@link WakeBatch}).
 *
 * <h2>Lifetime</h2>
 * A request holds its {@link Op} (and so the memory it points at) from submit until its final CQE. Closing
 * cancels everything in flight and keeps reaping until every request has completed; only then are the ring
 * and the request scratch memory released.
 */
public final class EventLoop implements Executor {
    private static final VarHandle WAKER;

    static {
        try {
            WAKER = MethodHandles.lookup().findVarHandle(EventLoop.class, "waker", Waker.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Uring runtime;
    private final int id;
    private final UringBuilder config;
    private final Thread thread;
    /** Runnables, and {@link Submission}s handed over as they are (no wrapper to allocate). */
    private final ConcurrentLinkedQueue<Object> tasks = new ConcurrentLinkedQueue<>();
    private final SlotWaiters slotWaiters = new SlotWaiters();
    /** Runs a slot waiter or a queued task; what it throws is contained, as in {@link #runTasks}. */
    private final Consumer<Object> runTask = this::runTaskContained;
    private final WakeBatch wakes = new WakeBatch();
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final LoopCounters stats = new LoopCounters();

    private volatile boolean closing;
    private volatile Throwable startFailure;
    private volatile String closeFailure;

    // Loop-thread state.
    private IoUring ring;
    private Arena arena;
    private RequestTable table;
    /**
     * Written once by the loop thread, through {@link #WAKER} with volatile semantics, and read plainly everywhere
     * but {@link #close}: a close before {@link #awaitStarted} returned (an interrupted build) has no other edge to
     * the loop's setup. Its write and close's read pair with {@code closing} as a Dekker pair: either the loop reads
     * {@code closing} set before it sleeps, or close sees the waker and wakes it. A plain read could be taken
     * before close's write of {@code closing} (a store then a load: the one reordering x86 allows, and AArch64's
     * {@code stlr} then {@code ldr}) and see null while the loop, not yet seeing the close, goes to sleep untimed.
     */
    private Waker waker;
    private SleepPolicy sleep;
    private LoopRing io;
    private boolean cancelIssued;

    /** Starts the loop's thread, which sets its ring up; {@link #awaitStarted} waits for that. */
    EventLoop(Uring runtime, int id, UringBuilder config) {
        this.runtime = runtime;
        this.id = id;
        this.config = config;
        this.thread = Thread.ofPlatform().name("uring4j-loop-" + id).daemon(true).unstarted(this::run);
        thread.start();
    }

    /** Waits until the loop runs; throws what its setup failed with (the loop has then stopped). */
    void awaitStarted() throws ErrnoException {
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
     * Loop thread: submits a standing request — a multishot that stays armed for as long as its owner lives, as a
     * connection's receive or a listener's accept. Descriptors bound these, not {@link UringBuilder#maxInFlight}:
     * a standing request never waits for a slot and does not take one that ordinary requests need, so idle
     * connections cannot starve the sends of busy ones.
     *
     * @throws RejectedExecutionException if the runtime is closed
     * @throws IllegalStateException off the loop thread
     */
    public void submitStanding(Op op, CompletionHandler handler) {
        submitStanding(op, handler, null);
    }

    /**
     * {@link #submitStanding(Op, CompletionHandler)} of a request on {@code guard}'s fd, a user of it from its
     * preparation to its final CQE: a close cancels it and waits for that. If the guard is closing, the handler
     * fails with the {@link java.nio.channels.ClosedChannelException} (wrapped) and nothing reaches the kernel.
     */
    public void submitStanding(Op op, CompletionHandler handler, FdGuard guard) {
        checkAccepting();
        if (!inLoop()) {
            throw new IllegalStateException("submitStanding is for the loop thread (" + thread + ")");
        }
        if (!io.issue(op, handler, guard, false, RequestTable.Kind.STANDING)) {
            handler.failed(new IllegalStateException("uring4j loop " + id + ": " + RequestTable.MAX_SLOTS
                    + " requests in flight: no slot left for a standing request"));
        }
    }

    /**
     * Submits {@code op} and returns its result as a future: the CQE result, or an {@link ErrnoException}
     * naming the opcode and errno. For single-shot requests: a multishot one fails the future with
     * {@link IllegalArgumentException} and never reaches the kernel.
     */
    public CompletableFuture<Integer> submitAsync(Op op) {
        OpFuture future = new OpFuture(this, op, null);
        submit(future);
        return future;
    }

    /**
     * {@link #submitAsync(Op)} of a request on {@code guard}'s fd: it becomes a user of the fd when prepared and
     * stops being one at its final CQE; closed meanwhile, it fails with {@link java.nio.channels.ClosedChannelException}
     * without reaching the kernel, and a close never waits for it while it waits for a slot.
     */
    public CompletableFuture<Integer> submitAsync(Op op, FdGuard guard) {
        OpFuture future = new OpFuture(this, op, Objects.requireNonNull(guard, "guard"));
        submit(future);
        return future;
    }

    /** {@link #submit(Op, CompletionHandler)} for a request or chain that is its own task: no object around it. */
    void submit(Submission submission) {
        checkAccepting();
        if (inLoop()) {
            submission.submitOn(this);
        } else {
            enqueue(submission, submission.bounded());
        }
    }

    /**
     * Any thread: cancels {@code request}, submitted earlier with {@link #submit(Submission)}. On the loop this runs
     * after the submission (one FIFO queue), so the request is in flight — cancelled in the kernel, and it completes
     * through its handler as usual — or still waiting for a slot: then it never reaches the kernel and completes
     * at once with -ECANCELED. Never waits for a slot itself.
     */
    void cancel(SelfHandledRequest request) {
        if (!inLoop()) {
            try {
                handOver(() -> cancel(request));
            } catch (RejectedExecutionException closing) {
                // the runtime is closing and cancels everything itself
            }
            return;
        }
        if (slotWaiters.remove(request)) {
            request.complete(-Errno.ECANCELED, 0);
            wakes.flush();
            return;
        }
        long userData = request.userData();
        if (userData != 0 && table.lookup(userData) != null) {
            io.cancel(userData);
        }
    }

    /**
     * Submits {@code op} and parks the calling thread (virtual or platform) until it completes. Returns the CQE
     * result; a negative result is thrown as {@link ErrnoException}. An interrupt cancels the request, waits for
     * its completion, and throws {@link java.io.InterruptedIOException}. For single-shot requests: a multishot one
     * (an accept, recv or poll that stays armed, a periodic timer) has a result per CQE, which one return cannot
     * hold, and is refused with {@link IllegalArgumentException} before it reaches the kernel; submit it with a
     * {@link CompletionHandler}.
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

    /** Runs {@code task} on the loop thread. */
    @Override
    public void execute(Runnable task) {
        checkAccepting();
        handOver(task);
    }

    /** Any thread: runs {@code task} on the loop thread, now if this is it; not at all once the loop is closing. */
    void runOnLoop(Runnable task) {
        if (inLoop()) {
            task.run();
        } else {
            try {
                handOver(task);
            } catch (RejectedExecutionException closing) {
                // closing cancels and fails everything itself
            }
        }
    }

    /**
     * Cancels the request {@code userData} (as seen by an {@link Op} in its SQE). The request still completes
     * through its handler, usually with -ECANCELED; the cancellation's own outcome is not reported.
     */
    public void cancel(long userData) {
        if (inLoop()) {
            io.cancel(userData);
        } else {
            handOver(() -> cancel(userData));
        }
    }

    /**
     * Any thread: queues {@code task} for the loop. No counter on this path: the task is queued first and
     * {@link Waker#stopped} read after, while the loop stops the waker first and drains the queue after — so either
     * that final drain finds the task, or the caller sees the loop stopped and takes the task back. The owner
     * thread never comes here.
     */
    private void handOver(Runnable task) {
        enqueue(task, false);
    }

    /** {@code bounded}: the task is a bounded call, which need not wake a loop sure to wake for a CQE. */
    private void enqueue(Object task, boolean bounded) {
        tasks.offer(task);
        if (waker.stopped()) {
            if (tasks.remove(task)) {
                throw new RejectedExecutionException("uring4j runtime is closed: its event loop has stopped");
            }
            return;         // the final drain got it first: it ran and failed its handler
        }
        waker.handedOver(bounded);
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
            submitControlNow(op, handler);
        } else {
            handOver(() -> submitControlNow(op, handler));
        }
    }

    /**
     * Loop thread: issues a control request, or queues it for the next free slot. Accepted already: a close since
     * then fails its handler (in {@link LoopRing#issue}) rather than throwing, so that it still learns its end.
     */
    private void submitControlNow(Op op, CompletionHandler handler) {
        if (!io.issue(op, handler, null, false, RequestTable.Kind.CONTROL)) {
            slotWaiters.addControl(() -> submitControlNow(op, handler));
        }
    }

    /** Loop thread: submits now, or queues the request until a slot frees. */
    private void submitNow(Op op, CompletionHandler handler) {
        if (!io.issue(op, handler, null, false, RequestTable.Kind.ORDINARY)) {
            slotWaiters.add(() -> submitNow(op, handler));
        }
    }

    /** Loop thread: {@link #submitNow} of a request that is its own op and handler. */
    void submitSelfNow(SelfHandledRequest request) {
        if (request.withdrawn()) {      // its cancel may still be queued behind a reap that freed a slot
            request.complete(-Errno.ECANCELED, 0);
            wakes.flush();
            return;
        }
        if (!io.issue(request, request, request.guard(), request.bounded(), RequestTable.Kind.ORDINARY)) {
            slotWaiters.add(request);
        }
    }

    // ---- for chains and LoopRing (loop thread) -----------------------------------------------------------

    boolean closing() {
        return closing;
    }

    /** The loop's ring and request slots. */
    LoopRing io() {
        return io;
    }

    /** Whether {@code n} slots are free; if not, {@code waiting} waits for them. */
    boolean hasSlotsOrDefer(int n, Submission waiting) {
        if (table.hasRoom(n)) {
            return true;
        }
        io.tableFull();
        slotWaiters.add(waiting);
        return false;
    }

    /** Takes {@code submission} back if it still waits for a slot; true if it did. */
    boolean takeBack(Submission submission) {
        return slotWaiters.remove(submission);
    }

    /**
     * Any thread: fails the blocking calls on {@code guard}'s fd that still wait for a slot, with
     * {@link java.nio.channels.ClosedChannelException} — as they would be once prepared, but now: a close wakes
     * the threads blocked on the fd, whatever else holds the slots.
     */
    void refuseSlotWaiters(FdGuard guard) {
        if (!slotWaiters.any()) {
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
        slotWaiters.refuse(guard);
    }

    // ---- the loop ----------------------------------------------------------------------------------------

    private void run() {
        try {
            ring = RingSetup.create(config.engine(), config.entries(), config.cqEntries());
            ring.iowait(config.iowait());
            arena = new TrackedArena();
            table = new RequestTable(config.maxInFlight(), arena);
            WAKER.setVolatile(this, new Waker(id, arena));
            registerRingFd();
            boundIoWorkers();
            sleep = new SleepPolicy(config, ring, stats);
            io = new LoopRing(this, ring, table, waker, sleep, stats);
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
        VmExit.running(this);
        try {
            loop();
        } catch (Throwable t) {
            closeFailure = "uring4j loop " + id + " died: " + t;
            Logs.runtime().log(System.Logger.Level.ERROR, closeFailure, t);
            closing = true;
        } finally {
            VmExit.stopped(this);
            drainLateHandOvers();
            failUndelivered();
            cleanUp();
            stopped.countDown();
        }
    }

    /** The process is ending: the loop wakes and bounds its sleeps from then on ({@link VmExit}). */
    void wakeForExit() {
        waker.wakeNow();
    }

    /**
     * Refuses further hand-overs, waits out threads still writing the eventfd, and fails what was queued — slot
     * waiters too: a close drained them already, but a loop that died did not.
     */
    private void drainLateHandOvers() {
        waker.stop();
        for (Object r; (r = tasks.poll()) != null; ) {
            runLateTask(r);
        }
        slotWaiters.drain(this::runLateTask);
    }

    private void runLateTask(Object task) {
        try {
            runTask(task);      // submissions fail their handlers (closing is set); cancels find nothing
        } catch (Throwable t) {
            Logs.runtime().log(System.Logger.Level.DEBUG, "uring4j loop " + id + ": late task failed", t);
        }
    }

    private void loop() throws ErrnoException {
        final CompletionQueue cq = ring.cq();
        long closeDeadline = 0;
        while (true) {
            boolean closingSeen = closing;
            runTasks();
            slotWaiters.retry(table, runTask);
            if (!waker.armed() && !closing) {
                waker.arm(io.nextSqe());
            }
            if (closing) {
                if (!cancelIssued) {
                    closeDeadline = System.nanoTime() + config.closeTimeoutNanos();
                    cancelEverything();
                }
                if (table.inFlight() == 0 && !waker.armed()) {
                    return;
                }
                if (System.nanoTime() - closeDeadline > 0) {
                    closeFailure = "uring4j loop " + id + ": " + table.inFlight()
                            + " request(s) did not complete within the close timeout; the ring is left mapped";
                    return;
                }
            }
            boolean block = tasks.isEmpty() && cq.ready() == 0;
            if (block) {
                block = sleep.stillIdleAfterSpin(tasks);
            }
            boolean bounded = sleep.boundedInFlight() && waker.boundedHandedOver();
            boolean park = block && VmExit.ending() && table.inFlight() == 0;     // nothing to wait for in the kernel
            if (block) {
                if (park) {
                    waker.parking();
                } else {
                    waker.sleeping(bounded);
                }
                // Re-check after announcing: a hand-over or the close may have raced. A close already seen has its
                // cancels out, and the loop waits for their CQEs in timed sleeps (SleepPolicy), not in a spin.
                if (!tasks.isEmpty() || closing != closingSeen) {
                    waker.awake();
                    block = false;
                }
            }
            stats.enters++;
            try {
                if (block && park) {
                    ring.submit();
                    LockSupport.parkNanos(VmExit.SLEEP_NANOS);
                } else if (block) {
                    sleep.sleep(closing, bounded);
                } else {
                    ring.submitAndGetEvents();
                }
            } catch (ErrnoException e) {
                ring.rethrowUnlessUnderPressure(e);
            }
            waker.awake();
            sleep.reaped(io.reap());
            wakes.flush();
            slotWaiters.retry(table, runTask);
        }
    }

    /** Loop thread: a blocking call whose virtual waiter is woken with the rest of the reaped batch. */
    void wakeLater(BlockingCall call) {
        wakes.add(call);
    }

    private void runTasks() {
        Object task;
        int budget = table.size();
        while (budget-- > 0 && (task = tasks.poll()) != null) {
            runTaskContained(task);
        }
    }

    /**
     * Runs a task, logging what it throws: a handler's {@code failed} rethrows by default, and one thrown out of a
     * slot retry or a close would end the loop — stranding the waiters behind it and the requests in flight.
     */
    private void runTaskContained(Object task) {
        try {
            runTask(task);
        } catch (Throwable t) {
            stats.handlerFailures++;
            io.warn("task failed", t);
        }
    }

    private void runTask(Object task) {
        if (task instanceof Submission submission) {
            submission.submitOn(this);
        } else {
            ((Runnable) task).run();
        }
    }

    /** Enters through the registered ring index (skips the fd lookup); optional: kernels before 5.18 lack it. */
    private void registerRingFd() {
        try {
            ring.register().ringFd();
        } catch (ErrnoException e) {
            Logs.runtime().log(System.Logger.Level.DEBUG,
                    "uring4j loop " + id + ": ring fd not registered: " + e.getMessage());
        }
    }

    /** io-wq's bound for regular-file work ({@link UringBuilder#boundedWorkers}); optional: 5.15 brought it. */
    private void boundIoWorkers() {
        try {
            ring.register().iowqMaxWorkers(config.boundedWorkers(), 0);
        } catch (ErrnoException e) {
            Logs.runtime().log(System.Logger.Level.DEBUG,
                    "uring4j loop " + id + ": io-wq limit not set: " + e.getMessage());
        }
    }

    private void cancelEverything() {
        cancelIssued = true;
        io.cancelAll();
        slotWaiters.drain(runTask);
        for (Object r; (r = tasks.poll()) != null; ) {
            runTaskContained(r);
        }
    }

    /** After an abandoned close: requests that never completed learn it (their memory stays mapped). */
    private void failUndelivered() {
        if (table == null) {
            return;
        }
        table.forEachInFlight(r -> {
            CompletionHandler h = r.handler;
            r.releaseGuard();
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
        if (waker != null && !leak) {
            waker.closeFd();
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
        Waker w = (Waker) WAKER.getVolatile(this);
        if (w != null && Thread.currentThread() != thread) {
            w.wakeNow();
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

    /**
     * Loop thread: how many more ordinary requests may go in flight before a submission waits for a slot — what
     * is left of {@link UringBuilder#maxInFlight}.
     */
    public int freeSlots() {
        return table.freeOrdinary();
    }

    /** The most ordinary requests in flight at once: {@link UringBuilder#maxInFlight}. */
    public int maxInFlight() {
        return config.maxInFlight();
    }

    /** A snapshot of this loop's counters (values written by the loop thread, read without ordering). */
    public LoopStats stats() {
        RequestTable t = table;
        IoUring r = ring;
        boolean open = r != null && r.isOpen();
        return stats.snapshot(t == null ? 0 : t.inFlight(), open ? r.cqEntries() : 0, open ? r.cq().overflow() : 0);
    }

    Thread thread() {
        return thread;
    }

    @Override
    public String toString() {
        return "EventLoop[" + id + (closing ? " closing" : "") + "]";
    }
}
