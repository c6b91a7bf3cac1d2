package io.uring4j.ring;

import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.ParamsLayout;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A test-only {@link Engine} that delegates to a real one (kernel or portable) and injects the faults a kernel
 * under pressure produces, at the system-call seam, so that everything above the ring meets them unchanged:
 * <ul>
 *   <li><b>io_uring_enter fails</b> with EINTR, EAGAIN, EBUSY or ENOMEM before anything reaches the engine: the
 *       SQEs stay in the SQ, as when the kernel fails its first request allocation or a signal ends a wait.</li>
 *   <li><b>A request fails</b> with an errno in its CQE: its SQE is turned into a NOP with
 *       {@code IORING_NOP_INJECT_RESULT} (same user_data, same link flags) before the engine reads it. The engine
 *       then never performs the request — a stream loses no byte, a buffer is not touched, a link breaks — exactly
 *       as when the kernel fails a request before issuing it. (Rewriting a CQE after the fact would not be
 *       faithful: the data a failed read "did not" read would be gone.)</li>
 *   <li><b>A transfer comes up short</b>: a READ, WRITE, RECV, SEND (or vectored) or SPLICE SQE's length is cut
 *       before the engine reads it, so the engine really moves fewer bytes and the layers above must continue. A
 *       length of whole 4 KiB blocks is cut to whole blocks: it may be an O_DIRECT transfer's.</li>
 * </ul>
 * CQ overflow needs no injection: give the ring a tiny CQ ({@code cqEntries}) and more requests in flight.
 *
 * <p>Faults come from a seeded schedule — the fate of the n-th enter and of the n-th SQE of the k-th ring set up
 * is a hash of (seed, k, n), so the same submissions meet the same faults however enters batch them — or from a
 * script ({@link #failEnters}, {@link #failRequests}) that takes precedence. Only opcodes that fail this way in the
 * kernel are faulted: never a cancel, a close (a failed close would keep its fd, which Linux never does), a
 * timeout or a link timeout. Not for SQPOLL rings, whose SQEs the kernel reads concurrently.
 */
public final class FaultyEngine implements Engine {
    /** Per-mille rates and errnos of the seeded schedule. */
    public record Schedule(long seed, int enterFailures, int[] enterErrnos, int requestFailures, int[] requestErrnos,
                           int shortTransfers) {
        /** No random faults: only what is scripted. */
        public static Schedule none() {
            return new Schedule(0, 0, new int[0], 0, new int[0], 0);
        }

        /** Every kind of fault, each at {@code perMille}. */
        public static Schedule everything(long seed, int perMille) {
            return new Schedule(seed, perMille, new int[] {Errno.EINTR, Errno.EAGAIN, Errno.EBUSY, Errno.ENOMEM},
                    perMille, new int[] {Errno.ENOMEM, Errno.EAGAIN, Errno.EBADF}, perMille);
        }
    }

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    /** The largest O_DIRECT alignment a file system asks: a transfer of whole ones is cut to whole ones. */
    private static final int BLOCK = 4096;
    private static final int LINK_FLAGS = SqeFlags.IO_LINK | SqeFlags.IO_HARDLINK | SqeFlags.IO_DRAIN;

    private final Engine delegate;
    private final Schedule schedule;
    private final AtomicInteger ringsSetUp = new AtomicInteger();
    private final Map<Integer, RingState> byFd = new ConcurrentHashMap<>();
    /** Registered ring indexes are per thread, as the kernel keeps them in the task's io_uring context. */
    private final ThreadLocal<Map<Integer, RingState>> byIndex = ThreadLocal.withInitial(HashMap::new);
    private final ArrayDeque<Integer> scriptedEnters = new ArrayDeque<>();
    private final ArrayDeque<Integer> scriptedRequests = new ArrayDeque<>();

    private final AtomicLong enterFailures = new AtomicLong();
    private volatile boolean ignoreCancels;
    private final AtomicInteger refusals = new AtomicInteger();
    private final AtomicLong requestFailures = new AtomicLong();
    private final AtomicLong shortTransfers = new AtomicLong();

    private FaultyEngine(Engine delegate, Schedule schedule) {
        this.delegate = delegate;
        this.schedule = schedule;
    }

    public static FaultyEngine wrap(Engine delegate, Schedule schedule) {
        return new FaultyEngine(delegate, schedule);
    }

    /**
     * From now on every ASYNC_CANCEL finds nothing (-ENOENT) and ends nothing: the request it names stays in flight,
     * as one the kernel cannot stop would.
     */
    public void ignoreCancels() {
        ignoreCancels = true;
    }

    /**
     * The next {@code n} POLL_REMOVE or ASYNC_CANCEL SQEs are answered EALREADY and end nothing, as the kernel
     * answers a removal that finds the poll being run elsewhere: the request stays in flight, to be removed again.
     */
    public void refuseRemovals(int n) {
        refusals.set(n);
    }

    /** The next enters (of any ring of this engine) fail with these errnos, in order, before the schedule's. */
    public void failEnters(int... errnos) {
        synchronized (scriptedEnters) {
            for (int errno : errnos) {
                scriptedEnters.add(errno);
            }
        }
    }

    /** The next faultable requests (of any ring) fail with these errnos, in order, before the schedule's. */
    public void failRequests(int... errnos) {
        synchronized (scriptedRequests) {
            for (int errno : errnos) {
                scriptedRequests.add(errno);
            }
        }
    }

    public long enterFailures() {
        return enterFailures.get();
    }

    public long requestFailures() {
        return requestFailures.get();
    }

    public long shortTransfers() {
        return shortTransfers.get();
    }

    /** The faults injected into requests: failures and short transfers. */
    public long requestFaults() {
        return requestFailures() + shortTransfers();
    }

    /** Every fault injected: into requests and into io_uring_enter. */
    public long faults() {
        return enterFailures() + requestFaults();
    }

    @Override
    public String toString() {
        return "faulty " + delegate.name() + " (seed " + schedule.seed() + ": " + enterFailures + " enters failed, "
                + requestFailures + " requests failed, " + shortTransfers + " transfers cut)";
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public int setup(int entries, MemorySegment params) {
        int fd = delegate.setup(entries, params);
        if (fd >= 0) {
            Engine owner = delegate instanceof AutoEngine auto ? auto.owner(fd) : delegate;
            byFd.put(fd, new RingState(owner, ringsSetUp.getAndIncrement(), params));
        }
        return fd;
    }

    @Override
    public MemorySegment map(int ringFd, long offset, long size, Arena arena) throws ErrnoException {
        RingState ring = byFd.get(ringFd);
        MemorySegment region = (ring == null ? delegate : ring.engine).map(ringFd, offset, size, arena);
        if (ring != null && offset == ParamsLayout.OFF_SQ_RING) {
            ring.sqRing = region;
        } else if (ring != null && offset == ParamsLayout.OFF_SQES) {
            ring.sqes = region;
        }
        return region;
    }

    @Override
    public int enter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        RingState ring = (flags & EnterFlags.REGISTERED_RING) != 0 ? byIndex.get().get(ringFd) : byFd.get(ringFd);
        if (ring == null) {
            return delegate.enter(ringFd, toSubmit, minComplete, flags, arg, argSize);
        }
        int errno = enterFault(ring);
        if (errno != 0) {
            enterFailures.incrementAndGet();
            return -errno;
        }
        ring.rewritePending(toSubmit);
        return ring.engine.enter(ringFd, toSubmit, minComplete, flags, arg, argSize);
    }

    @Override
    public int register(int ringFd, int opcode, long arg, int nrArgs) {
        boolean viaIndex = (opcode & RegisterOpcode.USE_REGISTERED_RING) != 0;
        RingState ring = viaIndex ? byIndex.get().get(ringFd) : byFd.get(ringFd);
        Engine engine = ring == null ? delegate : ring.engine;
        int ret = engine.register(ringFd, opcode, arg, nrArgs);
        int op = opcode & ~RegisterOpcode.USE_REGISTERED_RING;
        if (ret >= 0 && arg != 0 && (op == RegisterOpcode.REGISTER_RING_FDS || op == RegisterOpcode.UNREGISTER_RING_FDS)) {
            // struct io_uring_rsrc_update {u32 offset; u32 resv; u64 data}: the kernel writes the index it chose
            MemorySegment update = MemorySegment.ofAddress(arg).reinterpret(16L * nrArgs);
            for (int i = 0; i < nrArgs; i++) {
                int index = update.get(JAVA_INT, 16L * i);
                if (op == RegisterOpcode.UNREGISTER_RING_FDS) {
                    byIndex.get().remove(index);
                } else if (ring != null) {
                    byIndex.get().put(index, ring);
                }
            }
        }
        return ret;
    }

    @Override
    public int close(int ringFd) {
        RingState ring = byFd.remove(ringFd);
        return (ring == null ? delegate : ring.engine).close(ringFd);
    }

    /** The errno this enter fails with, or 0. */
    private int enterFault(RingState ring) {
        synchronized (scriptedEnters) {
            if (!scriptedEnters.isEmpty()) {
                return scriptedEnters.poll();
            }
        }
        long h = hash(ring.number, 2 * ring.enters++);
        int errno = pick(h, schedule.enterFailures(), schedule.enterErrnos());
        // The portable engine's EINTR is a Java interrupt it consumed (a wait hands it back as the thread's status):
        // one drawn at random would read as an interrupt nobody made.
        return errno == Errno.EINTR && ring.engine.name().equals("portable") ? 0 : errno;
    }

    /** The errno this request fails with, or 0. */
    private int requestFault(long h) {
        synchronized (scriptedRequests) {
            if (!scriptedRequests.isEmpty()) {
                return scriptedRequests.poll();
            }
        }
        return pick(h, schedule.requestFailures(), schedule.requestErrnos());
    }

    private static int pick(long h, int perMille, int[] errnos) {
        if (errnos.length == 0 || Long.remainderUnsigned(h, 1000) >= perMille) {
            return 0;
        }
        return errnos[(int) Long.remainderUnsigned(h >>> 20, errnos.length)];
    }

    /** SplitMix64 of (seed, ring, n): the same draw for the same request, whatever the timing. */
    private long hash(int ring, long n) {
        long z = schedule.seed() + GOLDEN * (1 + ring) + n * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** One ring: where its SQ lives, and how far its SQEs have been looked at. Touched by its issuer only. */
    private final class RingState {
        final Engine engine;
        final int number;
        final long kHead;
        final long kTail;
        final long kArray;
        final long kMask;
        final int sqeSize;
        final boolean faultable;
        MemorySegment sqRing;
        MemorySegment sqes;
        long enters;
        long sqesSeen;
        /** The next SQ position to look at: an SQE is faulted at most once, however often enter is retried. */
        int next;
        boolean started;

        RingState(Engine engine, int number, MemorySegment params) {
            this.engine = engine;
            this.number = number;
            int setupFlags = params.get(JAVA_INT, ParamsLayout.FLAGS);
            this.kHead = sqOffset(params, ParamsLayout.SQ_HEAD);
            this.kTail = sqOffset(params, ParamsLayout.SQ_TAIL);
            this.kArray = (setupFlags & SetupFlags.NO_SQARRAY) != 0 ? -1 : sqOffset(params, ParamsLayout.SQ_ARRAY);
            this.kMask = sqOffset(params, ParamsLayout.SQ_RING_MASK);
            this.sqeSize = (setupFlags & SetupFlags.SQE128) != 0 ? 128 : 64;
            this.faultable = (setupFlags & (SetupFlags.SQPOLL | SetupFlags.NO_MMAP)) == 0;
        }

        /** Faults the SQEs the engine is about to consume: {@code toSubmit} from the kernel's head at most. */
        void rewritePending(int toSubmit) {
            if (!faultable || sqRing == null || sqes == null || toSubmit <= 0) {
                return;
            }
            int head = Barriers.getAcquire(sqRing, kHead);
            int tail = Barriers.getAcquire(sqRing, kTail);
            if (!started || next - head < 0) {
                next = head;
                started = true;
            }
            int mask = sqRing.get(JAVA_INT, kMask);
            int end = head + Math.min(toSubmit, tail - head);
            for (; next - end < 0; next++) {
                int slot = kArray < 0 ? next & mask : sqRing.get(JAVA_INT, kArray + 4L * (next & mask));
                fault(new Sqe(sqes.asSlice((long) slot * sqeSize, sqeSize), slot));
            }
        }

        private void fault(Sqe sqe) {
            long h = hash(number, 2 * sqesSeen++ + 1);
            byte opcode = sqe.opcode();
            if ((opcode == Opcode.POLL_REMOVE || opcode == Opcode.ASYNC_CANCEL)
                    && refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                long userData = sqe.userData();
                int links = sqe.flags() & LINK_FLAGS;
                sqe.prepNop(-Errno.EALREADY).flags(links).userData(userData);
                return;
            }
            if (ignoreCancels && opcode == Opcode.ASYNC_CANCEL) {
                long userData = sqe.userData();
                int links = sqe.flags() & LINK_FLAGS;
                sqe.prepNop(-Errno.ENOENT).flags(links).userData(userData);
                return;
            }
            if (!failsInKernel(opcode)) {
                return;
            }
            int errno = requestFault(h);
            if (errno != 0) {
                long userData = sqe.userData();
                int links = sqe.flags() & LINK_FLAGS;
                sqe.prepNop(-errno).flags(links).userData(userData);
                requestFailures.incrementAndGet();
                return;
            }
            int len = sqe.len();
            if (len > 1 && cuttable(sqe) && Long.remainderUnsigned(h >>> 32, 1000) < schedule.shortTransfers()) {
                // A length of whole blocks may be an O_DIRECT transfer's, which the kernel refuses (EINVAL) cut
                // elsewhere: it is cut to whole blocks, as the kernel's own short direct transfers are.
                if (len % BLOCK == 0) {
                    if (len > BLOCK) {
                        sqe.len(BLOCK * (1 + (int) Long.remainderUnsigned(h >>> 10, len / BLOCK - 1)));
                        shortTransfers.incrementAndGet();
                    }
                } else {
                    sqe.len(1 + (int) Long.remainderUnsigned(h >>> 10, len - 1));
                    shortTransfers.incrementAndGet();
                }
            }
        }
    }

    private static long sqOffset(MemorySegment params, long field) {
        return Integer.toUnsignedLong(params.get(JAVA_INT, ParamsLayout.SQ_OFF + field));
    }

    /** Opcodes the kernel can fail with ENOMEM, EAGAIN or EBADF before doing anything. */
    private static boolean failsInKernel(byte opcode) {
        return switch (opcode) {
            case Opcode.NOP, Opcode.READ, Opcode.WRITE, Opcode.READV, Opcode.WRITEV, Opcode.READ_FIXED,
                 Opcode.WRITE_FIXED, Opcode.RECV, Opcode.SEND, Opcode.RECVMSG, Opcode.SENDMSG, Opcode.ACCEPT,
                 Opcode.CONNECT, Opcode.OPENAT, Opcode.FSYNC, Opcode.STATX, Opcode.POLL_ADD, Opcode.SPLICE -> true;
            default -> false;
        };
    }

    /**
     * A single-shot transfer whose length is a byte (or iovec) count the engine may come short of: not one that
     * picks a provided buffer, not a multishot receive.
     */
    private static boolean cuttable(Sqe sqe) {
        if ((sqe.flags() & SqeFlags.BUFFER_SELECT) != 0) {
            return false;
        }
        return switch (sqe.opcode()) {
            case Opcode.READ, Opcode.WRITE, Opcode.READV, Opcode.WRITEV, Opcode.READ_FIXED, Opcode.WRITE_FIXED,
                 Opcode.SEND, Opcode.SPLICE -> true;
            case Opcode.RECV -> (sqe.ioprio() & OpFlags.SendRecv.RECV_MULTISHOT) == 0;
            default -> false;
        };
    }
}
