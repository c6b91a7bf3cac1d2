package io.uring4j.net;

import io.uring4j.ring.CompletionQueue;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.CqeHandler;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Sqe;
import io.uring4j.ring.Timespec;
import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.GeteventsArgLayout;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.runtime.NativeMemory;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A selector's ring: its own io_uring (not a runtime loop's — the selecting thread itself waits in
 * {@code io_uring_enter}), the poll requests queued for the next enter, and the eventfd that {@link #signal()}
 * writes to wake that enter from another thread. Used by the selecting thread only, except {@link #signal()}.
 *
 * <p>user_data: a key's polls carry {@code (arm << 32) | slot}; a removal (a poll's, or a receive's or send's
 * cancel) carries {@link #REMOVAL} and the user_data of the request it removes. Its result is of no interest — the
 * removed request's own final CQE says it has ended — unless the kernel could not remove it now: EALREADY (its poll
 * was being run elsewhere), when the same removal goes again with the next enter. The wake-up poll carries
 * {@link #WAKE}.
 */
final class SelectorRing implements AutoCloseable {
    static final long REMOVAL = Long.MIN_VALUE;
    private static final long WAKE = -1L;
    private static final int ENTRIES = 256;
    /** Room for a burst of readiness over many keys; a multishot poll whose CQE finds no room ends (and is re-armed). */
    private static final int CQ_ENTRIES = 8192;
    /** The receives' provided buffers: allocated with the first receive, shared by every channel of the selector. */
    static final int BUFFERS = 1024;
    static final int BUFFER_SIZE = 4096;
    private static final int BUFFER_GROUP = 0;

    private final IoUring ring;
    private RecvBuffers buffers;
    private final int eventFd;
    private final Arena arena = NativeMemory.sharedArena();
    /** The 8-byte counter written by {@link #signal()} (always 1: only read, so threads may share it). */
    private final MemorySegment one;
    /** Where the selecting thread reads the eventfd's counter to reset it. */
    private final MemorySegment drained;
    private boolean wakeArmed;
    /**
     * Whether receives are armed with a byte limit: not on the portable engine, which refuses one (as kernels
     * before 6.17 do), nor once the kernel has refused one ({@link #refusedLimit}).
     */
    private boolean receiveLimits;
    /** CQEs reaped so far: the index of the next one. Written by the selecting thread only. */
    private volatile long reaped;
    /** During {@link #reap}: the index of the next CQE, and where they go. */
    private long next;
    private Handler handler;
    private final CqeHandler dispatch = this::dispatch;
    private final CompletionQueue cq;
    private final boolean portable;
    /** io_uring_getevents_arg and its timespec, for the portable engine's waits. */
    private final MemorySegment waitArg;
    /** Guarded by {@code this}: the eventfd is closed, so {@link #signal()} must not write to its number. */
    private boolean closed;

    SelectorRing(Engine engine) throws IOException {
        int fd = LibC.eventfd(0, LibC.EFD_NONBLOCK | LibC.EFD_CLOEXEC);
        if (fd < 0) {
            arena.close();
            throw new ErrnoException("eventfd (selector wake-up)", fd);
        }
        try {
            // COOP_TASKRUN: a poll's wake-up (in the peer's softirq) queues its completion for the selecting thread's
            // next entry into the kernel instead of interrupting it, as an epoll wake-up never does; without it, each
            // readiness interrupts the thread in user space. Not DEFER_TASKRUN: its SINGLE_ISSUER would tie the ring
            // to one submitting thread, and a selector may be opened on one thread and selected on another.
            ring = IoUring.builder().engine(engine).entries(ENTRIES).cqEntries(CQ_ENTRIES).coopTaskrun().taskrunFlag()
                    .build();
        } catch (ErrnoException | RuntimeException e) {
            LibC.close(fd);
            arena.close();
            throw e;
        }
        eventFd = fd;
        cq = ring.cq();
        portable = ring.engineServing().name().equals("portable");
        receiveLimits = !portable;
        waitArg = arena.allocate(GeteventsArgLayout.SIZE + Timespec.SIZE, 8);
        one = arena.allocate(JAVA_LONG);
        one.set(JAVA_LONG, 0, 1L);
        drained = arena.allocate(JAVA_LONG);
    }

    /** Queues a multishot poll of {@code fd} for {@code events}. */
    void pollAdd(int fd, int events, long userData) throws ErrnoException {
        sqe().prepPollMultishot(fd, events).userData(userData);
    }

    /**
     * Queues a multishot receive from {@code fd} into the selector's provided buffers, ending by itself once about
     * {@code limit} bytes have come (to within a buffer) where the kernel can (6.17): without a limit the kernel
     * drains the whole socket into the buffers within one enter, and a fast peer's bytes pile up in the channel's
     * inbox before a cancel can reach the receive.
     */
    void recv(int fd, int limit, long userData) throws ErrnoException {
        if (buffers == null) {
            buffers = new RecvBuffers(ring, BUFFER_GROUP, BUFFERS, BUFFER_SIZE);
        }
        Sqe sqe = receiveLimits ? sqe().prepRecvMultishot(fd, 0, 0, limit) : sqe().prepRecvMultishot(fd, 0);
        sqe.bufferSelect(BUFFER_GROUP).userData(userData);
    }

    /**
     * A receive ended with {@code result}: true if it was EINVAL for its limit, which older kernels (and the portable
     * engine) refuse; the receives go without one from then on, and this one is to be armed again.
     */
    boolean refusedLimit(int result) {
        if (result != -Errno.EINVAL || !receiveLimits) {
            return false;
        }
        receiveLimits = false;
        return true;
    }

    /** Queues a send of {@code length} bytes at {@code address} (MSG_NOSIGNAL), untouched until its CQE. */
    void send(int fd, long address, int length, long userData) throws ErrnoException {
        Sqe sqe = sqe();
        NetOps.prepSend(sqe, fd, address, length);
        sqe.userData(userData);
    }

    /** The provided buffers the receives' CQEs name. */
    RecvBuffers buffers() {
        return buffers;
    }

    /** Queues the cancel of the request {@code userData} (its own final CQE says when it has ended). */
    void cancel(long userData) throws ErrnoException {
        sqe().prepCancel(userData, 0).userData(REMOVAL | userData);
    }

    /** Queues the removal of the poll {@code userData}. */
    void pollRemove(long userData) throws ErrnoException {
        sqe().prepPollRemove(userData).userData(REMOVAL | userData);
    }

    /** A removal's CQE: one the kernel refused for now goes again; receives and sends are cancels, polls removals. */
    private void removed(Cqe cqe) throws ErrnoException {
        if (cqe.res() != -Errno.EALREADY) {
            return;
        }
        long target = cqe.userData() & ~REMOVAL;
        if ((target & (UringSelector.RECV | SelectorSends.SEND)) != 0) {
            cancel(target);
        } else {
            pollRemove(target);
        }
    }

    /** The next SQE; when the queue is full, what is queued is submitted first (the kernel copies SQEs at once). */
    private Sqe sqe() throws ErrnoException {
        Sqe sqe = ring.sq().next();
        if (sqe == null) {
            ring.submitPatiently();
            sqe = ring.sq().next();
        }
        return sqe;
    }

    /**
     * The one {@code io_uring_enter} of a select round: submits what is queued and waits up to
     * {@code timeoutNanos} for a completion (0: none, negative: no limit).
     */
    void enter(long timeoutNanos) throws ErrnoException {
        if (!wakeArmed) {
            sqe().prepPollMultishot(eventFd, OpFlags.Poll.POLLIN).userData(WAKE);
            wakeArmed = true;
        }
        try {
            if (timeoutNanos == 0) {
                ring.submitAndGetEvents();
            } else if (!portable) {
                if (timeoutNanos < 0) {
                    ring.submitAndWait(1);
                } else {
                    ring.submitAndWait(1, timeoutNanos);
                }
            } else {
                portableWait(timeoutNanos);
            }
        } catch (ErrnoException e) {
            ring.rethrowUnlessUnderPressure(e);     // then the caller reaps and enters again
        }
    }

    /**
     * The portable engine answers a Java interrupt with EINTR and consumes it (it stands in for a signal), and the
     * ring's own waits retry EINTR: the wait is entered here instead, and the interrupt given back, as the JDK's
     * select leaves it set. (A submit first: the engine's enter is a method call, not a system call.)
     */
    private void portableWait(long timeoutNanos) throws ErrnoException {
        ring.submit();
        int flags = EnterFlags.GETEVENTS;
        long arg = 0;
        if (timeoutNanos > 0) {
            waitArg.fill((byte) 0);
            waitArg.set(JAVA_INT, GeteventsArgLayout.SIGMASK_SZ, 8);
            waitArg.set(JAVA_LONG, GeteventsArgLayout.TS, waitArg.address() + GeteventsArgLayout.SIZE);
            Timespec.set(waitArg.asSlice(GeteventsArgLayout.SIZE), timeoutNanos);
            flags |= EnterFlags.EXT_ARG;
            arg = waitArg.address();
        }
        int ret = ring.enter(0, 1, flags, arg, arg == 0 ? 0 : GeteventsArgLayout.SIZE);
        if (ret == -Errno.EINTR) {
            Thread.currentThread().interrupt();
        } else if (ret < 0 && ret != -Errno.ETIME) {
            throw new ErrnoException("io_uring_enter (selector wait)", ret);
        }
    }

    /** A completion and its index among all the ring has posted (see {@link #position()}). */
    interface Handler {
        void handle(Cqe cqe, long index);
    }

    /** Hands the completions to {@code handler}, all but the wake-up poll's (re-armed by the next enter if it ended). */
    void reap(Handler handler) {
        this.handler = handler;
        next = reaped;
        try {
            cq.drain(dispatch);
        } finally {
            reaped = next;
        }
    }

    private void dispatch(Cqe cqe) {
        long index = next++;
        if (cqe.userData() == WAKE) {
            wakeArmed &= cqe.hasMore();
        } else if ((cqe.userData() & REMOVAL) != 0) {
            try {
                removed(cqe);
            } catch (ErrnoException e) {
                throw new IllegalStateException("selector: a removal could not be queued again", e);
            }
        } else {
            handler.handle(cqe, index);
        }
    }

    /**
     * How many CQEs the ring has posted until now, as a 64-bit count: every CQE reaped later with a lower index was
     * posted before this call. Any thread. (The reaped count read first is at most the kernel's tail, and lags it
     * by less than 2^32, so the tail's low 32 bits extend it.)
     */
    long position() {
        long r = reaped;
        try {
            return r + ((cq.tail() - (int) r) & 0xffff_ffffL);
        } catch (IllegalStateException closed) {
            return 0;               // the ring is gone, and with it every CQE that could be stale
        }
    }

    /** Wakes the enter in progress, or makes the next one return at once. Any thread. */
    synchronized void signal() {
        if (closed) {
            return;
        }
        long ret = LibC.write(eventFd, one);
        if (ret < 0 && ret != -Errno.EAGAIN) {     // EAGAIN: the counter is full, so the wake-up is pending anyway
            throw new IllegalStateException(new ErrnoException("write (selector wake-up eventfd)", (int) ret));
        }
    }

    /** Resets the wake-up eventfd (a no-op when nothing was written). */
    void drainSignal() {
        LibC.read(eventFd, drained);
    }

    /**
     * Closes the ring — the kernel ends every poll on it, dropping its references to the files — and then the
     * eventfd. Nothing queued is submitted any more, so no fd number named by a request can be reused under it.
     * The receive buffers are freed only if {@code receivesEnded}: else a receive the kernel has yet to tear
     * down could still write into them, and they are left to the process.
     */
    void close(boolean receivesEnded) {
        try {
            if (buffers != null && receivesEnded) {
                buffers.close();
            }
        } finally {
            close();
        }
    }

    @Override
    public void close() {
        try {
            ring.close();
        } finally {
            synchronized (this) {
                closed = true;
                LibC.close(eventFd);
            }
            arena.close();
        }
    }
}
