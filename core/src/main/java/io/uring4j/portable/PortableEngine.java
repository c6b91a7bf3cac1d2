package io.uring4j.portable;

import io.uring4j.ring.Engine;
import io.uring4j.ring.FallbackEngine;
import io.uring4j.ring.abi.CqeLayout;
import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.ParamsLayout;
import io.uring4j.ring.abi.RegisterArgLayout;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqeLayout;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * io_uring's kernel side in Java: an {@link Engine} for hosts where the kernel refuses io_uring. Rings live in
 * memory this engine allocates, laid out as the kernel lays them out; {@link #enter} consumes SQEs and posts
 * CQEs with the kernel's memory ordering, so the ring API above runs unchanged.
 *
 * <p>Ring fds are fake: {@code 2^30 + n}. Linux never hands out an fd that high — {@code fs.nr_open}, the
 * ceiling of RLIMIT_NOFILE, is at most {@code 2^30 - 64} — so a ring fd cannot collide with a real one, and a
 * real system call given one fails with EBADF.
 */
public final class PortableEngine implements FallbackEngine {
    /** The first portable ring fd: every portable ring fd is at least this, every real fd below it. */
    public static final int FD_BASE = 1 << 30;
    private static final PortableEngine INSTANCE = new PortableEngine();

    /** Setup flags we honour; the rest are refused with EINVAL, as by a kernel that predates them. */
    private static final int SETUP_FLAGS = SetupFlags.CQSIZE | SetupFlags.CLAMP | SetupFlags.SUBMIT_ALL
            | SetupFlags.COOP_TASKRUN | SetupFlags.TASKRUN_FLAG | SetupFlags.NO_SQARRAY | SetupFlags.SQE128
            | SetupFlags.CQE32 | SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN | SetupFlags.R_DISABLED;
    static final int FEATURES = Features.SINGLE_MMAP | Features.NODROP | Features.SUBMIT_STABLE
            | Features.RW_CUR_POS | Features.EXT_ARG | Features.CQE_SKIP | Features.LINKED_FILE
            | Features.REG_REG_RING | Features.MIN_TIMEOUT;
    /** IORING_REGISTER_LAST as we know it: register opcodes from here on are EINVAL, as on an older kernel. */
    static final int REGISTER_LAST = RegisterOpcode.REGISTER_PBUF_STATUS + 1;
    private static final MemorySegment USER = PortableRing.USER;

    /** Rings by {@code fd - FD_BASE}; replaced whole under the monitor, read without a lock on every enter. */
    private volatile PortableRing[] rings = new PortableRing[16];

    private PortableEngine() {
    }

    /** The engine (one per JVM; its rings are independent). */
    public static PortableEngine instance() {
        return INSTANCE;
    }

    @Override
    public boolean supports(int opcode) {
        return OpDefs.of(opcode) != null;
    }

    @Override
    public boolean owns(int ringFd) {
        return ringFd >= FD_BASE;
    }

    @Override
    public String name() {
        return "portable";
    }

    @Override
    public int setup(int entries, MemorySegment params) {
        int flags = params.get(JAVA_INT, ParamsLayout.FLAGS);
        if ((flags & ~SETUP_FLAGS) != 0
                || ((flags & SetupFlags.TASKRUN_FLAG) != 0
                        && (flags & (SetupFlags.COOP_TASKRUN | SetupFlags.DEFER_TASKRUN)) == 0)
                || ((flags & SetupFlags.DEFER_TASKRUN) != 0 && (flags & SetupFlags.SINGLE_ISSUER) == 0)) {
            return -Errno.EINVAL;
        }
        boolean clamp = (flags & SetupFlags.CLAMP) != 0;
        if (entries <= 0 || (entries > ParamsLayout.MAX_ENTRIES && !clamp)) {
            return -Errno.EINVAL;
        }
        int sq = roundUp(Math.min(entries, ParamsLayout.MAX_ENTRIES));
        int cq = 2 * sq;
        if ((flags & SetupFlags.CQSIZE) != 0) {
            int asked = params.get(JAVA_INT, ParamsLayout.CQ_ENTRIES);
            if (asked <= 0 || (asked > ParamsLayout.MAX_CQ_ENTRIES && !clamp)) {
                return -Errno.EINVAL;
            }
            cq = roundUp(Math.min(asked, ParamsLayout.MAX_CQ_ENTRIES));
            if (cq < sq) {
                return -Errno.EINVAL;
            }
        }
        // The kernel's rings_size(): with CQE32 the whole of header + CQEs doubles (the CQEs start at 64 still).
        long ringBytes = (RingLayout.CQES + (long) cq * CqeLayout.SIZE)
                * ((flags & SetupFlags.CQE32) != 0 ? 2 : 1);
        int sqeSize = (int) ((flags & SetupFlags.SQE128) != 0 ? 2 * SqeLayout.SIZE : SqeLayout.SIZE);
        boolean sqArray = (flags & SetupFlags.NO_SQARRAY) == 0;
        long arrayOff = sqArray ? (ringBytes + 63) & -64 : -1;
        if (sqArray) {
            ringBytes = arrayOff + 4L * sq;
        }
        Arena arena = Arena.ofShared();
        MemorySegment mem;
        MemorySegment sqes;
        try {
            mem = arena.allocate(pages(ringBytes), 4096);
            sqes = arena.allocate(pages((long) sq * sqeSize), 4096);
        } catch (OutOfMemoryError e) {
            arena.close();
            return -Errno.ENOMEM;
        }
        mem.set(JAVA_INT, RingLayout.SQ_RING_MASK, sq - 1);
        mem.set(JAVA_INT, RingLayout.CQ_RING_MASK, cq - 1);
        mem.set(JAVA_INT, RingLayout.SQ_RING_ENTRIES, sq);
        mem.set(JAVA_INT, RingLayout.CQ_RING_ENTRIES, cq);
        fillParams(params, sq, cq, sqArray ? arrayOff : 0);
        synchronized (this) {
            PortableRing[] table = rings;
            int slot = 0;
            while (slot < table.length && table[slot] != null) {
                slot++;
            }
            if (slot == table.length) {
                table = java.util.Arrays.copyOf(table, table.length * 2);
            } else {
                table = table.clone();
            }
            table[slot] = new PortableRing(FD_BASE + slot, flags, sq, cq, arrayOff, arena, mem, sqes);
            rings = table;
            return FD_BASE + slot;
        }
    }

    private static void fillParams(MemorySegment p, int sq, int cq, long arrayOff) {
        p.set(JAVA_INT, ParamsLayout.SQ_ENTRIES, sq);
        p.set(JAVA_INT, ParamsLayout.CQ_ENTRIES, cq);
        p.set(JAVA_INT, ParamsLayout.FEATURES, FEATURES);
        long s = ParamsLayout.SQ_OFF;
        p.set(JAVA_INT, s + ParamsLayout.SQ_HEAD, RingLayout.SQ_HEAD);
        p.set(JAVA_INT, s + ParamsLayout.SQ_TAIL, RingLayout.SQ_TAIL);
        p.set(JAVA_INT, s + ParamsLayout.SQ_RING_MASK, RingLayout.SQ_RING_MASK);
        p.set(JAVA_INT, s + ParamsLayout.SQ_RING_ENTRIES, RingLayout.SQ_RING_ENTRIES);
        p.set(JAVA_INT, s + ParamsLayout.SQ_FLAGS, RingLayout.SQ_FLAGS);
        p.set(JAVA_INT, s + ParamsLayout.SQ_DROPPED, RingLayout.SQ_DROPPED);
        p.set(JAVA_INT, s + ParamsLayout.SQ_ARRAY, (int) arrayOff);
        long c = ParamsLayout.CQ_OFF;
        p.set(JAVA_INT, c + ParamsLayout.CQ_HEAD, RingLayout.CQ_HEAD);
        p.set(JAVA_INT, c + ParamsLayout.CQ_TAIL, RingLayout.CQ_TAIL);
        p.set(JAVA_INT, c + ParamsLayout.CQ_RING_MASK, RingLayout.CQ_RING_MASK);
        p.set(JAVA_INT, c + ParamsLayout.CQ_RING_ENTRIES, RingLayout.CQ_RING_ENTRIES);
        p.set(JAVA_INT, c + ParamsLayout.CQ_OVERFLOW, RingLayout.CQ_OVERFLOW);
        p.set(JAVA_INT, c + ParamsLayout.CQ_CQES, RingLayout.CQES);
        p.set(JAVA_INT, c + ParamsLayout.CQ_FLAGS, RingLayout.CQ_FLAGS);
    }

    private static int roundUp(int n) {
        return Integer.highestOneBit(Math.max(1, n) * 2 - 1);
    }

    private static long pages(long bytes) {
        return (bytes + 4095) & -4096L;
    }

    /** The portable ring with this fd, or null. */
    PortableRing ring(int fd) {
        PortableRing[] table = rings;
        int slot = fd - FD_BASE;
        return slot >= 0 && slot < table.length ? table[slot] : null;
    }

    @Override
    public MemorySegment map(int ringFd, long offset, long size, Arena arena) throws ErrnoException {
        PortableRing ring = ring(ringFd);
        MemorySegment region = ring == null ? null
                : offset == ParamsLayout.OFF_SQ_RING || offset == ParamsLayout.OFF_CQ_RING ? ring.mem
                : offset == ParamsLayout.OFF_SQES ? ring.sqes : null;
        if (region == null || size > region.byteSize()) {
            throw new ErrnoException("map(portable ring region 0x" + Long.toHexString(offset) + ", " + size
                    + " bytes)", ring == null ? -Errno.EBADF : -Errno.EINVAL);
        }
        return MemorySegment.ofAddress(region.address()).reinterpret(size, arena, null);
    }

    @Override
    public int enter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        boolean registered = (flags & EnterFlags.REGISTERED_RING) != 0;
        PortableRing ring = registered ? RingFds.ring(ringFd) : ring(ringFd);
        if (ring == null) {
            return registered ? RingFds.lookupError(ringFd) : -Errno.EBADF;
        }
        return ring.enter(toSubmit, minComplete, flags, arg, argSize);
    }

    /**
     * The kernel's io_uring_register: the ring (by fd, or by registered index with USE_REGISTERED_RING), the
     * issuer check (EEXIST), the restrictions (EACCES), then the opcode. Calls that change how the ring runs
     * are handled here; those that wait (SYNC_CANCEL) or touch only the calling thread (RING_FDS) run without
     * the ring lock, the table registrations ({@link FileTable}, {@link BufferTable}, {@link BufRings}) under it.
     */
    @Override
    public int register(int ringFd, int opcode, long arg, int nrArgs) {
        boolean viaIndex = (opcode & RegisterOpcode.USE_REGISTERED_RING) != 0;
        int op = opcode & ~RegisterOpcode.USE_REGISTERED_RING;
        if (op >= REGISTER_LAST) {
            return -Errno.EINVAL;
        }
        PortableRing ring = viaIndex ? RingFds.ring(ringFd) : ring(ringFd);
        if (ring == null) {
            return viaIndex ? RingFds.lookupError(ringFd) : -Errno.EBADF;
        }
        if (!ring.mayRegister()) {
            return -Errno.EEXIST;
        }
        Restrictions restrictions = ring.restrictions();
        if (restrictions != null && !restrictions.allowsRegister(op)) {
            return -Errno.EACCES;
        }
        switch (op) {
            case RegisterOpcode.REGISTER_RING_FDS:
                return RingFds.register(arg, nrArgs);
            case RegisterOpcode.UNREGISTER_RING_FDS:
                return RingFds.unregister(arg, nrArgs);
            case RegisterOpcode.REGISTER_SYNC_CANCEL:
                return arg == 0 || nrArgs != 1 ? -Errno.EINVAL : Cancels.sync(ring, arg);
            case RegisterOpcode.REGISTER_IOWQ_MAX_WORKERS:
                return arg == 0 || nrArgs != 2 ? -Errno.EINVAL : ring.wq.maxWorkers(arg);
            default:
                break;
        }
        ring.lock.lock();
        try {
            return switch (op) {
                case RegisterOpcode.REGISTER_RESTRICTIONS -> ring.restrict(arg, nrArgs);
                case RegisterOpcode.REGISTER_ENABLE_RINGS -> arg != 0 || nrArgs != 0 ? -Errno.EINVAL : ring.enable();
                case RegisterOpcode.REGISTER_PERSONALITY -> arg != 0 || nrArgs != 0 ? -Errno.EINVAL
                        : ring.personalities.register();
                case RegisterOpcode.UNREGISTER_PERSONALITY -> arg != 0 ? -Errno.EINVAL
                        : ring.personalities.unregister(nrArgs);
                case RegisterOpcode.REGISTER_EVENTFD, RegisterOpcode.REGISTER_EVENTFD_ASYNC -> {
                    int ret = ring.eventfd.register(arg, nrArgs, op == RegisterOpcode.REGISTER_EVENTFD_ASYNC);
                    if (ret == 0) {
                        ring.eventfdRegistered();
                    }
                    yield ret;
                }
                default -> registerTable(ring, op, arg, nrArgs);
            };
        } finally {
            ring.lock.unlock();
        }
    }

    /**
     * The table registrations: files, buffers, provided-buffer rings, and what answers without a ring (probe,
     * UNREGISTER_EVENTFD). Opcodes not listed answer -EINVAL, as on a kernel that predates them. Under the ring
     * lock.
     */
    private static int registerTable(PortableRing ring, int op, long arg, int nr) {
        FileTable files = ring.files;
        BufferTable buffers = ring.buffers;
        return switch (op) {
            case RegisterOpcode.REGISTER_FILES -> files.register(arg, nr, false);
            case RegisterOpcode.REGISTER_FILES2, RegisterOpcode.REGISTER_BUFFERS2 -> registerResources(ring, op, arg, nr);
            case RegisterOpcode.UNREGISTER_FILES -> files.unregister();
            case RegisterOpcode.REGISTER_FILES_UPDATE -> arg == 0 ? -Errno.EFAULT
                    : files.updateFiles(USER.get(JAVA_INT, arg + RegisterArgLayout.RSRC_UPDATE_OFFSET),
                            USER.get(JAVA_LONG, arg + RegisterArgLayout.RSRC_UPDATE_DATA), nr);
            case RegisterOpcode.REGISTER_FILES_UPDATE2 -> !isUpdate2(arg, nr)
                    || USER.get(JAVA_LONG, arg + RegisterArgLayout.RSRC_UPDATE2_TAGS) != 0 ? -Errno.EINVAL
                    : files.updateFiles(USER.get(JAVA_INT, arg + RegisterArgLayout.RSRC_UPDATE2_OFFSET),
                            USER.get(JAVA_LONG, arg + RegisterArgLayout.RSRC_UPDATE2_DATA),
                            USER.get(JAVA_INT, arg + RegisterArgLayout.RSRC_UPDATE2_NR));
            case RegisterOpcode.REGISTER_BUFFERS -> buffers.register(arg, nr, false);
            case RegisterOpcode.UNREGISTER_BUFFERS -> buffers.unregister();
            case RegisterOpcode.REGISTER_BUFFERS_UPDATE -> !isUpdate2(arg, nr)
                    || USER.get(JAVA_LONG, arg + RegisterArgLayout.RSRC_UPDATE2_TAGS) != 0 ? -Errno.EINVAL
                    : buffers.update(USER.get(JAVA_INT, arg + RegisterArgLayout.RSRC_UPDATE2_OFFSET),
                            USER.get(JAVA_LONG, arg + RegisterArgLayout.RSRC_UPDATE2_DATA),
                            USER.get(JAVA_INT, arg + RegisterArgLayout.RSRC_UPDATE2_NR));
            case RegisterOpcode.UNREGISTER_EVENTFD -> ring.eventfd.unregister();
            case RegisterOpcode.REGISTER_PROBE -> OpDefs.probe(arg, nr);
            case RegisterOpcode.REGISTER_PBUF_RING -> ring.bufRings.register(arg, nr);
            case RegisterOpcode.UNREGISTER_PBUF_RING -> ring.bufRings.unregister(arg, nr);
            case RegisterOpcode.REGISTER_PBUF_STATUS -> ring.bufRings.status(arg, nr);
            case RegisterOpcode.REGISTER_FILE_ALLOC_RANGE -> files.allocRange(arg, nr);
            default -> -Errno.EINVAL;
        };
    }

    /** An update2 call passes its struct's size as {@code nr}. */
    private static boolean isUpdate2(long arg, int nr) {
        return nr == RegisterArgLayout.RSRC_UPDATE2_SIZE && arg != 0;
    }

    /**
     * {@code struct io_uring_rsrc_register}: files or buffers, maybe sparse; {@code size} is the struct's. Tags
     * are refused (EINVAL): we post no CQE when a tagged slot is let go, and ignoring them would hide that.
     */
    private static int registerResources(PortableRing ring, int op, long arg, int size) {
        if (size != RegisterArgLayout.RSRC_REGISTER_SIZE || arg == 0) {
            return -Errno.EINVAL;
        }
        int nr = USER.get(JAVA_INT, arg + RegisterArgLayout.RSRC_REGISTER_NR);
        int flags = USER.get(JAVA_INT, arg + RegisterArgLayout.RSRC_REGISTER_FLAGS);
        long data = USER.get(JAVA_LONG, arg + RegisterArgLayout.RSRC_REGISTER_DATA);
        int sparseFlag = RegisterArgLayout.RSRC_REGISTER_SPARSE;
        long tags = USER.get(JAVA_LONG, arg + RegisterArgLayout.RSRC_REGISTER_TAGS);
        if ((flags & ~sparseFlag) != 0 || ((flags & sparseFlag) != 0 && data != 0) || tags != 0) {
            return -Errno.EINVAL;
        }
        boolean sparse = (flags & sparseFlag) != 0;
        return op == RegisterOpcode.REGISTER_FILES2 ? ring.files.register(data, nr, sparse)
                : ring.buffers.register(data, nr, sparse);
    }

    @Override
    public int close(int ringFd) {
        PortableRing ring;
        synchronized (this) {
            ring = ring(ringFd);
            if (ring == null) {
                return -Errno.EBADF;
            }
            PortableRing[] table = rings.clone();
            table[ringFd - FD_BASE] = null;
            rings = table;
        }
        ring.close();
        return 0;
    }
}
