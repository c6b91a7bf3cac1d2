package io.uring4j.portable;

import io.uring4j.ring.abi.BufRingLayout;
import io.uring4j.sys.Errno;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Provided buffers: legacy groups (PROVIDE_BUFFERS, REMOVE_BUFFERS) and provided-buffer rings
 * (REGISTER_PBUF_RING, UNREGISTER_PBUF_RING, REGISTER_PBUF_STATUS), the rings read from the very
 * memory the application fills for the kernel: an array of {@code struct io_uring_buf} (addr u64, len u32, bid
 * u16) whose u16 tail overlays the first entry's reserved field at byte 14, published by the application with a
 * release store. The head is ours, as it is the kernel's: only PBUF_STATUS shows it.
 *
 * <p>The table is copy-on-write behind a volatile field (workers and the poller look groups up without the ring
 * lock); changes to it are serialized on this object. Kernel-allocated rings (IOU_PBUF_RING_MMAP) and incremental
 * consumption (IOU_PBUF_RING_INC) are refused with EINVAL, as by a kernel that predates them.
 */
final class BufRings {
    private static final MemorySegment USER = PortableRing.USER;
    private static final VarHandle SHORT = JAVA_SHORT.varHandle();
    private static final int MAX_ENTRIES = 32768;
    /** Buffer ids per legacy group (MAX_BIDS_PER_BGID), and buffers a legacy group holds at most (USHRT_MAX). */
    private static final int MAX_BIDS = 1 << 16;
    private static final int MAX_LEGACY = MAX_BIDS - 1;

    /**
     * One buffer group, as a receive or read with BUFFER_SELECT uses it: peek at the next buffer, use it, then
     * {@link #consume} it once data landed in it — under the group's monitor, so two receives never get the same
     * buffer and one that finds no data leaves it in place (the kernel's recycle).
     */
    abstract static sealed class Group permits RingGroup, ListGroup {
        final int id;

        Group(int id) {
            this.id = id;
        }

        abstract boolean hasBuffer();

        abstract long addr();

        abstract int len();

        abstract int bid();

        abstract void consume();
    }

    /** A registered ring (REGISTER_PBUF_RING), read where the application writes it. */
    static final class RingGroup extends Group {
        private final long ring;
        private final int mask;
        /** The next entry to take; advanced only by {@link #consume}. */
        private int head;

        RingGroup(int id, long ring, int entries) {
            super(id);
            this.ring = ring;
            this.mask = entries - 1;
        }

        /** Whether the application has published a buffer we have not taken (the tail is read with acquire). */
        @Override
        boolean hasBuffer() {
            short tail = (short) SHORT.getAcquire(USER, ring + BufRingLayout.TAIL);
            return (short) (tail - head) != 0;
        }

        @Override
        long addr() {
            return USER.get(JAVA_LONG, entry() + BufRingLayout.BUF_ADDR);
        }

        @Override
        int len() {
            return USER.get(JAVA_INT, entry() + BufRingLayout.BUF_LEN);
        }

        @Override
        int bid() {
            return USER.get(JAVA_SHORT, entry() + BufRingLayout.BUF_BID) & 0xffff;
        }

        @Override
        void consume() {
            head++;
        }

        private long entry() {
            return ring + BufRingLayout.BUF_SIZE * (head & mask);
        }
    }

    /**
     * A legacy group (PROVIDE_BUFFERS): the buffers in the order they were provided, taken from the front, as
     * the kernel's list is. Grown when buffers are provided, never when they are taken.
     */
    static final class ListGroup extends Group {
        /** (addr, len, bid) per buffer, oldest first. */
        private final LongIntIntQueue buffers = new LongIntIntQueue();

        ListGroup(int id) {
            super(id);
        }

        @Override
        boolean hasBuffer() {
            return buffers.count > 0;
        }

        @Override
        long addr() {
            return buffers.peekLong();
        }

        @Override
        int len() {
            return buffers.peekFirst();
        }

        @Override
        int bid() {
            return buffers.peekSecond();
        }

        @Override
        void consume() {
            buffers.removeFirst();
        }

        /** Appends {@code n} buffers of {@code len} bytes from {@code addr}, ids from {@code bid}: how many fitted. */
        int add(long addr, int len, int n, int bid) {
            int added = Math.min(n, MAX_LEGACY - buffers.count);
            for (int i = 0; i < added; i++) {
                buffers.add(addr + (long) len * i, len, (bid + i) & 0xffff);
            }
            return added;
        }

        /** Drops up to {@code n} buffers from the front: how many. */
        int remove(int n) {
            int removed = Math.min(n, buffers.count);
            buffers.remove(removed);
            return removed;
        }
    }

    private volatile Group[] groups = new Group[0];

    /** Buffer group {@code id} (a ring or a legacy list), or null. */
    Group group(int id) {
        Group[] table = groups;
        return id < table.length ? table[id] : null;
    }

    /** {@code struct io_uring_buf_reg}: ring_addr u64, ring_entries u32, bgid u16, flags u16, resv u64[3]. */
    synchronized int register(long arg, int nr) {
        int ret = checkReg(arg, nr);
        if (ret < 0) {
            return ret;
        }
        long ringAddr = USER.get(JAVA_LONG, arg + BufRingLayout.REG_RING_ADDR);
        int entries = USER.get(JAVA_INT, arg + BufRingLayout.REG_RING_ENTRIES);
        int id = USER.get(JAVA_SHORT, arg + BufRingLayout.REG_BGID) & 0xffff;
        if (USER.get(JAVA_SHORT, arg + BufRingLayout.REG_FLAGS) != 0 || Integer.bitCount(entries) != 1
                || entries > MAX_ENTRIES) {
            return -Errno.EINVAL;
        }
        if (ringAddr == 0) {
            return -Errno.EFAULT;
        }
        Group old = group(id);
        if (old instanceof RingGroup || old != null && old.hasBuffer()) {
            return -Errno.EEXIST;       // an empty legacy group is replaced, as in the kernel
        }
        put(id, new RingGroup(id, ringAddr, entries));
        return 0;
    }

    synchronized int unregister(long arg, int nr) {
        int ret = checkReg(arg, nr);
        if (ret < 0) {
            return ret;
        }
        int id = USER.get(JAVA_SHORT, arg + BufRingLayout.REG_BGID) & 0xffff;
        if (USER.get(JAVA_SHORT, arg + BufRingLayout.REG_FLAGS) != 0) {
            return -Errno.EINVAL;
        }
        Group old = group(id);
        if (old == null) {
            return -Errno.ENOENT;
        }
        if (!(old instanceof RingGroup)) {
            return -Errno.EINVAL;
        }
        put(id, null);
        return 0;
    }

    /**
     * PROVIDE_BUFFERS (prep checked by {@link #prepProvide}): {@code len} bytes each from {@code addr}, ids
     * from {@code off}, into legacy group {@code buf_group}, created if new; 0, -EINVAL on a ring's group,
     * -EOVERFLOW when the group is full.
     */
    synchronized int provide(Request r) {
        Group g = group(r.bufIndex);
        if (g instanceof RingGroup) {
            return -Errno.EINVAL;
        }
        ListGroup list = (ListGroup) g;
        if (list == null) {
            list = new ListGroup(r.bufIndex);
            put(r.bufIndex, list);
        }
        synchronized (list) {
            return list.add(r.addr, r.len, r.fd, (int) r.off) > 0 ? 0 : -Errno.EOVERFLOW;
        }
    }

    /** REMOVE_BUFFERS: how many of the {@code fd} asked for were dropped; -ENOENT without the group. */
    synchronized int remove(Request r) {
        Group g = group(r.bufIndex);
        if (g == null) {
            return -Errno.ENOENT;
        }
        if (!(g instanceof ListGroup list)) {
            return -Errno.EINVAL;
        }
        synchronized (list) {
            return list.remove(r.fd);
        }
    }

    /** The kernel's io_provide_buffers_prep: nbufs in fd, the buffer length in len, the first id in off. */
    static int prepProvide(Request r) {
        if (r.opFlags != 0 || r.fileIndex != 0) {
            return -Errno.EINVAL;
        }
        if (r.fd <= 0 || r.fd > MAX_BIDS || r.off < 0 || r.off > 0xffff) {
            return -Errno.E2BIG;
        }
        if (r.len == 0) {
            return -Errno.EINVAL;
        }
        long size = Integer.toUnsignedLong(r.len) * r.fd;
        if (r.addr + size < r.addr) {
            return -Errno.EOVERFLOW;
        }
        return r.off + r.fd > MAX_BIDS ? -Errno.EINVAL : 0;
    }

    /** The kernel's io_remove_buffers_prep: nbufs in fd, everything else zero. */
    static int prepRemove(Request r) {
        boolean unused = r.opFlags != 0 || r.addr != 0 || r.len != 0 || r.off != 0 || r.fileIndex != 0;
        return unused || r.fd <= 0 || r.fd > MAX_BIDS ? -Errno.EINVAL : 0;
    }

    private void put(int id, Group g) {
        Group[] table = groups;
        Group[] next = Arrays.copyOf(table, Math.max(table.length, id + 1));
        next[id] = g;
        groups = next;
    }

    /** {@code struct io_uring_buf_status}: buf_group u32 in, head u32 out, resv u32[8]. */
    int status(long arg, int nr) {
        if (nr != 1) {
            return -Errno.EINVAL;
        }
        if (arg == 0) {
            return -Errno.EFAULT;
        }
        for (long at = arg + BufRingLayout.STATUS_RESV; at < arg + BufRingLayout.STATUS_SIZE; at += 8) {
            if (USER.get(JAVA_LONG.withByteAlignment(4), at) != 0) {
                return -Errno.EINVAL;
            }
        }
        Group found = group(USER.get(JAVA_INT, arg + BufRingLayout.STATUS_BUF_GROUP));
        if (found == null) {
            return -Errno.ENOENT;
        }
        if (!(found instanceof RingGroup g)) {
            return -Errno.EINVAL;
        }
        synchronized (g) {
            USER.set(JAVA_INT, arg + BufRingLayout.STATUS_HEAD, g.head & 0xffff);
        }
        return 0;
    }

    private static int checkReg(long arg, int nr) {
        if (nr != 1) {
            return -Errno.EINVAL;
        }
        if (arg == 0) {
            return -Errno.EFAULT;
        }
        for (long at = arg + BufRingLayout.REG_RESV; at < arg + BufRingLayout.REG_SIZE; at += 8) {
            if (USER.get(JAVA_LONG, at) != 0) {
                return -Errno.EINVAL;
            }
        }
        return 0;
    }

    synchronized void clear() {
        groups = new Group[0];
    }
}
