package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.ParamsLayout;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Sets up an {@link IoUring}: sizes, every setup flag, and the engine. Like liburing, {@link #build()} tries
 * {@code NO_SQARRAY} first and quietly drops it if the kernel predates it (EINVAL); every other flag is taken
 * as asked, and a refusal is reported with the errno and what to do.
 */
public final class IoUringBuilder {

    private Engine engine = Engine.configured();
    private int entries = 128;
    private int cqEntries;
    private int flags;
    private int sqThreadCpu;
    private int sqThreadIdleMillis;
    private int attachWqFd = -1;

    IoUringBuilder() {
    }

    /** SQ entries (rounded up to a power of two by the kernel); 128 by default. */
    public IoUringBuilder entries(int entries) {
        this.entries = entries;
        return this;
    }

    /** CQ entries instead of 2 × SQ ({@code IORING_SETUP_CQSIZE}). */
    public IoUringBuilder cqEntries(int cqEntries) {
        this.cqEntries = cqEntries;
        this.flags |= SetupFlags.CQSIZE;
        return this;
    }

    /** Adds raw {@code IORING_SETUP_*} flags. */
    public IoUringBuilder flags(int setupFlags) {
        this.flags |= setupFlags;
        return this;
    }

    /** Busy-polled completions (O_DIRECT I/O on pollable block devices). */
    public IoUringBuilder iopoll() {
        return flags(SetupFlags.IOPOLL);
    }

    /** IOPOLL that sleeps before polling (6.13). */
    public IoUringBuilder hybridIopoll() {
        return flags(SetupFlags.IOPOLL | SetupFlags.HYBRID_IOPOLL);
    }

    /**
     * 16- and 32-byte CQEs in one CQ (6.18): the CQ steps over F_32 entries and F_SKIP padding itself, so big
     * CQEs (zero-copy receive, NOP with CQE32) need no CQE32 ring.
     */
    public IoUringBuilder cqeMixed() {
        return flags(SetupFlags.CQE_MIXED);
    }

    /** A kernel thread polls the SQ; it sleeps after {@code idleMillis} without work. */
    public IoUringBuilder sqpoll(int idleMillis) {
        this.sqThreadIdleMillis = idleMillis;
        return flags(SetupFlags.SQPOLL);
    }

    /** Pins the SQPOLL thread to {@code cpu} ({@code IORING_SETUP_SQ_AFF}). */
    public IoUringBuilder sqThreadCpu(int cpu) {
        this.sqThreadCpu = cpu;
        return flags(SetupFlags.SQ_AFF);
    }

    /** Clamps sizes to the kernel's maximum instead of failing. */
    public IoUringBuilder clamp() {
        return flags(SetupFlags.CLAMP);
    }

    /** Shares the io-wq workers (and SQPOLL thread) of {@code other}, which needs an fd (not REGISTERED_FD_ONLY). */
    public IoUringBuilder attachWq(IoUring other) {
        if (other.fd() < 0) {
            throw new IllegalArgumentException("ATTACH_WQ needs the other ring's fd; a REGISTERED_FD_ONLY ring has none");
        }
        this.attachWqFd = other.fd();
        return flags(SetupFlags.ATTACH_WQ);
    }

    /** Starts disabled: register restrictions, then {@link Registrar#enableRings()}. */
    public IoUringBuilder disabled() {
        return flags(SetupFlags.R_DISABLED);
    }

    /** Keeps submitting a batch past an SQE that fails at submit time. */
    public IoUringBuilder submitAll() {
        return flags(SetupFlags.SUBMIT_ALL);
    }

    /** No interrupt to run task work: it runs at the next kernel transition. */
    public IoUringBuilder coopTaskrun() {
        return flags(SetupFlags.COOP_TASKRUN);
    }

    /** The kernel flags pending task work in the SQ flags ({@code IORING_SQ_TASKRUN}). */
    public IoUringBuilder taskrunFlag() {
        return flags(SetupFlags.TASKRUN_FLAG);
    }

    public IoUringBuilder sqe128() {
        return flags(SetupFlags.SQE128);
    }

    public IoUringBuilder cqe32() {
        return flags(SetupFlags.CQE32);
    }

    /** Only the creating thread (or the one that enables an R_DISABLED ring) may submit. */
    public IoUringBuilder singleIssuer() {
        return flags(SetupFlags.SINGLE_ISSUER);
    }

    /** Task work runs only when the issuer waits; implies SINGLE_ISSUER. */
    public IoUringBuilder deferTaskrun() {
        return flags(SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN);
    }

    /** Ring memory allocated here instead of mmap'd from the kernel (6.5). */
    public IoUringBuilder noMmap() {
        return flags(SetupFlags.NO_MMAP);
    }

    /** No ring fd at all: only a registered-ring index (6.5); implies NO_MMAP. */
    public IoUringBuilder registeredFdOnly() {
        return flags(SetupFlags.NO_MMAP | SetupFlags.REGISTERED_FD_ONLY);
    }

    /** Requires NO_SQARRAY (otherwise it is tried and dropped if the kernel lacks it). */
    public IoUringBuilder noSqArray() {
        return flags(SetupFlags.NO_SQARRAY);
    }

    /**
     * The engine implementing the kernel side; {@link Engine#configured()} by default: {@link Engine#auto()}, the
     * kernel's io_uring unless the kernel refuses it.
     */
    public IoUringBuilder engine(Engine engine) {
        this.engine = java.util.Objects.requireNonNull(engine);
        return this;
    }

    /** Creates the ring. */
    public IoUring build() throws ErrnoException {
        if (entries <= 0) {
            throw new IllegalArgumentException("entries must be positive: " + entries);
        }
        if ((flags & SetupFlags.CQSIZE) != 0 && cqEntries <= 0) {
            throw new IllegalArgumentException("cqEntries must be positive: " + cqEntries);
        }
        if ((flags & SetupFlags.NO_SQARRAY) != 0) {
            return setup(flags);
        }
        try {
            return setup(flags | SetupFlags.NO_SQARRAY);
        } catch (ErrnoException e) {
            if (e.errno() != Errno.EINVAL) {
                throw e;
            }
            return setup(flags);
        }
    }

    private IoUring setup(int setupFlags) throws ErrnoException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment params = arena.allocate(ParamsLayout.SIZE, 8);
            params.set(JAVA_INT, ParamsLayout.FLAGS, setupFlags);
            params.set(JAVA_INT, ParamsLayout.SQ_THREAD_CPU, sqThreadCpu);
            params.set(JAVA_INT, ParamsLayout.SQ_THREAD_IDLE, sqThreadIdleMillis);
            params.set(JAVA_INT, ParamsLayout.CQ_ENTRIES, cqEntries);
            params.set(JAVA_INT, ParamsLayout.WQ_FD, attachWqFd);
            boolean noMmap = (setupFlags & SetupFlags.NO_MMAP) != 0;
            MemorySegment appSqes = null;
            MemorySegment appRings = null;
            if (noMmap) {
                appSqes = PageMemory.allocate((long) sqEntriesFor(setupFlags) * sqeSize(setupFlags), arena,
                        "NO_MMAP SQE array");
                appRings = PageMemory.allocate(ringBytesFor(setupFlags), arena, "NO_MMAP rings");
                params.set(JAVA_LONG, ParamsLayout.SQ_OFF + ParamsLayout.SQ_USER_ADDR, appSqes.address());
                params.set(JAVA_LONG, ParamsLayout.CQ_OFF + ParamsLayout.CQ_USER_ADDR, appRings.address());
            }
            int fd = engine.setup(entries, params);
            if (fd < 0) {
                throw setupFailure(fd, setupFlags);
            }
            // Engine.auto() chose one engine for this ring: the ring talks to that one directly.
            Engine owner = engine instanceof AutoEngine auto ? auto.owner(fd) : engine;
            boolean indexOnly = (setupFlags & SetupFlags.REGISTERED_FD_ONLY) != 0;
            try {
                if ((setupFlags & SetupFlags.SQ_REWIND) != 0) {
                    // the kernel would read every batch from SQE 0; our SQ hands out slots round the ring
                    throw new ErrnoException("io_uring_setup", Errno.EOPNOTSUPP, "the kernel accepted SQ_REWIND, but"
                            + " uring4j's submission queue does not implement it: set up the ring without it");
                }
                if (noMmap) {
                    fillSqArray(appRings, params);
                    return new IoUring(owner, fd, params, arena, appRings, appRings, appSqes, indexOnly);
                }
                return mapped(owner, fd, params, arena);
            } catch (Throwable t) {
                if (indexOnly) {
                    Registrar.unregisterRingIndex(owner, fd);      // the index is the ring's only reference
                } else {
                    owner.close(fd);
                }
                throw t;
            }
        } catch (Throwable t) {
            arena.close();
            throw t;
        }
    }

    private static IoUring mapped(Engine engine, int fd, MemorySegment params, Arena arena) throws ErrnoException {
        Mapped m = map(engine, fd, params, arena);
        return new IoUring(engine, fd, params, arena, m.sqRing(), m.cqRing(), m.sqes(), false);
    }

    /** A kernel-allocated ring's mappings: SQ ring, CQ ring (the same mapping with FEAT_SINGLE_MMAP), SQE array. */
    record Mapped(MemorySegment sqRing, MemorySegment cqRing, MemorySegment sqes) {
    }

    /**
     * mmaps the rings sized from the params (flags, features, entries and offsets), into {@code arena}, and fills
     * the SQ array: at setup and after a resize.
     */
    static Mapped map(Engine engine, int fd, MemorySegment params, Arena arena) throws ErrnoException {
        int setupFlags = params.get(JAVA_INT, ParamsLayout.FLAGS);
        int sqEntries = params.get(JAVA_INT, ParamsLayout.SQ_ENTRIES);
        int cqEntries = params.get(JAVA_INT, ParamsLayout.CQ_ENTRIES);
        int features = params.get(JAVA_INT, ParamsLayout.FEATURES);
        long arrayOff = Integer.toUnsignedLong(params.get(JAVA_INT, ParamsLayout.SQ_OFF + ParamsLayout.SQ_ARRAY));
        long cqesOff = Integer.toUnsignedLong(params.get(JAVA_INT, ParamsLayout.CQ_OFF + ParamsLayout.CQ_CQES));
        long sqRingSize = arrayOff + 4L * sqEntries;
        long cqRingSize = cqesOff + (long) cqEntries * cqeSize(setupFlags);
        MemorySegment sqRing;
        MemorySegment cqRing;
        if ((features & Features.SINGLE_MMAP) != 0) {
            sqRing = cqRing = engine.map(fd, ParamsLayout.OFF_SQ_RING, Math.max(sqRingSize, cqRingSize), arena);
        } else {
            sqRing = engine.map(fd, ParamsLayout.OFF_SQ_RING, sqRingSize, arena);
            cqRing = engine.map(fd, ParamsLayout.OFF_CQ_RING, cqRingSize, arena);
        }
        MemorySegment sqes = engine.map(fd, ParamsLayout.OFF_SQES, (long) sqEntries * sqeSize(setupFlags), arena);
        fillSqArray(sqRing, params);
        return new Mapped(sqRing, cqRing, sqes);
    }

    /**
     * Without NO_SQARRAY the kernel reads SQE indexes from the SQ array: fill it with the identity map once, so
     * slot i always names SQE i and submitting is only the tail store. Needed for kernel-mapped and NO_MMAP
     * (app-allocated, zeroed) rings alike.
     */
    private static void fillSqArray(MemorySegment sqRing, MemorySegment params) {
        if ((params.get(JAVA_INT, ParamsLayout.FLAGS) & SetupFlags.NO_SQARRAY) != 0) {
            return;
        }
        int sqEntries = params.get(JAVA_INT, ParamsLayout.SQ_ENTRIES);
        long arrayOff = Integer.toUnsignedLong(params.get(JAVA_INT, ParamsLayout.SQ_OFF + ParamsLayout.SQ_ARRAY));
        for (int i = 0; i < sqEntries; i++) {
            sqRing.set(JAVA_INT, arrayOff + 4L * i, i);
        }
    }

    private int sqEntriesFor(int setupFlags) {
        int n = (setupFlags & SetupFlags.CLAMP) != 0 ? Math.min(entries, ParamsLayout.MAX_ENTRIES) : entries;
        return Integer.highestOneBit(Math.max(1, n) * 2 - 1);
    }

    /**
     * The kernel's rings_size(): the 64-byte {@code struct io_rings} header and 16-byte CQEs, the whole doubled
     * for CQE32 (header included, which is why the SQ array of an SQE128|CQE32 ring with 16 CQEs sits at 640),
     * then the SQ array at the next cache line.
     */
    private long ringBytesFor(int setupFlags) {
        int sq = sqEntriesFor(setupFlags);
        int cq = 2 * sq;
        if ((setupFlags & SetupFlags.CQSIZE) != 0) {
            cq = Integer.highestOneBit(Math.max(1, cqEntries) * 2 - 1);
            if ((setupFlags & SetupFlags.CLAMP) != 0) {
                cq = Math.min(cq, ParamsLayout.MAX_CQ_ENTRIES);
            }
        }
        long bytes = 64 + (long) cq * 16;
        if ((setupFlags & SetupFlags.CQE32) != 0) {
            bytes *= 2;
        }
        if ((setupFlags & SetupFlags.NO_SQARRAY) == 0) {
            bytes = ((bytes + 63) & -64) + 4L * sq;
        }
        return bytes;
    }

    private static int sqeSize(int setupFlags) {
        return (setupFlags & SetupFlags.SQE128) != 0 ? 128 : 64;
    }

    private static int cqeSize(int setupFlags) {
        return (setupFlags & SetupFlags.CQE32) != 0 ? 32 : 16;
    }

    private ErrnoException setupFailure(int ret, int setupFlags) {
        String hint = switch (-ret) {
            case Errno.EPERM -> "io_uring is blocked by seccomp or kernel.io_uring_disabled" + disabledSysctl();
            case Errno.ENOSYS -> "this kernel has no io_uring (built without CONFIG_IO_URING, or hidden by seccomp)";
            case Errno.ENOMEM -> "not enough lockable memory for the rings: raise RLIMIT_MEMLOCK (ulimit -l) or use fewer entries";
            case Errno.EINVAL -> "the kernel refused " + entries + " entries with flags " + SetupFlags.toString(setupFlags)
                    + ": a flag is newer than this kernel" + newerFlags(setupFlags)
                    + ", a combination is invalid, or a size is out of range";
            case Errno.EMFILE, Errno.ENFILE -> "too many open files";
            default -> null;
        };
        return new ErrnoException("io_uring_setup", ret, hint);
    }

    /** The recent flags among {@code setupFlags}, with the kernel that brought each. */
    private static String newerFlags(int setupFlags) {
        StringBuilder named = new StringBuilder();
        int[] flags = {SetupFlags.HYBRID_IOPOLL, SetupFlags.CQE_MIXED, SetupFlags.SQE_MIXED, SetupFlags.SQ_REWIND};
        String[] kernels = {"6.13", "6.18", "6.19", "7.0"};
        for (int i = 0; i < flags.length; i++) {
            if ((setupFlags & flags[i]) != 0) {
                named.append(named.isEmpty() ? " (" : ", ").append(SetupFlags.name(flags[i])).append(" needs ")
                        .append(kernels[i]);
            }
        }
        return named.isEmpty() ? "" : named.append(')').toString();
    }

    private static String disabledSysctl() {
        try {
            String value = Files.readString(Path.of("/proc/sys/kernel/io_uring_disabled")).trim();
            return switch (value) {
                case "2" -> " (kernel.io_uring_disabled=2: disabled for everyone; set it to 0 to allow)";
                case "1" -> " (kernel.io_uring_disabled=1: only members of kernel.io_uring_group may use it)";
                default -> " (kernel.io_uring_disabled=" + value + ", so most likely a seccomp filter, as in Docker's default profile)";
            };
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
