package io.uring4j.portable;

import io.uring4j.sys.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Objects;

import static io.uring4j.portable.AioLayout.CMD_FDSYNC;
import static io.uring4j.portable.AioLayout.CMD_FSYNC;
import static io.uring4j.portable.AioLayout.CMD_PREAD;
import static io.uring4j.portable.AioLayout.CMD_PREADV;
import static io.uring4j.portable.AioLayout.CMD_PWRITE;
import static io.uring4j.portable.AioLayout.CMD_PWRITEV;
import static io.uring4j.portable.AioLayout.EVENT_DATA;
import static io.uring4j.portable.AioLayout.EVENT_RES;
import static io.uring4j.portable.AioLayout.EVENT_SIZE;
import static io.uring4j.portable.AioLayout.IOCB_BUF;
import static io.uring4j.portable.AioLayout.IOCB_DATA;
import static io.uring4j.portable.AioLayout.IOCB_FILDES;
import static io.uring4j.portable.AioLayout.IOCB_FLAGS;
import static io.uring4j.portable.AioLayout.IOCB_FLAG_RESFD;
import static io.uring4j.portable.AioLayout.IOCB_NBYTES;
import static io.uring4j.portable.AioLayout.IOCB_OFFSET;
import static io.uring4j.portable.AioLayout.IOCB_OPCODE;
import static io.uring4j.portable.AioLayout.IOCB_RESFD;
import static io.uring4j.portable.AioLayout.IOCB_RW_FLAGS;
import static io.uring4j.portable.AioLayout.IOCB_SIZE;
import static io.uring4j.portable.AioLayout.RING_EVENTS;
import static io.uring4j.portable.AioLayout.RING_HEAD;
import static io.uring4j.portable.AioLayout.RING_HEADER_LENGTH;
import static io.uring4j.portable.AioLayout.RING_INCOMPAT_FEATURES;
import static io.uring4j.portable.AioLayout.RING_MAGIC;
import static io.uring4j.portable.AioLayout.RING_MAGIC_VALUE;
import static io.uring4j.portable.AioLayout.RING_NR;
import static io.uring4j.portable.AioLayout.RING_TAIL;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A native AIO context for a ring's O_DIRECT file I/O: the issuer queues iocbs and submits them with one
 * io_submit, the kernel runs them without a thread of ours (for O_DIRECT files io_submit does not wait for the
 * device), and each completion bumps an eventfd that the ring's epoll set watches; whoever sees it fire reaps.
 * For buffered files io_submit does the I/O synchronously, so only O_DIRECT belongs here; even then a write that
 * extends the file (ext4, XFS) is done inside io_submit. With RWF_NOWAIT a read or write that would block completes
 * with -EAGAIN as its result.
 *
 * <p>Everything is preallocated: one iocb per request slot (the caller's {@code Request.slot}, below
 * {@link #slots()}), the pointer array io_submit takes, the io_event array reaping fills. Each slot has at most one
 * iocb queued or in flight; its completion is reported with the slot (the iocb's aio_data). Every queued slot ends
 * in exactly one report: a failure from {@link #submit}, or an event from {@link #reap}.
 *
 * <p>Threads: queueing and {@link #submit} belong to one thread at a time (or the caller's lock), {@link #reap} to
 * one thread at a time, {@link #cancel} to one thread at a time; the three may run concurrently with each other
 * (they touch different memory). {@link #close} runs alone, after the others stopped.
 *
 * <p>Memory: the kernel reads an iocb and its iovec array during io_submit only; the data buffers must stay valid
 * until the slot's event is reaped, or until {@link #close} returns, which waits for every iocb in flight.
 */
final class AioContext implements AutoCloseable {
    /** A slot's result, kernel-style: bytes transferred or -errno. Must not throw. */
    @FunctionalInterface
    interface Completion {
        void complete(int slot, long res);
    }

    private static final MemorySegment USER = PortableRing.USER;
    private static final VarHandle INT = JAVA_INT.varHandle();

    /** io_event array size: enough to drain a busy context in few calls without a large array per ring. */
    private static final int REAP_BATCH_MAX = 256;
    private static final long CTX_ID = 0;
    private static final long COUNTER = 8;
    private static final long CANCEL_EVENT = 32;

    private final int slots;
    private final int reapBatch;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment iocbs;
    private final long iocbBase;
    private final MemorySegment batch;
    private final MemorySegment events;
    /** aio_context_t at 0, the eventfd counter at 8, io_cancel's io_event at 32. */
    private final MemorySegment scratch;

    /** aio_context_t: the address of the completion ring the kernel maps for the context. */
    private long ctx;
    private int eventfd = -1;
    private int queued;
    private boolean closed;

    /** Allocates the memory for {@code slots} iocbs; {@link #open} makes the kernel objects. */
    AioContext(int slots) {
        this.slots = slots;
        this.reapBatch = Math.min(slots, REAP_BATCH_MAX);
        this.iocbs = arena.allocate(slots * IOCB_SIZE, IOCB_SIZE);
        this.iocbBase = iocbs.address();
        this.batch = arena.allocate(JAVA_LONG, slots);
        this.events = arena.allocate(reapBatch * EVENT_SIZE, 8);
        this.scratch = arena.allocate(CANCEL_EVENT + EVENT_SIZE, 8);
    }

    /**
     * io_setup for {@code slots} events and the completion eventfd: 0, or -errno for the caller to fall back to
     * its workers — EAGAIN (fs.aio-max-nr used up), ENOSYS, EPERM (seccomp), EMFILE. Call {@link #close} either way.
     */
    int open() {
        int ret = Aio.setup(slots, scratch.address() + CTX_ID);
        if (ret < 0) {
            return ret;
        }
        ctx = scratch.get(JAVA_LONG, CTX_ID);
        boolean readable = USER.get(JAVA_INT, ctx + RING_MAGIC) == RING_MAGIC_VALUE
                && USER.get(JAVA_INT, ctx + RING_INCOMPAT_FEATURES) == 0
                && USER.get(JAVA_INT, ctx + RING_HEADER_LENGTH) == RING_EVENTS;
        if (!readable) {
            return -Errno.ENOSYS;       // a ring layout we do not know: the caller's workers take the I/O
        }
        eventfd = Sys.eventfd(0, Sys.EFD_CLOEXEC_NONBLOCK);
        if (eventfd < 0) {
            return eventfd;
        }
        for (int slot = 0; slot < slots; slot++) {
            iocbs.set(JAVA_INT, slot * IOCB_SIZE + IOCB_FLAGS, IOCB_FLAG_RESFD);
            iocbs.set(JAVA_INT, slot * IOCB_SIZE + IOCB_RESFD, eventfd);
        }
        return 0;
    }

    int slots() {
        return slots;
    }

    /** Whether {@code slot} has an iocb: the caller's request table may grow past the context's size. */
    boolean covers(int slot) {
        return slot >= 0 && slot < slots;
    }

    /** The eventfd that becomes readable when iocbs complete, for the caller's epoll set (EPOLLIN). */
    int eventfd() {
        return eventfd;
    }

    /** Queues pread(fd, buf, len, off) with the RWF_* {@code rwFlags}. */
    void read(int slot, int fd, long buf, long len, long off, int rwFlags) {
        queue(slot, CMD_PREAD, fd, buf, len, off, rwFlags);
    }

    void write(int slot, int fd, long buf, long len, long off, int rwFlags) {
        queue(slot, CMD_PWRITE, fd, buf, len, off, rwFlags);
    }

    /** Queues preadv(fd, iov, count, off); the iovec array need only live until {@link #submit} returns. */
    void readv(int slot, int fd, long iov, int count, long off, int rwFlags) {
        queue(slot, CMD_PREADV, fd, iov, count, off, rwFlags);
    }

    void writev(int slot, int fd, long iov, int count, long off, int rwFlags) {
        queue(slot, CMD_PWRITEV, fd, iov, count, off, rwFlags);
    }

    /** Queues fsync, or fdatasync with {@code dataOnly}; the kernel runs it on its own workqueue. */
    void fsync(int slot, int fd, boolean dataOnly) {
        queue(slot, dataOnly ? CMD_FDSYNC : CMD_FSYNC, fd, 0, 0, 0, 0);
    }

    /**
     * Fills the slot's iocb (the constant fields — flags, resfd, the zeroed reserved ones — were set once by
     * {@link #open}) and appends it to the next io_submit.
     */
    private void queue(int slot, short opcode, int fd, long addr, long len, long off, int rwFlags) {
        long at = Objects.checkIndex(slot, slots) * IOCB_SIZE;
        iocbs.set(JAVA_LONG, at + IOCB_DATA, slot);
        iocbs.set(JAVA_INT, at + IOCB_RW_FLAGS, rwFlags);
        iocbs.set(JAVA_SHORT, at + IOCB_OPCODE, opcode);
        iocbs.set(JAVA_INT, at + IOCB_FILDES, fd);
        iocbs.set(JAVA_LONG, at + IOCB_BUF, addr);
        iocbs.set(JAVA_LONG, at + IOCB_NBYTES, len);
        iocbs.set(JAVA_LONG, at + IOCB_OFFSET, off);
        batch.setAtIndex(JAVA_LONG, queued++, iocbBase + at);
    }

    /** How many iocbs are queued for the next {@link #submit}. */
    int queued() {
        return queued;
    }

    /**
     * Submits every queued iocb, in as few io_submit calls as the kernel allows, and returns how many it took;
     * each one it refused goes to {@code failed} with its error (its event will never come). io_submit stops at
     * the first iocb it cannot take and reports only that one's error when it is first in the call, so the rest
     * is retried from there: each refused iocb gets its own error (EBADF, EINVAL, EFAULT...). EAGAIN means the
     * context is full, so everything left gets it without another try — the caller's cue to use a worker.
     */
    int submit(Completion failed) {
        int n = queued;
        queued = 0;
        int taken = 0;
        for (int done = 0; done < n; ) {
            int ret = Aio.submit(ctx, n - done, batch.address() + done * JAVA_LONG.byteSize());
            if (ret > 0) {
                done += ret;
                taken += ret;
                continue;
            }
            for (int end = ret == -Errno.EAGAIN ? n : done + 1; done < end; done++) {
                failed.complete(slotAt(done), ret);
            }
        }
        return taken;
    }

    private int slotAt(int i) {
        return (int) ((batch.getAtIndex(JAVA_LONG, i) - iocbBase) / IOCB_SIZE);
    }

    /**
     * Reports every completed iocb to {@code done} and returns how many, without a system call beyond the
     * eventfd read: the events come straight from the completion ring the kernel maps at the context (as libaio
     * and fio's userspace_reap read it). The eventfd is read (reset) first: a completion that lands after that
     * signals it again, so it is reaped now or on the next wake-up, never missed; reading it after reaping could
     * swallow the signal of an event that arrived in between. Having read the counter, a level-triggered epoll
     * does not fire again for events already reaped. Never blocks.
     *
     * <p>The tail is read with acquire (the kernel writes an event, then the tail); events are copied out in
     * batches and the head published with release before a batch is delivered — a completion may submit again,
     * and the kernel frees context slots by reading that head. We are the context's only reaper.
     */
    int reap(Completion done) {
        Sys.read(eventfd, scratch.address() + COUNTER, 8);     // -EAGAIN: nothing signalled, reap anyway
        long ring = ctx;
        int nr = USER.get(JAVA_INT, ring + RING_NR);
        int total = 0;
        while (true) {
            int head = USER.get(JAVA_INT, ring + RING_HEAD);
            int tail = (int) INT.getAcquire(USER, ring + RING_TAIL);
            int got = 0;
            while (head != tail && got < reapBatch) {
                MemorySegment.copy(USER, ring + RING_EVENTS + head * EVENT_SIZE, events, got * EVENT_SIZE, EVENT_SIZE);
                head = head + 1 == nr ? 0 : head + 1;
                got++;
            }
            if (got == 0) {
                return total;
            }
            INT.setRelease(USER, ring + RING_HEAD, head);
            deliver(done, got);
            total += got;
        }
    }

    private void deliver(Completion done, int got) {
        for (int i = 0; i < got; i++) {
            done.complete((int) events.get(JAVA_LONG, i * EVENT_SIZE + EVENT_DATA),
                    events.get(JAVA_LONG, i * EVENT_SIZE + EVENT_RES));
        }
    }

    /**
     * io_cancel of the slot's iocb in flight: -EINPROGRESS if the kernel started cancelling it (its event still
     * comes through {@link #reap}); otherwise -errno, and the iocb completes with its own result — file I/O,
     * O_DIRECT included, cannot be cancelled, which the kernel says with -EINVAL (as for an iocb no longer in flight).
     */
    int cancel(int slot) {
        long iocb = iocbBase + Objects.checkIndex(slot, slots) * IOCB_SIZE;
        return Aio.cancel(ctx, iocb, scratch.address() + CANCEL_EVENT);
    }

    /**
     * io_destroy, which returns only once every iocb in flight has completed (their events are dropped): from then
     * on the kernel touches none of the caller's buffers, which is what makes it safe to free them. Then closes
     * the eventfd and frees the context's memory. Idempotent; also after a failed {@link #open}.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (ctx != 0) {
            Aio.destroy(ctx);
        }
        if (eventfd >= 0) {
            Sys.close(eventfd);
        }
        arena.close();
    }
}
