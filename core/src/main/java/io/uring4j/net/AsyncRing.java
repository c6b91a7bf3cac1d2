package io.uring4j.net;

import io.uring4j.ring.CompletionQueue;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Sqe;
import io.uring4j.ring.Timespec;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Logs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An asynchronous channel group's own ring, driven by the group's own threads, as the JDK's group threads poll:
 * one task on the group's executor (the poller) submits, waits in {@code io_uring_enter} and runs the handlers of
 * what it reaps itself — no hand-off to another thread per completion. A handler that starts the next operation
 * queues its SQE, and the poller's next enter submits it with everything else the batch queued.
 *
 * <p>A handler that blocks must not stall the other channels: {@link AsyncWatchdog} notices a poller that has been
 * in one handler for a while and deposes it — another task on the executor takes over the ring, and the blocked
 * thread leaves when its handler returns (what it reaped and has not run yet goes to its successor). A poller
 * about to block on one of the group's own futures steps down at once ({@link #beforeBlocking}).
 *
 * <p>Threads: the SQ and the request table are touched under {@link #lock}, by the poller only; other threads —
 * and a deposed poller — queue their requests ({@link #incoming}) and write the eventfd if the poller sleeps. So
 * every request is submitted by a polling thread, whose next entry into the kernel runs its task work
 * (COOP_TASKRUN: a completion never interrupts it in user space).
 *
 * <p>Memory: a request is referenced by its slot — and so is its op, with the memory the kernel may write — until
 * its final CQE (both CQEs with a link timeout), whatever happens to its channel meanwhile.
 */
final class AsyncRing {
    private static final int ENTRIES = 256;
    private static final int CQ_ENTRIES = 8192;
    /** user_data of the wake-up poll, and of requests whose completion is of no interest (cancels). */
    private static final long WAKE = -1L;
    private static final long IGNORED = -2L;
    private static final int TIMEOUT_BIT = 1;

    /** One operation: its op, the fd it uses (held from preparation to final CQE), and an optional timeout. */
    static final class Request {
        final Op op;
        final FdGuard guard;
        final long timeoutNanos;
        final Completion completion;
        /** Under the lock: the slot and generation while in flight, and the CQEs still to come. */
        int slot = -1;
        int generation;
        int cqesLeft;
        int result;
        boolean timedOut;
        /** Where its link timeout's timespec is written (Timespec.SIZE bytes, the op's): untouched until the final CQE. */
        final MemorySegment timespec;
        /**
         * Prepared just before the next enter rather than at once: an op that gathers what the handlers of this batch
         * write ({@link AsyncOutbox}) then sends all of it in one request.
         */
        boolean preparedLast;

        Request(Op op, FdGuard guard, long timeoutNanos, MemorySegment timespec, Completion completion) {
            this.op = op;
            this.guard = guard;
            this.timeoutNanos = timeoutNanos;
            this.timespec = timespec;
            this.completion = completion;
        }
    }

    /** What a request does with its outcome, on a polling thread, outside the lock. */
    interface Completion {
        /** {@code result}: the CQE's; {@code timedOut}: its link timeout ended it. */
        void completed(int result, boolean timedOut);
    }

    private final Executor executor;
    private final IoUring ring;
    private final CompletionQueue cq;
    private final int eventFd;
    private final MemorySegment one;
    private final MemorySegment drained;
    private final ReentrantLock lock = new ReentrantLock();
    /** Requests and control tasks from threads that are not the poller, in order. */
    private final ConcurrentLinkedQueue<Object> incoming = new ConcurrentLinkedQueue<>();
    /**
     * Reaped completions not run yet: shared, so that when a handler blocks its poller, the successor runs the rest
     * of the batch.
     */
    private final ConcurrentLinkedQueue<Request> ready = new ConcurrentLinkedQueue<>();
    /**
     * The outboxes' native memory, lent while bytes are queued; kept when given back (allocating it per batch costs
     * more than the sends save), and freed with the ring, once no send can read it.
     */
    private final SendChunks chunks = new SendChunks();

    // Under the lock.
    private Request[] slots = new Request[64];
    private int[] generations = new int[64];
    private int[] free = new int[64];
    private int freeCount;
    private int inFlight;
    private boolean wakeArmed;
    private final ArrayDeque<Request> reaped = new ArrayDeque<>();
    /** Requests prepared just before the next enter ({@link Request#preparedLast}). */
    private final ArrayDeque<Request> beforeEnter = new ArrayDeque<>();
    private boolean cancelledOnStop;

    /** The thread polling now; null while a successor is on its way. */
    private volatile Thread poller;
    /** The poller is (about to be) waiting in the kernel: a request queued now needs the eventfd. */
    private volatile boolean sleeping;
    private volatile boolean stopping;
    /** For {@link AsyncWatchdog}: the handlers begun so far, and the poller running one now (or null). */
    volatile long handlersBegun;
    volatile Thread inHandler;
    private boolean closed;

    AsyncRing(Executor executor, Engine engine) throws ErrnoException {
        this.executor = executor;
        int fd = LibC.eventfd(0, LibC.EFD_NONBLOCK | LibC.EFD_CLOEXEC);
        if (fd < 0) {
            throw new ErrnoException("eventfd (channel group wake-up)", fd);
        }
        try {
            // COOP_TASKRUN: a completion's task work waits for the poller's next enter instead of interrupting it
            // while it runs handlers. Not DEFER_TASKRUN: its SINGLE_ISSUER would tie the ring to one thread, and the
            // poller moves to another executor thread when one blocks.
            ring = IoUring.builder().engine(engine).entries(ENTRIES).cqEntries(CQ_ENTRIES).coopTaskrun().taskrunFlag()
                    .build();
        } catch (ErrnoException | RuntimeException e) {
            LibC.close(fd);
            throw e;
        }
        eventFd = fd;
        cq = ring.cq();
        Arena arena = Arena.ofAuto();
        one = arena.allocate(JAVA_LONG);
        one.set(JAVA_LONG, 0, 1L);
        drained = arena.allocate(JAVA_LONG);
        for (int i = slots.length - 1; i >= 0; i--) {
            free[freeCount++] = i;
        }
    }

    /** Starts the first poller on the executor; if it refuses, the ring is closed and the refusal thrown. */
    void start() {
        AsyncWatchdog.watch(this);
        try {
            executor.execute(this::poll);
        } catch (RejectedExecutionException e) {
            lock.lock();
            try {
                close();
            } finally {
                lock.unlock();
            }
            throw e;
        }
    }

    /** Whether the calling thread is the one polling: it may not wait for a completion only a poller can reap. */
    boolean onPoller() {
        return Thread.currentThread() == poller;
    }

    /** Submits {@code request}: queued for this thread's next enter on the poller, otherwise handed over. */
    void submit(Request request) {
        submitOrHand(request);
    }

    /** An outbox's chunks: lent while its bytes are queued or in flight, so an idle connection holds none. */
    SendChunks chunks() {
        return chunks;
    }

    /** Cancels {@code request} if it is in flight; it then completes as usual (-ECANCELED, or what it got). */
    void cancel(Request request) {
        submitOrHand((Runnable) () -> {
            if (request.slot >= 0) {
                sqe().prepCancel(userData(request, 0), 0).userData(IGNORED);
            }
        });
    }

    /**
     * Cancels every request on {@code guard}'s fd; {@code guard} must hold a use of the fd for it, which is
     * released when the cancel has completed.
     */
    void cancelAll(FdGuard guard) {
        Op cancel = (sqe, scratch) -> sqe.prepCancelFd(guard.fd(), OpFlags.Cancel.ALL);
        submitOrHand(new Request(cancel, null, 0, null, (result, timedOut) -> guard.release()));
    }

    private void submitOrHand(Object task) {
        if (onPoller() && lock.tryLock()) {
            try {
                if (onPoller()) {           // not deposed meanwhile
                    run(task);
                    return;
                }
            } finally {
                lock.unlock();
            }
        }
        incoming.offer(task);
        if (sleeping) {
            signal();
        }
    }

    /** Called by a thread about to block for one of this group's outcomes: if it is the poller, it steps down. */
    void beforeBlocking() {
        if (onPoller()) {
            depose(Thread.currentThread());
        }
    }

    /** Whether the group has terminated: the ring ends once every request has completed. */
    boolean stopping() {
        return stopping;
    }

    /** Sets the ring to end once every request has completed (the group has terminated). */
    void stop() {
        stopping = true;
        signal();
    }

    // ---- the poller ----------------------------------------------------------------------------------------

    private void poll() {
        Thread me = Thread.currentThread();
        lock.lock();
        try {
            if (closed || poller != null) {
                return;
            }
            poller = me;
        } finally {
            lock.unlock();
        }
        try {
            while (runReady(me)) {
                lock.lock();
                try {
                    if (poller != me) {
                        return;
                    }
                    if (stopping && inFlight == 0 && incoming.isEmpty() && reaped.isEmpty()
                            && beforeEnter.isEmpty()) {
                        close();
                        return;
                    }
                    waitAndReap();
                    ready.addAll(reaped);
                    reaped.clear();
                } finally {
                    lock.unlock();
                }
            }
        } catch (Throwable t) {
            Logs.net().log(System.Logger.Level.ERROR, "uring4j: a channel group's poller died; its channels stall", t);
        }
    }

    /** Under the lock: prepares what was handed over, submits, waits for a completion, and reaps the batch. */
    private void waitAndReap() throws ErrnoException {
        for (Object task; (task = incoming.poll()) != null; ) {
            run(task);
        }
        for (Request r; (r = beforeEnter.poll()) != null; ) {
            prepare(r);
        }
        if (stopping && !cancelledOnStop) {
            // The group has terminated: what is left are sends of closed channels' last writes. What the socket
            // takes with this enter goes; a send that would wait for a peer that does not read is cancelled.
            sqe().prepCancel(0, OpFlags.Cancel.ANY | OpFlags.Cancel.ALL).userData(IGNORED);
            cancelledOnStop = true;
        }
        if (!wakeArmed) {
            sqe().prepPollMultishot(eventFd, OpFlags.Poll.POLLIN).userData(WAKE);
            wakeArmed = true;
        }
        sleeping = true;
        try {
            if (incoming.isEmpty() && ready.isEmpty() && reaped.isEmpty() && cq.ready() == 0 && !stopping) {
                ring.submitAndWait(1);
            } else {
                ring.submitAndGetEvents();
            }
        } catch (ErrnoException e) {
            ring.rethrowUnlessUnderPressure(e);
        } finally {
            sleeping = false;
        }
        cq.drain(this::reap);
    }

    private void reap(Cqe cqe) {
        long userData = cqe.userData();
        if (userData == WAKE) {
            wakeArmed &= cqe.hasMore();
            LibC.read(eventFd, drained);
            return;
        }
        if (userData == IGNORED) {
            return;
        }
        int slot = (int) userData >>> 1;
        if (slot >= slots.length || generations[slot] != (int) (userData >>> 32) || slots[slot] == null) {
            return;         // not ours any more: cannot happen, as a slot is freed at its final CQE
        }
        Request r = slots[slot];
        if ((userData & TIMEOUT_BIT) != 0) {
            r.timedOut |= cqe.res() == -Errno.ETIME;
        } else {
            r.result = cqe.res();
        }
        if (--r.cqesLeft == 0) {
            slots[slot] = null;
            free[freeCount++] = slot;
            inFlight--;
            r.slot = -1;
            if (r.guard != null) {
                r.guard.release();
            }
            reaped.add(r);
        }
    }

    /** Runs the ready completions, outside the lock; false once deposed (what is left is the successor's). */
    private boolean runReady(Thread me) {
        for (Request r; (r = ready.poll()) != null; ) {
            complete(r, me);
            if (poller != me && deposed(me)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code me} is deposed for good: asked under the lock, which a deposition holds until the successor
     * is on its way, or the ring given back to {@code me} because the executor refused one.
     */
    private boolean deposed(Thread me) {
        lock.lock();
        try {
            return poller != me;
        } finally {
            lock.unlock();
        }
    }

    private void complete(Request r, Thread me) {
        boolean timedOut = r.timedOut && (r.result == -Errno.ECANCELED || r.result == -Errno.EINTR);
        handlersBegun++;
        inHandler = me;
        AsyncWatchdog.busy();
        try {
            r.completion.completed(r.result, timedOut);
        } catch (Throwable t) {
            Logs.net().log(System.Logger.Level.WARNING, "uring4j: an asynchronous channel's completion failed", t);
        } finally {
            if (inHandler == me) {
                inHandler = null;
            }
        }
    }

    /**
     * Another task takes over polling from {@code stuck} (the poller, in a handler that has not returned): by
     * {@link AsyncWatchdog}, or by the poller itself before it blocks. False if the lock is busy or the poller has
     * moved on meanwhile.
     */
    boolean depose(Thread stuck) {
        if (!lock.tryLock()) {
            return false;
        }
        RejectedExecutionException refused = null;
        try {
            if (poller != stuck || closed) {
                return false;
            }
            poller = null;
            try {
                executor.execute(this::poll);
            } catch (RejectedExecutionException e) {
                poller = stuck;     // before the stuck poller, back meanwhile, can see itself deposed (deposed())
                refused = e;
            }
        } finally {
            lock.unlock();
        }
        if (refused != null) {
            Logs.net().log(System.Logger.Level.WARNING, "uring4j: the channel group's executor refused a poller; its"
                    + " channels wait for the blocked handler to return", refused);
        }
        return true;
    }

    /** The thread polling now, for {@link AsyncWatchdog}. */
    Thread poller() {
        return poller;
    }

    // ---- under the lock --------------------------------------------------------------------------------------

    private void run(Object task) {
        if (task instanceof Runnable control) {
            control.run();
        } else if (((Request) task).preparedLast) {
            beforeEnter.add((Request) task);
        } else {
            prepare((Request) task);
        }
    }

    /** Writes the request's SQE (and its link timeout's), or completes it at once if its fd is closing. */
    private void prepare(Request r) {
        if (r.guard != null) {
            try {
                r.guard.acquire();
            } catch (ClosedChannelException closing) {
                r.result = -Errno.EBADF;
                reaped.add(r);          // run with this batch's completions
                return;
            }
        }
        allocate(r);
        boolean timed = r.timeoutNanos > 0;
        if (timed && ring.sq().spaceLeft() < 2) {
            submitNow();
        }
        Sqe sqe = sqe();
        r.op.prepare(sqe, MemorySegment.NULL);
        sqe.userData(userData(r, 0));
        r.cqesLeft = 1;
        r.timedOut = false;
        if (timed) {
            sqe.addFlags(SqeFlags.IO_LINK);
            Timespec.set(r.timespec, r.timeoutNanos);
            sqe().prepLinkTimeout(r.timespec, 0).userData(userData(r, TIMEOUT_BIT));
            r.cqesLeft = 2;
        }
        inFlight++;
    }

    private void allocate(Request r) {
        if (freeCount == 0) {
            int n = slots.length;
            slots = Arrays.copyOf(slots, n * 2);
            generations = Arrays.copyOf(generations, n * 2);
            free = Arrays.copyOf(free, n * 2);
            for (int i = n * 2 - 1; i >= n; i--) {
                free[freeCount++] = i;
            }
        }
        int slot = free[--freeCount];
        slots[slot] = r;
        r.slot = slot;
        r.generation = ++generations[slot];
    }

    private static long userData(Request r, int bit) {
        return ((long) r.generation << 32) | ((long) r.slot << 1) | bit;
    }

    private Sqe sqe() {
        Sqe sqe = ring.sq().next();
        if (sqe == null) {
            submitNow();
            sqe = ring.sq().next();
        }
        return sqe;
    }

    private void submitNow() {
        try {
            ring.submitPatiently();
        } catch (ErrnoException e) {
            throw new IllegalStateException(e);
        }
    }

    private void signal() {
        synchronized (one) {
            if (closed) {
                return;
            }
            long ret = LibC.write(eventFd, one);
            if (ret < 0 && ret != -Errno.EAGAIN) {  // EAGAIN: the counter is full, so the wake-up is pending anyway
                throw new IllegalStateException(new ErrnoException("write (channel group wake-up eventfd)", (int) ret));
            }
        }
    }

    /** Under the lock, nothing in flight: the ring and the eventfd go. */
    private void close() {
        AsyncWatchdog.unwatch(this);
        poller = null;
        ring.close();
        chunks.close();
        synchronized (one) {
            closed = true;
            LibC.close(eventFd);
        }
    }
}
