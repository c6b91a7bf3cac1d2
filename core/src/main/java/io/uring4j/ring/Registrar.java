package io.uring4j.ring;

import io.uring4j.ring.abi.BufRingLayout;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.ParamsLayout;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.ring.abi.SqeLayout;
import io.uring4j.ring.abi.WaitRegionLayout;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

import static io.uring4j.ring.abi.RegisterArgLayout.*;
import static io.uring4j.ring.abi.RegisterOpcode.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code io_uring_register} for one ring: registered files and buffers, the ring fd, eventfd, provided-buffer
 * rings, the probe and the query, io-wq limits, restrictions, synchronous cancel, the wait clock, registered
 * wait regions and zero-copy receive queues. Argument structs are built in
 * short-lived native memory: registration is not a hot path. Failures throw {@link ErrnoException} naming the
 * register opcode.
 */
public final class Registrar {
    private final IoUring ring;

    Registrar(IoUring ring) {
        this.ring = ring;
    }

    private int call(int opcode, long arg, int nrArgs) throws ErrnoException {
        int ret = ring.registerRaw(opcode, arg, nrArgs);
        if (ret < 0) {
            String issuerHint = ret == -Errno.EEXIST ? ring.singleIssuerHint("register") : null;
            throw issuerHint != null
                    ? new ErrnoException("io_uring_register(" + RegisterOpcode.name(opcode) + ")", ret, issuerHint)
                    : failure(opcode, ret);
        }
        return ret;
    }

    private static ErrnoException failure(int opcode, int ret) {
        String hint = switch (-ret) {
            case Errno.ENOMEM -> opcode == REGISTER_BUFFERS || opcode == REGISTER_BUFFERS2
                    || opcode == REGISTER_BUFFERS_UPDATE
                    ? "pinned buffers count against RLIMIT_MEMLOCK: raise it (ulimit -l) or register less" : null;
            case Errno.EMFILE -> "the file table is limited by RLIMIT_NOFILE: raise it (ulimit -n)";
            case Errno.EBUSY, Errno.EEXIST -> opcode == REGISTER_RING_FDS ? "the ring fd is already registered"
                    : "already registered: unregister first";
            case Errno.ENXIO -> "nothing of this kind is registered";
            case Errno.EOVERFLOW -> opcode == RegisterOpcode.REGISTER_RESIZE_RINGS
                    ? "more entries wait in the rings than the new sizes hold: reap or submit first, or resize larger"
                    : null;
            case Errno.EBADFD -> opcode == REGISTER_ENABLE_RINGS ? "the ring is not R_DISABLED" : null;
            case Errno.EINVAL -> opcode == RegisterOpcode.REGISTER_RESIZE_RINGS
                    ? "the kernel resizes only DEFER_TASKRUN rings, from 6.13 on, to sizes it would accept at setup"
                    : opcode >= REGISTER_NAPI && opcode < RegisterOpcode.KNOWN
                    ? "this kernel may predate " + RegisterOpcode.name(opcode) + " (see the README's kernel support"
                    + " table), or an argument is out of range" : null;
            default -> null;
        };
        return new ErrnoException("io_uring_register(" + RegisterOpcode.name(opcode) + ")", ret, hint);
    }

    /** REGISTER_RESIZE_RINGS with {@code params} (sizes and CQSIZE in, the new layout out): {@link IoUring#resize}. */
    void resizeRings(MemorySegment params) throws ErrnoException {
        call(RegisterOpcode.REGISTER_RESIZE_RINGS, params.address(), 1);
    }

    // ---- buffers ---------------------------------------------------------------------------------------

    /** Registers fixed buffers: index i is {@code buffers[i]}, for READ_FIXED / WRITE_FIXED. */
    public void buffers(MemorySegment... buffers) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            call(REGISTER_BUFFERS, iovecs(arena, buffers).address(), buffers.length);
        }
    }

    /** Registers a table of {@code count} empty buffer slots, filled by {@link #updateBuffers}. */
    public void buffersSparse(int count) throws ErrnoException {
        registerSparse(REGISTER_BUFFERS2, count);
    }

    /** Replaces buffer slots from {@code offset}; returns how many were updated. */
    public int updateBuffers(int offset, MemorySegment... buffers) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            return call(REGISTER_BUFFERS_UPDATE, update2(arena, offset, iovecs(arena, buffers), buffers.length)
                    .address(), 32);
        }
    }

    public void unregisterBuffers() throws ErrnoException {
        call(UNREGISTER_BUFFERS, 0, 0);
    }

    private static MemorySegment iovecs(Arena arena, MemorySegment[] buffers) {
        MemorySegment iov = arena.allocate(IOVEC_SIZE * Math.max(1, buffers.length), 8);
        for (int i = 0; i < buffers.length; i++) {
            long at = IOVEC_SIZE * i;
            iov.set(JAVA_LONG, at + IOVEC_BASE, SqeCore.address(buffers[i]));
            iov.set(JAVA_LONG, at + IOVEC_LEN, buffers[i].byteSize());
        }
        return iov;
    }

    /** {@code struct io_uring_rsrc_update2}: offset, resv, data, tags, nr, resv2. */
    private static MemorySegment update2(Arena arena, int offset, MemorySegment data, int nr) {
        MemorySegment up = arena.allocate(RSRC_UPDATE2_SIZE, 8);
        up.set(JAVA_INT, RSRC_UPDATE2_OFFSET, offset);
        up.set(JAVA_LONG, RSRC_UPDATE2_DATA, data.address());
        up.set(JAVA_INT, RSRC_UPDATE2_NR, nr);
        return up;
    }

    // ---- files -----------------------------------------------------------------------------------------

    /** Registers a file table; -1 marks an empty slot. */
    public void files(int... fds) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            callRaisingFileLimit(REGISTER_FILES, ints(arena, fds).address(), fds.length, fds.length);
        }
    }

    private void callRaisingFileLimit(int opcode, long arg, int nrArgs, int slots) throws ErrnoException {
        int ret = ring.registerRaw(opcode, arg, nrArgs);
        if (ret == -Errno.EMFILE && raiseFileLimit(slots)) {
            ret = ring.registerRaw(opcode, arg, nrArgs);
        }
        if (ret < 0) {
            throw failure(opcode, ret);
        }
    }

    /**
     * liburing's answer to EMFILE from a file-table registration: the table counts against RLIMIT_NOFILE, so
     * raise the soft limit by the table size (up to the hard limit) once and retry.
     */
    private static boolean raiseFileLimit(int slots) {
        long[] limit = LibC.getrlimit(LibC.RLIMIT_NOFILE);
        if (limit == null || limit[0] >= limit[1]) {
            return false;
        }
        return LibC.setrlimit(LibC.RLIMIT_NOFILE, Math.min(limit[1], limit[0] + slots), limit[1]) == 0;
    }

    /** Registers a table of {@code count} empty slots (for direct descriptors). */
    public void filesSparse(int count) throws ErrnoException {
        registerSparse(REGISTER_FILES2, count);
    }

    /** {@code struct io_uring_rsrc_register} {nr, flags = SPARSE}: a table of empty slots. */
    private void registerSparse(int opcode, int count) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment reg = arena.allocate(RSRC_REGISTER_SIZE, 8);
            reg.set(JAVA_INT, RSRC_REGISTER_NR, count);
            reg.set(JAVA_INT, RSRC_REGISTER_FLAGS, RSRC_REGISTER_SPARSE);
            callRaisingFileLimit(opcode, reg.address(), (int) RSRC_REGISTER_SIZE,
                    opcode == REGISTER_FILES2 ? count : 0);
        }
    }

    /**
     * Replaces slots from {@code offset}: -1 empties a slot, {@link OpFlags.FileIndex#SKIP} leaves it. Returns
     * how many were updated.
     */
    public int updateFiles(int offset, int... fds) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment up = arena.allocate(RSRC_UPDATE_SIZE, 8);
            up.set(JAVA_INT, RSRC_UPDATE_OFFSET, offset);
            up.set(JAVA_LONG, RSRC_UPDATE_DATA, ints(arena, fds).address());
            return call(REGISTER_FILES_UPDATE, up.address(), fds.length);
        }
    }

    public void unregisterFiles() throws ErrnoException {
        call(UNREGISTER_FILES, 0, 0);
    }

    /** Restricts FILE_INDEX_ALLOC to slots {@code [offset, offset + length)} (6.0). */
    public void fileAllocRange(int offset, int length) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment range = arena.allocate(FILE_INDEX_RANGE_SIZE, 8);
            range.set(JAVA_INT, FILE_INDEX_RANGE_OFF, offset);
            range.set(JAVA_INT, FILE_INDEX_RANGE_LEN, length);
            call(REGISTER_FILE_ALLOC_RANGE, range.address(), 0);
        }
    }

    private static MemorySegment ints(Arena arena, int[] values) {
        MemorySegment seg = arena.allocate(4L * Math.max(1, values.length), 4);
        for (int i = 0; i < values.length; i++) {
            seg.setAtIndex(JAVA_INT, i, values[i]);
        }
        return seg;
    }

    // ---- eventfd ---------------------------------------------------------------------------------------

    /** Signals {@code eventfd} whenever CQEs are posted (a hint: several CQEs may signal once). */
    public void eventfd(int eventfd) throws ErrnoException {
        registerEventfd(REGISTER_EVENTFD, eventfd);
    }

    /** Signals {@code eventfd} only for completions that finished asynchronously. */
    public void eventfdAsync(int eventfd) throws ErrnoException {
        registerEventfd(REGISTER_EVENTFD_ASYNC, eventfd);
    }

    private void registerEventfd(int opcode, int eventfd) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            call(opcode, arena.allocateFrom(JAVA_INT, eventfd).address(), 1);
        }
    }

    public void unregisterEventfd() throws ErrnoException {
        call(UNREGISTER_EVENTFD, 0, 0);
    }

    // ---- probe, ring fd, io-wq, personality ---------------------------------------------------------------

    /** Which opcodes this kernel supports. */
    public Probe probe() throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment probe = Probe.allocate(arena);
            call(REGISTER_PROBE, probe.address(), Probe.OPS);
            return Probe.decode(probe);
        }
    }

    /**
     * Registers the ring fd with the calling thread ({@code REGISTER_RING_FDS}, 5.18): later enters pass the
     * index with IORING_ENTER_REGISTERED_RING and skip the fd lookup. Registration is per thread: only the
     * thread that registered may use it. Returns the index.
     */
    public int ringFd() throws ErrnoException {
        if (ring.registeredIndex() >= 0) {
            throw new ErrnoException("io_uring_register(REGISTER_RING_FDS)", Errno.EEXIST,
                    "the ring fd is already registered");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment up = arena.allocate(RSRC_UPDATE_SIZE, 8);
            up.set(JAVA_INT, RSRC_UPDATE_OFFSET, -1);
            up.set(JAVA_LONG, RSRC_UPDATE_DATA, ring.fd());
            call(REGISTER_RING_FDS, up.address(), 1);
            int index = up.get(JAVA_INT, RSRC_UPDATE_OFFSET);
            ring.ringFdRegistered(index);
            return index;
        }
    }

    /** Undoes {@link #ringFd()}: enters use the plain fd again. */
    public void unregisterRingFd() throws ErrnoException {
        int index = ring.registeredIndex();
        if (index < 0 || ring.fd() < 0) {
            throw new ErrnoException("io_uring_register(UNREGISTER_RING_FDS)", Errno.EINVAL,
                    ring.fd() < 0 ? "a REGISTERED_FD_ONLY ring has no fd to fall back to" : "the ring fd is not registered");
        }
        int ret = unregisterRingIndex(index);
        if (ret < 0) {
            throw failure(UNREGISTER_RING_FDS, ret);
        }
        ring.ringFdUnregistered();
    }

    /** Unregisters a ring index, bypassing the open check: used while closing. */
    int unregisterRingIndex(int index) {
        return unregisterRingIndex(ring.engine(), index);
    }

    static int unregisterRingIndex(Engine engine, int index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment up = arena.allocate(RSRC_UPDATE_SIZE, 8);
            up.set(JAVA_INT, RSRC_UPDATE_OFFSET, index);
            return engine.register(index, UNREGISTER_RING_FDS | USE_REGISTERED_RING, up.address(), 1);
        }
    }

    /**
     * Sets the io-wq worker limits (bounded: regular file I/O; unbounded: work that may block forever); 0 leaves
     * a limit as it is. Returns the previous limits {bounded, unbounded}.
     */
    public int[] iowqMaxWorkers(int bounded, int unbounded) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment values = arena.allocate(8, 4);
            values.set(JAVA_INT, 0, bounded);
            values.set(JAVA_INT, 4, unbounded);
            call(REGISTER_IOWQ_MAX_WORKERS, values.address(), 2);
            return new int[] {values.get(JAVA_INT, 0), values.get(JAVA_INT, 4)};
        }
    }

    /** Registers the caller's credentials; returns the id for {@link Sqe#personality(int)}. */
    public int personality() throws ErrnoException {
        return call(REGISTER_PERSONALITY, 0, 0);
    }

    public void unregisterPersonality(int id) throws ErrnoException {
        call(UNREGISTER_PERSONALITY, 0, id);
    }

    // ---- restrictions ----------------------------------------------------------------------------------

    /** Restricts an R_DISABLED ring to what {@code restrictions} allow. */
    public void restrictions(Restriction... restrictions) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment res = arena.allocate(RESTRICTION_SIZE * Math.max(1, restrictions.length), 8);
            for (int i = 0; i < restrictions.length; i++) {
                long at = RESTRICTION_SIZE * i;
                res.set(JAVA_SHORT, at + RESTRICTION_OPCODE, (short) restrictions[i].type());
                res.set(JAVA_BYTE, at + RESTRICTION_VALUE, (byte) restrictions[i].value());
            }
            call(REGISTER_RESTRICTIONS, res.address(), restrictions.length);
        }
    }

    /** Enables an R_DISABLED ring; for SINGLE_ISSUER, the calling thread becomes the issuer. */
    public void enableRings() throws ErrnoException {
        call(REGISTER_ENABLE_RINGS, 0, 0);
        ring.enabledBy(Thread.currentThread());
    }

    // ---- provided-buffer rings -------------------------------------------------------------------------

    /**
     * Sets up a provided-buffer ring of {@code entries} (a power of two, at most 32768) for group
     * {@code groupId}. {@code flags}: {@link BufRingLayout#PBUF_RING_MMAP}, {@link BufRingLayout#PBUF_RING_INC}.
     */
    public BufferRing bufferRing(int entries, int groupId, int flags) throws ErrnoException {
        if (entries <= 0 || entries > 32768 || Integer.bitCount(entries) != 1) {
            throw new IllegalArgumentException("buffer ring entries must be a power of two in [1, 32768]: " + entries);
        }
        boolean kernelAllocated = (flags & BufRingLayout.PBUF_RING_MMAP) != 0;
        if (kernelAllocated && ring.fd() < 0) {
            throw new IllegalArgumentException("PBUF_RING_MMAP maps through the ring fd; a REGISTERED_FD_ONLY ring has none");
        }
        Arena ringArena = Arena.ofShared();
        try (Arena arena = Arena.ofConfined()) {
            long size = BufRingLayout.BUF_SIZE * entries;
            MemorySegment bufs = kernelAllocated ? null : PageMemory.allocate(size, ringArena, "buffer ring");
            MemorySegment reg = arena.allocate(BufRingLayout.REG_SIZE, 8);
            reg.set(JAVA_LONG, BufRingLayout.REG_RING_ADDR, kernelAllocated ? 0 : bufs.address());
            reg.set(JAVA_INT, BufRingLayout.REG_RING_ENTRIES, entries);
            reg.set(JAVA_SHORT, BufRingLayout.REG_BGID, (short) groupId);
            reg.set(JAVA_SHORT, BufRingLayout.REG_FLAGS, (short) flags);
            call(REGISTER_PBUF_RING, reg.address(), 1);
            if (kernelAllocated) {
                long offset = ParamsLayout.OFF_PBUF_RING | ((long) groupId << ParamsLayout.OFF_PBUF_SHIFT);
                try {
                    bufs = ring.engine().map(ring.fd(), offset, size, ringArena);
                } catch (ErrnoException e) {
                    unregisterBufferRing(groupId);
                    throw e;
                }
            }
            return new BufferRing(ring, ringArena, bufs, groupId, entries, flags);
        } catch (Throwable t) {
            ringArena.close();
            throw t;
        }
    }

    public void unregisterBufferRing(int groupId) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment reg = arena.allocate(BufRingLayout.REG_SIZE, 8);
            reg.set(JAVA_SHORT, BufRingLayout.REG_BGID, (short) groupId);
            call(UNREGISTER_PBUF_RING, reg.address(), 1);
        }
    }

    /** The kernel head of a buffer ring (6.8). */
    public int bufferRingHead(int groupId) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment status = arena.allocate(BufRingLayout.STATUS_SIZE, 8);
            status.set(JAVA_INT, BufRingLayout.STATUS_BUF_GROUP, groupId);
            call(REGISTER_PBUF_STATUS, status.address(), 1);
            return status.get(JAVA_INT, BufRingLayout.STATUS_HEAD);
        }
    }

    // ---- synchronous cancel ----------------------------------------------------------------------------

    /**
     * Cancels matching requests and waits until they are gone ({@code REGISTER_SYNC_CANCEL}, 6.0), up to
     * {@code timeoutNanos} ({@code < 0}: no limit). Match by {@code userData}, or by {@code fd} with
     * {@link OpFlags.Cancel#FD}. Returns 0 or, with {@link OpFlags.Cancel#ALL}, the number cancelled.
     */
    public int syncCancel(long userData, int fd, int flags, long timeoutNanos) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment reg = arena.allocate(SYNC_CANCEL_SIZE, 8);
            reg.set(JAVA_LONG, SYNC_CANCEL_ADDR, userData);
            reg.set(JAVA_INT, SYNC_CANCEL_FD, fd);
            reg.set(JAVA_INT, SYNC_CANCEL_FLAGS, flags);
            reg.set(JAVA_LONG, SYNC_CANCEL_TIMEOUT_SEC,
                    timeoutNanos < 0 ? -1 : timeoutNanos / 1_000_000_000L);
            reg.set(JAVA_LONG, SYNC_CANCEL_TIMEOUT_NSEC,
                    timeoutNanos < 0 ? -1 : timeoutNanos % 1_000_000_000L);
            return call(REGISTER_SYNC_CANCEL, reg.address(), 1);
        }
    }

    // ---- clock, buffer cloning, wait regions, query, zero-copy receive -------------------------------------

    /**
     * The clock of this ring's wait timeouts ({@code REGISTER_CLOCK}, 6.12): {@code CLOCK_MONOTONIC} (1, the
     * default) or {@code CLOCK_BOOTTIME} (7), which keeps counting while the machine is suspended.
     */
    public void clock(int clockId) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment reg = arena.allocate(CLOCK_SIZE, 8);
            reg.set(JAVA_INT, CLOCK_ID, clockId);
            call(REGISTER_CLOCK, reg.address(), 0);
        }
    }

    /**
     * Copies {@code count} registered buffers of {@code source} from its slot {@code sourceOffset} into this
     * ring's table from slot {@code offset} ({@code REGISTER_CLONE_BUFFERS}, 6.12; offsets 6.13); 0 copies all.
     * Both rings then share the pinned pages. {@code flags}: {@link io.uring4j.ring.abi.RegisterArgLayout#CLONE_DST_REPLACE}
     * replaces buffers this ring has (else EBUSY).
     */
    public void cloneBuffers(IoUring source, int sourceOffset, int offset, int count, int flags) throws ErrnoException {
        if (source.fd() < 0) {
            throw new IllegalArgumentException("the source ring has no fd (REGISTERED_FD_ONLY): it cannot be named");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment clone = arena.allocate(CLONE_SIZE, 8);
            clone.set(JAVA_INT, CLONE_SRC_FD, source.fd());
            clone.set(JAVA_INT, CLONE_FLAGS, flags);
            clone.set(JAVA_INT, CLONE_SRC_OFF, sourceOffset);
            clone.set(JAVA_INT, CLONE_DST_OFF, offset);
            clone.set(JAVA_INT, CLONE_NR, count);
            call(REGISTER_CLONE_BUFFERS, clone.address(), 1);
        }
    }

    /**
     * Registers {@code entries} wait arguments ({@code REGISTER_MEM_REGION} with REG_WAIT_ARG, 6.13), waited on
     * by index with {@link WaitRegion#submitAndWait}: the kernel reads the timeout from memory it has pinned
     * instead of copying an argument on every enter. Only on a ring created {@link IoUringBuilder#disabled()},
     * before {@link #enableRings()}. The memory lives as long as the ring.
     */
    public WaitRegion waitRegion(int entries) throws ErrnoException {
        if (entries <= 0) {
            throw new IllegalArgumentException("a wait region needs at least one entry: " + entries);
        }
        MemorySegment waits = PageMemory.allocate(WaitRegionLayout.WAIT_SIZE * entries, ring.memory(), "wait region");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment desc = arena.allocate(WaitRegionLayout.DESC_SIZE, 8);
            desc.set(JAVA_LONG, WaitRegionLayout.DESC_USER_ADDR, waits.address());
            desc.set(JAVA_LONG, WaitRegionLayout.DESC_SIZE_FIELD, waits.byteSize());
            desc.set(JAVA_INT, WaitRegionLayout.DESC_FLAGS, WaitRegionLayout.MEM_REGION_TYPE_USER);
            MemorySegment reg = arena.allocate(WaitRegionLayout.REG_SIZE, 8);
            reg.set(JAVA_LONG, WaitRegionLayout.REG_REGION_UPTR, desc.address());
            reg.set(JAVA_LONG, WaitRegionLayout.REG_FLAGS, WaitRegionLayout.MEM_REGION_REG_WAIT_ARG);
            int ret = ring.registerRaw(REGISTER_MEM_REGION, reg.address(), 1);
            if (ret < 0) {
                throw new ErrnoException("io_uring_register(REGISTER_MEM_REGION)", ret, ret == -Errno.EINVAL
                        ? "wait regions are registered on an R_DISABLED ring before enableRings(), on 6.13 or later"
                        : null);
            }
        }
        return new WaitRegion(ring, waits, (int) (waits.byteSize() / WaitRegionLayout.WAIT_SIZE));
    }

    /** What the kernel supports ({@code REGISTER_QUERY}, 6.18), asked through this ring. */
    public Query query() throws ErrnoException {
        return Query.ask(ring.engine(), ring.fd());
    }

    /**
     * Registers a zero-copy receive queue ({@code REGISTER_ZCRX_IFQ}, 6.15) on receive queue {@code rxQueue} of
     * the interface {@code ifIndex}: data lands in {@code area} (page-aligned native memory), handed back through
     * a refill queue of {@code rqEntries} in {@code refill} (page-aligned, room for the ring header and the
     * entries); both stay alive as long as the ring. Needs CAP_NET_ADMIN, a ring with DEFER_TASKRUN and 32-byte
     * CQEs, and a NIC with header split and flow steering: loopback and virtual devices refuse it. Returns the
     * queue's id for {@link Sqe#prepRecvZc} and the refill queue's offsets.
     */
    public ZcrxQueue zcrxIfq(int ifIndex, int rxQueue, int rqEntries, MemorySegment area, MemorySegment refill)
            throws ErrnoException {
        return ZcrxQueue.register(ring, ifIndex, rxQueue, rqEntries, area, refill);
    }

    // ---- NAPI busy polling, io-wq affinity, messages without a ring, tagged files ---------------------------

    /**
     * Busy-polls the network device queues of this ring's sockets for up to {@code busyPollMicros} while waiting
     * ({@code REGISTER_NAPI}, 6.9), preferring busy polling over interrupts with {@code preferBusyPoll}.
     */
    public void napi(int busyPollMicros, boolean preferBusyPoll) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            call(REGISTER_NAPI, napiArg(arena, busyPollMicros, preferBusyPoll).address(), 1);
        }
    }

    /** Stops NAPI busy polling; returns the busy-poll timeout that was set, in microseconds. */
    public int unregisterNapi() throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment napi = napiArg(arena, 0, false);
            call(UNREGISTER_NAPI, napi.address(), 1);
            return napi.get(JAVA_INT, NAPI_BUSY_POLL_TO);
        }
    }

    private static MemorySegment napiArg(Arena arena, int busyPollMicros, boolean preferBusyPoll) {
        MemorySegment napi = arena.allocate(NAPI_SIZE, 8);
        napi.set(JAVA_INT, NAPI_BUSY_POLL_TO, busyPollMicros);
        napi.set(JAVA_BYTE, NAPI_PREFER_BUSY_POLL, (byte) (preferBusyPoll ? 1 : 0));
        return napi;
    }

    /** Runs this ring's io-wq workers only on {@code cpus} ({@code REGISTER_IOWQ_AFF}, 5.14). */
    public void iowqAffinity(BitSet cpus) throws ErrnoException {
        byte[] mask = cpus.toByteArray();       // little-endian bit order, as a cpu_set_t
        if (mask.length == 0) {
            throw new IllegalArgumentException("io-wq affinity needs at least one CPU");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(mask.length, 8);
            set.copyFrom(MemorySegment.ofArray(mask));
            call(REGISTER_IOWQ_AFF, set.address(), mask.length);
        }
    }

    /** Lets the io-wq workers run on any CPU again. */
    public void unregisterIowqAffinity() throws ErrnoException {
        call(UNREGISTER_IOWQ_AFF, 0, 0);
    }

    /**
     * Posts a CQE {@code (userData, result)} to the kernel ring {@code targetRingFd} without a ring of one's own
     * ({@code REGISTER_SEND_MSG_RING}, 6.13; liburing's {@code io_uring_register_sync_msg}): a thread with no
     * ring can wake a ring's owner.
     */
    public static void sendMsgRing(int targetRingFd, int result, long userData) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sqe = arena.allocate(SqeLayout.SIZE, 8);
            new Sqe(sqe, 0).prepMsgRing(targetRingFd, result, userData, 0);
            int ret = Engine.kernel().register(-1, REGISTER_SEND_MSG_RING, sqe.address(), 1);
            if (ret < 0) {
                throw failure(REGISTER_SEND_MSG_RING, ret);
            }
        }
    }

    /**
     * Registers a file table whose slots carry tags ({@code REGISTER_FILES2} with tags, 5.13): when a tagged
     * slot is replaced or the table unregistered, and the kernel has let go of the file, it posts a CQE whose
     * user_data is the tag (0: no CQE). -1 marks an empty slot.
     */
    public void filesTagged(int[] fds, long[] tags) throws ErrnoException {
        checkTags(fds, tags);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment reg = arena.allocate(RSRC_REGISTER_SIZE, 8);
            reg.set(JAVA_INT, RSRC_REGISTER_NR, fds.length);
            reg.set(JAVA_LONG, RSRC_REGISTER_DATA, ints(arena, fds).address());
            reg.set(JAVA_LONG, RSRC_REGISTER_TAGS, arena.allocateFrom(JAVA_LONG, tags).address());
            callRaisingFileLimit(REGISTER_FILES2, reg.address(), (int) RSRC_REGISTER_SIZE, fds.length);
        }
    }

    /** Replaces slots from {@code offset} with {@code fds}, tagged ({@code REGISTER_FILES_UPDATE2}); how many. */
    public int updateFilesTagged(int offset, int[] fds, long[] tags) throws ErrnoException {
        checkTags(fds, tags);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment up = update2(arena, offset, ints(arena, fds), fds.length);
            up.set(JAVA_LONG, RSRC_UPDATE2_TAGS, arena.allocateFrom(JAVA_LONG, tags).address());
            return call(REGISTER_FILES_UPDATE2, up.address(), (int) RSRC_UPDATE2_SIZE);
        }
    }

    private static void checkTags(int[] fds, long[] tags) {
        if (fds.length != tags.length || fds.length == 0) {
            throw new IllegalArgumentException("one tag per fd, at least one: " + fds.length + " fds, " + tags.length + " tags");
        }
    }
}
