package io.uring4j.portable;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;

import java.util.concurrent.locks.ReentrantLock;

/**
 * O_DIRECT reads and writes of one ring on native AIO ({@link AioContext}): started in enter with io_submit —
 * which, for O_DIRECT, returns without waiting for the device — and finished by whoever polls the ring's epoll
 * set when the context's eventfd fires (the issuer of a DEFER_TASKRUN ring, else the poller thread). No io-wq
 * worker, no thread hand-off: the kernel's io_uring also issues direct I/O asynchronously instead of punting it.
 *
 * <p>The enter thread queues the iocbs of a whole SQ batch and submits them with one io_submit at its end
 * ({@link #flush}); other threads (a link's successor issued where its predecessor completed) submit at once.
 * Anything AIO cannot take goes to the io-wq as before: a file-position offset (-1), a request slot past the
 * context's size ({@link #MAX_IN_FLIGHT}, or the pool grew), a context that could not be created (fs.aio-max-nr,
 * seccomp), a full context (EAGAIN).
 *
 * <p>Cancel cannot stop direct I/O in flight (io_cancel refuses file I/O): such a request finishes with its own
 * result, as one inside its system call on a worker does. Closing the ring waits for what is in flight
 * (io_destroy), so no buffer is written after close returns.
 */
final class DirectIo {
    /**
     * Requests one context keeps in flight at most: fs.aio-max-nr (65536 by default) is shared by the whole
     * system, so a ring takes what a device queue can use, not its whole CQ; requests on higher pool slots
     * (rare: the pool hands out low slots first) go to the io-wq.
     */
    private static final int MAX_IN_FLIGHT = 1024;

    private final PortableRing ring;
    private final int slots;
    /** Guards queueing and submission (the iocb batch); reaping is the poller's alone. */
    private final ReentrantLock lock = new ReentrantLock();
    private volatile AioContext aio;
    private boolean unavailable;
    /** The thread in enter, batching its submissions until {@link #flush}; compared only by itself. */
    private Thread batching;
    /** Slots io_submit refused and their errors, collected under the lock and finished outside it. */
    private final int[] refusedSlots;
    private final long[] refusedErrors;
    private int refused;
    /** Records what io_submit refused (allocated once, not per submit). */
    private final AioContext.Completion refuse = this::refused;
    /** Requests on AIO not yet reaped: while any are, enter with GETEVENTS looks for completions. */
    private volatile int inFlight;

    DirectIo(PortableRing ring) {
        this.ring = ring;
        this.slots = Math.min(ring.cqEntries, MAX_IN_FLIGHT);
        this.refusedSlots = new int[slots];
        this.refusedErrors = new long[slots];
    }

    /**
     * Starts {@code r} (a read or write of the O_DIRECT file {@code fd}) on AIO: {@link PortableRing#PENDING},
     * or {@link PortableRing#NEEDS_WORKER} when AIO cannot take it.
     */
    int start(Request r, int fd) {
        if (r.off < 0) {
            return PortableRing.NEEDS_WORKER;
        }
        boolean first;
        boolean refusals = false;
        lock.lock();
        try {
            if ((aio == null && !open()) || !aio.covers(r.slot)) {
                return PortableRing.NEEDS_WORKER;
            }
            queue(r, fd);
            first = inFlight++ == 0;        // every write is under the lock
            if (batching != Thread.currentThread()) {
                refusals = submit();
            }
        } finally {
            lock.unlock();
        }
        if (first) {
            ring.taskWork.directIoChanged();
        }
        if (refusals) {
            finishRefused();
        }
        return PortableRing.PENDING;
    }

    private void queue(Request r, int fd) {
        int rwFlags = r.opFlags;
        switch (r.opcode) {
            case Opcode.READ, Opcode.READ_FIXED -> {
                r.wanted = r.len;
                aio.read(r.slot, fd, r.addr, Integer.toUnsignedLong(r.len), r.off, rwFlags);
            }
            case Opcode.WRITE, Opcode.WRITE_FIXED -> {
                r.wanted = r.len;
                aio.write(r.slot, fd, r.addr, Integer.toUnsignedLong(r.len), r.off, rwFlags);
            }
            case Opcode.READV -> {
                r.wanted = (int) Math.min(ReadWrite.iovecTotal(r), Integer.MAX_VALUE);
                aio.readv(r.slot, fd, r.iov.address(), r.len, r.off, rwFlags);
            }
            default -> {
                r.wanted = (int) Math.min(ReadWrite.iovecTotal(r), Integer.MAX_VALUE);
                aio.writev(r.slot, fd, r.iov.address(), r.len, r.off, rwFlags);
            }
        }
    }

    /** Under the lock: the context and its eventfd in the ring's epoll set, once; false if unavailable. */
    private boolean open() {
        if (unavailable) {
            return false;
        }
        AioContext context = new AioContext(slots);
        int ret = context.open();
        if (ret == 0) {
            ring.lock.lock();
            try {
                ret = ring.poller.watchAio(context.eventfd());
            } finally {
                ring.lock.unlock();
            }
        }
        if (ret < 0) {
            context.close();
            unavailable = true;
            System.getLogger("io.uring4j").log(System.Logger.Level.DEBUG, "uring4j portable engine: no native AIO for "
                    + "O_DIRECT I/O (" + Errno.name(-ret) + "); it runs on the io-wq");
            return false;
        }
        aio = context;
        return true;
    }

    /** Marks the calling thread (in enter) as batching: its submissions wait for {@link #flush}. */
    void beginBatch() {
        batching = Thread.currentThread();
    }

    /** The end of enter's SQ batch: one io_submit for everything it queued. */
    void flush() {
        batching = null;
        if (aio == null) {
            return;
        }
        boolean refusals = false;
        lock.lock();
        try {
            if (aio.queued() > 0) {
                refusals = submit();
            }
        } finally {
            lock.unlock();
        }
        if (refusals) {
            finishRefused();
        }
    }

    private void refused(int slot, long res) {
        refusedSlots[refused] = slot;
        refusedErrors[refused++] = res;
    }

    /** Under the lock: one io_submit; whether it refused any (for {@link #finishRefused}, outside the lock). */
    private boolean submit() {
        aio.submit(refuse);
        return refused > 0;
    }

    /** Outside the lock: what io_submit refused goes to a worker (a full context) or fails with its error. */
    private void finishRefused() {
        while (true) {
            Request r;
            long res;
            boolean last;
            lock.lock();
            try {
                if (refused == 0) {
                    return;
                }
                refused--;
                last = --inFlight == 0;
                r = ring.lock.pool.all[refusedSlots[refused]];
                res = refusedErrors[refused];
            } finally {
                lock.unlock();
            }
            if (last) {
                ring.taskWork.directIoChanged();
            }
            if (res == -Errno.EAGAIN) {
                ring.wq.enqueue(r);
            } else {
                ring.links.complete(r, (int) res, true);
            }
        }
    }

    /** The eventfd fired: finishes every completed request, each chain going on from here. By the poller only. */
    void reap() {
        int reaped = aio.reap((slot, res) -> ring.links.complete(ring.lock.pool.all[slot], (int) res, true));
        if (reaped > 0) {
            boolean none;
            lock.lock();
            try {
                inFlight -= reaped;
                none = inFlight == 0;
            } finally {
                lock.unlock();
            }
            if (none) {
                ring.taskWork.directIoChanged();
            }
        }
    }

    /** Whether requests are on AIO: their completions are found by polling. */
    boolean busy() {
        return inFlight > 0;
    }

    /** The ring closes: waits for direct I/O in flight (io_destroy), then frees the context. */
    void close() {
        lock.lock();
        try {
            if (aio != null) {
                aio.close();
            }
            unavailable = true;
        } finally {
            lock.unlock();
        }
    }
}
