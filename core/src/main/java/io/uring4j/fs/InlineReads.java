package io.uring4j.fs;

import io.uring4j.ring.Cqe;
import io.uring4j.ring.CqeHandler;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Reads of virtual threads, batched through io_uring on the callers' own carriers: page-cache reads — what
 * {@code preadv2(RWF_NOWAIT)} does, at a fraction of a system call per read — and O_DIRECT reads of a device that
 * answers fast ({@link #readDirect}).
 *
 * <p>Each carrier thread has a slot: a ring, a queue of reads and a lock. The carrier is told by
 * {@code pthread_self()}, which a virtual thread's downcall answers for the carrier it runs on (the JDK does not
 * name a virtual thread's carrier, and the CPU is no stand-in: the kernel moves carriers between CPUs). A read
 * joins its carrier's queue; a thread that finds the slot free becomes its combiner: it yields once, so the other
 * virtual threads of its carrier queue their reads behind it and park, then submits the whole queue in one
 * {@code io_uring_enter}, reaps the CQEs and unparks their threads — pushes onto its own carrier's queue, no
 * wake-up of another thread. A page-cache read carries {@code RWF_NOWAIT}, so the kernel completes it during the
 * submission (data the page cache holds) or answers {@code EAGAIN} at once; a miss goes, as with {@code preadv2},
 * to the caller's slower path. A direct read is waited for, as a synchronous read would be, so its batch holds the
 * carrier for the device's time — {@link DirectDevice} keeps slow devices off this path. Either way every CQE of
 * a batch is reaped before any of its readers returns: a buffer is never touched after its reader has gone.
 *
 * <p>No thread hop and one system call per batch is the kernel's own lesson (a ring owned by the thread that
 * completes its work); it turns a syscall-bound read (on a VM that traps system calls) into a copy.
 * The slots' rings need no SINGLE_ISSUER (a combiner may resume on another carrier after its yield); a slot's
 * lock orders its users. Slots are made on a carrier's first read, up to a bound; carriers beyond it share, as do
 * carriers whose ring the kernel refused. A reader pinned to its carrier (by a native frame) that parks behind a
 * combiner's yield holds the carrier the combiner may need to resume; a {@link StallWatch} frees such readers to
 * read in place.
 */
final class InlineReads implements Uring.Companion {
    private static final int BATCH = 256;
    /** How often a batch's first enter is made while the kernel refuses it for now: about a millisecond's worth. */
    static final int PRESSURE_TRIES = 20;
    /** The one of each runtime ({@link #of}). */
    private static final Function<Uring, InlineReads> PER_RUNTIME = InlineReads::forRuntime;

    /** A slot's ring: the kernel's, with room for a batch. */
    private static final RingMaker KERNEL_RINGS =
            () -> IoUring.builder().entries(BATCH).submitAll().engine(Engine.kernel()).build();

    private final RingMaker rings;
    /** Lowered to the slots there are once the kernel refuses a ring: no failing io_uring_setup per read. */
    private int maxSlots;
    /** Carrier ids ({@code pthread_self}) and their slots, index for index; replaced whole when one is added. */
    private volatile long[] carriers = new long[0];
    private volatile Slot[] slots = new Slot[0];
    private volatile boolean closed;
    private final StallWatch watch = new StallWatch(() -> slots);

    private InlineReads(int maxSlots, RingMaker rings) {
        this.maxSlots = maxSlots;
        this.rings = rings;
    }

    /**
     * The batcher of {@code uring}'s virtual threads' reads, made on first use and closed with the runtime; null
     * when its loops run on the portable engine, the kernel refused the slots' rings, or the runtime is closed:
     * callers then read with {@code preadv2(RWF_NOWAIT)} themselves.
     */
    static InlineReads of(Uring uring) {
        return uring.companion(PER_RUNTIME);
    }

    private static InlineReads forRuntime(Uring uring) {
        if (uring.loop(0).ring().engineUsed() != Engine.kernel()) {
            return null;
        }
        int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        try {       // room for carriers the JDK adds to make up for pinned ones
            return open(Math.max(4, 4 * carriers));
        } catch (ErrnoException refused) {
            return null;        // the loops' rings work; reads then take preadv2, as they would anywhere
        }
    }

    /** Up to {@code maxSlots} slots, one per carrier, each with its own ring on the kernel's io_uring. */
    static InlineReads open(int maxSlots) throws ErrnoException {
        return open(maxSlots, KERNEL_RINGS);
    }

    /** {@link #open(int)} with the slots' rings made by {@code rings} (tests make the kernel refuse them). */
    static InlineReads open(int maxSlots, RingMaker rings) throws ErrnoException {
        InlineReads reads = new InlineReads(maxSlots, rings);
        try {
            reads.add(LibC.threadSelf(), reads.newSlot());  // the first ring now: a kernel that refuses it refuses here
        } catch (ErrnoException | RuntimeException refused) {
            reads.watch.close();                            // its thread would wait for ever
            throw refused;
        }
        return reads;
    }

    private Slot newSlot() throws ErrnoException {
        return new Slot(rings, watch);
    }

    /** Opens a slot's ring. */
    @FunctionalInterface
    interface RingMaker {
        IoUring open() throws ErrnoException;
    }

    /** The slot of the carrier {@code self}, made on its first read (else shared); null once closed. */
    private Slot slotOf(long self) {
        long[] ids = carriers;
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == self) {
                return slots[i];
            }
        }
        synchronized (this) {
            if (closed) {
                return null;
            }
            if (carriers.length != ids.length) {
                return slotOf(self);                    // another carrier was added meanwhile: look again
            }
            Slot[] known = slots;
            if (known.length < maxSlots) {
                try {
                    return add(self, newSlot());
                } catch (ErrnoException refused) {
                    maxSlots = known.length;            // this carrier shares, as those beyond the bound do
                }
            }
            return known[(int) Math.floorMod(Long.hashCode(self), (long) known.length)];
        }
    }

    private synchronized Slot add(long self, Slot slot) {
        Slot[] grown = Arrays.copyOf(slots, slots.length + 1);
        grown[grown.length - 1] = slot;
        slots = grown;
        long[] ids = Arrays.copyOf(carriers, carriers.length + 1);
        ids[ids.length - 1] = self;
        carriers = ids;                                 // published last: a reader that finds the id finds its slot
        return slot;
    }

    /**
     * {@code preadv2(fd, dst, position, RWF_NOWAIT)} for a virtual thread: the bytes the page cache gave (at most
     * {@code dst}'s size, possibly fewer), or {@code -errno} — {@code -EAGAIN} when the data is not cached or
     * these rings are closed. {@code dst} must stay alive until this returns (it does: the caller waits here).
     * An interrupt does not end the wait, which lasts one batch; the interrupt status is kept.
     */
    long read(int fd, MemorySegment dst, long position) {
        return join(new Read(Thread.currentThread(), fd, dst, position, null));
    }

    /**
     * A read of an O_DIRECT file for a virtual thread, batched like {@link #read} but waited for: the carrier
     * holds while {@code device} answers, as with a synchronous read — so the caller asks
     * {@link DirectDevice#inline()} first, and the batch's wait is recorded on {@code device}. The bytes read
     * ({@code dst}'s size, or fewer at end of file) or {@code -errno}; {@code -EAGAIN} when these rings are
     * closed. The kernel is done with {@code dst} when this returns. Only for regular files and block devices,
     * whose reads end on their own: an interrupt does not end the wait; the interrupt status is kept.
     */
    long readDirect(int fd, MemorySegment dst, long position, DirectDevice device) {
        return join(new Read(Thread.currentThread(), fd, dst, position, device));
    }

    private long join(Read read) {
        Slot slot = slotOf(LibC.threadSelf());
        if (slot == null) {
            return -Errno.EAGAIN;                       // closed
        }
        slot.pending.push(read);
        boolean interrupted = false;
        while (true) {
            if (slot.lock.tryLock()) {
                try {
                    slot.gather();
                    slot.combine(closed, slots);
                } finally {
                    slot.lock.unlock();
                }
                if (read.done && slot.pending.isEmpty()) {
                    break;              // else a read queued while the lock was held may have no combiner yet
                }
            } else if (read.done) {
                break;
            } else {
                LockSupport.park(this);
                interrupted |= Thread.interrupted();   // park returns at once while the status is set
                if (read.rescued && !read.done && read.claim()) {
                    read.result = read.inPlace();       // its combiner is stuck in its yield (StallWatch)
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return read.result;
    }

    /** Closes the rings once their combiners are done; later reads answer {@code -EAGAIN}. Idempotent. */
    @Override
    public void close() {
        Slot[] all;
        synchronized (this) {
            closed = true;
            all = slots;
        }
        watch.close();
        for (Slot slot : all) {
            do {
                slot.lock.lock();
                try {
                    if (slot.ring.isOpen()) {
                        slot.ring.close();
                    }
                    slot.combine(true, all);
                } finally {
                    slot.lock.unlock();
                }
            } while (!slot.pending.isEmpty());  // one queued while the lock was held found it taken and parked
        }
    }

    /**
     * One waiting read; {@code done} publishes {@code result}. It holds {@code dst} itself, not just its address:
     * memory of an automatic arena must stay reachable while the kernel may write to it. Whoever first claims it
     * owns it ({@link #claim}): a combiner, or its own reader, told to by the {@link StallWatch}, which then reads in
     * place; a withdrawn read stays queued until a combiner pops and drops it.
     */
    private static final class Read {
        private static final VarHandle CLAIMED;

        static {
            try {
                CLAIMED = MethodHandles.lookup().findVarHandle(Read.class, "claimed", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final Thread thread;
        final int fd;
        final MemorySegment dst;
        final long position;
        /** An O_DIRECT read's device, whose wait is recorded; null for a page-cache read (RWF_NOWAIT). */
        final DirectDevice device;
        long result;
        volatile boolean done;
        /** The read pushed before this one ({@link Pending}); set once, before the push publishes it. */
        Read below;
        @SuppressWarnings("unused") // accessed through CLAIMED
        private volatile boolean claimed;
        /** Set by the watch: the combiner is stuck, and this read's thread should read in place. */
        volatile boolean rescued;

        Read(Thread thread, int fd, MemorySegment dst, long position, DirectDevice device) {
            this.thread = thread;
            this.fd = fd;
            this.dst = dst;
            this.position = position;
            this.device = device;
        }

        /**
         * Claims the read, for a combiner that takes it or for its own reader that withdraws it: false if the other
         * claimed it first (a combiner then completes it; a reader reads it in place).
         */
        boolean claim() {
            return CLAIMED.compareAndSet(this, false, true);
        }

        /** What a batch would have read, read by the caller: a preadv2(RWF_NOWAIT), or a direct read waited for. */
        long inPlace() {
            return device == null ? LibC.preadv2(fd, dst, position, LibC.RWF_NOWAIT) : LibC.pread(fd, dst, position);
        }

        void complete(long result) {
            this.result = result;
            done = true;
            if (thread != Thread.currentThread()) {
                LockSupport.unpark(thread);
            }
        }
    }

    /**
     * The reads waiting for a slot's combiner: a lock-free stack linked through the reads themselves, so a read
     * costs no queue node. A read is pushed once and never again, so a pop cannot see a top that left and came
     * back (no ABA).
     */
    private static final class Pending {
        private static final VarHandle TOP;

        static {
            try {
                TOP = MethodHandles.lookup().findVarHandle(Pending.class, "top", Read.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused") // accessed through TOP
        private volatile Read top;

        void push(Read read) {
            Read t;
            do {
                t = top;
                read.below = t;
            } while (!TOP.weakCompareAndSet(this, t, read));
        }

        Read pop() {
            Read t;
            do {
                t = top;
                if (t == null) {
                    return null;
                }
            } while (!TOP.weakCompareAndSet(this, t, t.below));
            return t;
        }

        boolean isEmpty() {
            return top == null;
        }

        /** The last read pushed; the others follow through {@link Read#below} (some may be gone already). */
        Read top() {
            return top;
        }
    }

    /** A ring, the reads queued for it, and the lock its combiner holds. */
    private static final class Slot implements CqeHandler, StallWatch.Watched {
        private final RingMaker rings;
        private final StallWatch watch;
        /** Replaced only after an enter the kernel refused for now ({@link #renew}); read under the lock. */
        IoUring ring;
        /** Set when an enter refused for now closed the ring: the next batch asks for a new one. */
        private boolean renew;
        final ReentrantLock lock = new ReentrantLock();
        final Pending pending = new Pending();
        /** The reads submitted, kept until the whole batch is reaped ({@link #recordWaits} reads their devices). */
        private final Read[] batch = new Read[BATCH];
        /** The size of this slot's last batch: about how many virtual threads its carrier runs. */
        volatile int lastBatch;
        /** Counted by the combiner (under the lock) before and after it unmounts ({@link StallWatch}). */
        volatile long yields;

        Slot(RingMaker rings, StallWatch watch) throws ErrnoException {
            this.rings = rings;
            this.watch = watch;
            this.ring = rings.open();
        }

        /**
         * Under the lock: yields, so that this carrier's other readers queue behind — one enter for all. Counted for
         * the watch, which frees the waiting readers should this combiner find no carrier to resume on.
         */
        void gather() {
            yields++;
            watch.yielding();
            Thread.yield();
            yields++;
        }

        /**
         * Under the lock: submits the queue in batches until it is empty, or fails it when closed (or when an
         * enter failed and the ring was closed with SQEs it never took).
         */
        void combine(boolean closing, Slot[] others) {
            while (true) {
                boolean closed = closing || !ring.isOpen() && !renewed();
                int n = take(pending, 0, BATCH, closed);
                if (n == 0) {
                    return;
                }
                if (closed) {
                    fail(0, n, -Errno.EAGAIN);
                } else {
                    n = balance(n, others);
                    lastBatch = n;
                    submitAndReap(n);
                }
            }
        }

        /** After an enter refused for now: a new ring, if the kernel gives one (else the slot stays closed). */
        private boolean renewed() {
            if (!renew) {
                return false;
            }
            renew = false;
            try {
                ring = rings.open();
                return true;
            } catch (ErrnoException refused) {
                return false;
            }
        }

        /** Moves up to {@code max - n} reads from {@code from} into the batch from index {@code n}; the new size. */
        private int take(Pending from, int n, int max, boolean closed) {
            for (Read r; n < max && (r = from.pop()) != null; ) {
                if (!r.claim()) {
                    continue;                           // withdrawn: its reader read it in place
                }
                batch[n] = r;
                if (!closed) {
                    int len = (int) Math.min(r.dst.byteSize(), Integer.MAX_VALUE);   // the kernel caps it lower
                    ring.sq().next().prepRw(Opcode.READ, r.fd, r.dst.address(), len, r.position)
                            .opFlags(r.device == null ? LibC.RWF_NOWAIT : 0).userData(n);
                }
                n++;
            }
            return n;
        }

        /**
         * A small batch takes reads queued at a carrier whose batches are much larger. The JDK moves virtual
         * threads between carriers only when one runs dry, so two busy carriers can keep an uneven share for good:
         * one submitting batches of forty, the other of one or two. Reads completed here unpark their threads onto
         * this carrier, so the shares even out.
         */
        private int balance(int n, Slot[] others) {
            for (Slot other : others) {
                int theirs = other.lastBatch;
                if (other != this && theirs > 2 * n + 4) {
                    n = take(other.pending, n, Math.min(BATCH, n + (theirs - n) / 2), false);
                }
            }
            return n;
        }

        /**
         * Every submitted read's CQE is reaped before its thread is let go: the kernel is done with its buffer. An
         * enter the kernel refuses for now ({@link IoUring#underPressure}) is made again after a pause: the batch's
         * first a few times, then the batch fails; those that wait for the rest, until it comes. SQEs the kernel did
         * not take (a failed enter, a short submission) would be taken by the next enter, after their readers had
         * gone: the ring is closed instead — renewed for the next batch if the kernel was under pressure; after
         * any other failure the slot answers EAGAIN from then on.
         */
        private void submitAndReap(int n) {
            long start = System.nanoTime();
            int submitted;
            for (int tries = 1; ; tries++) {
                try {
                    submitted = ring.submitAndWait(n);
                    break;
                } catch (ErrnoException e) {
                    if (!IoUring.underPressure(e) || tries == PRESSURE_TRIES) {
                        ring.close();
                        renew = IoUring.underPressure(e);
                        fail(0, n, -e.errno());         // each reader takes its slower path
                        return;
                    }
                    pause();
                }
            }
            long waited = System.nanoTime() - start;   // the kernel's time only: not the readers' wake-ups
            int reaped = ring.cq().drain(this);
            while (reaped < submitted) {
                start = System.nanoTime();
                try {
                    ring.submitAndWait(submitted - reaped);
                } catch (ErrnoException e) {
                    if (!IoUring.underPressure(e)) {
                        throw new IllegalStateException("io_uring_enter while reaping inline reads: " + e, e);
                    }
                    pause();            // the readers cannot go before their CQEs come: their buffers are in use
                }
                waited += System.nanoTime() - start;
                reaped += ring.cq().drain(this);
            }
            recordWaits(waited, submitted);
            if (submitted < n) {
                ring.close();
                renew = true;
                fail(submitted, n, -Errno.EAGAIN);
            }
        }

        /**
         * A pause that keeps the carrier. A batch's readers wait for this combiner without a way out (the kernel has
         * their reads, or their SQEs); one pinned to the only carrier would keep a combiner that unmounted from ever
         * resuming. The kernel's "not now" is rare, and each pause spins only 50 µs.
         */
        private static void pause() {
            long end = System.nanoTime() + IoUring.PRESSURE_PAUSE_NANOS;
            while (System.nanoTime() - end < 0) {
                Thread.onSpinWait();
            }
        }

        /**
         * Each direct read's device learns the batch's wait, once per batch (a batch mostly reads one file); the
         * batch lets go of its reads.
         */
        private void recordWaits(long nanos, int n) {
            DirectDevice last = null;
            for (int i = 0; i < n; i++) {
                DirectDevice device = batch[i].device;
                batch[i] = null;
                if (device != null && device != last) {
                    device.waited(nanos, n);
                    last = device;
                }
            }
        }

        private void fail(int from, int to, long result) {
            for (int i = from; i < to; i++) {
                batch[i].complete(result);
                batch[i] = null;
            }
        }

        @Override
        public long yields() {
            return yields;
        }

        @Override
        public void rescue() {
            for (Read r = pending.top(); r != null; r = r.below) {
                r.rescued = true;
                LockSupport.unpark(r.thread);
            }
        }

        @Override
        public void handle(Cqe cqe) {
            batch[(int) cqe.userData()].complete(cqe.res());
        }
    }
}
