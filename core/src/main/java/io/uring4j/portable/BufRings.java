package io.uring4j.portable;

import io.uring4j.sys.Errno;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Provided-buffer rings (REGISTER_PBUF_RING, UNREGISTER_PBUF_RING, REGISTER_PBUF_STATUS), read from the very
 * memory the application fills for the kernel: an array of {@code struct io_uring_buf} (addr u64, len u32, bid
 * u16) whose u16 tail overlays the first entry's reserved field at byte 14, published by the application with a
 * release store. The head is ours, as it is the kernel's: only PBUF_STATUS shows it.
 *
 * <p>The table is copy-on-write behind a volatile field (workers and the poller look groups up without the ring
 * lock); registration runs under the ring lock. Kernel-allocated rings (IOU_PBUF_RING_MMAP) and incremental
 * consumption (IOU_PBUF_RING_INC) are refused with EINVAL, as by a kernel that predates them.
 */
final class BufRings {
    private static final MemorySegment USER = PortableRing.USER;
    private static final VarHandle SHORT = JAVA_SHORT.varHandle();
    private static final long TAIL = 14;
    private static final int MAX_ENTRIES = 32768;

    /**
     * One group's ring. Taking a buffer is peek, use, then {@link #consume} once data landed in it — under the
     * group's monitor, so two receives never get the same buffer and one that finds no data leaves it in place.
     */
    static final class Group {
        final int id;
        private final long ring;
        private final int mask;
        /** The next entry to take; advanced only by {@link #consume}. */
        private int head;

        Group(int id, long ring, int entries) {
            this.id = id;
            this.ring = ring;
            this.mask = entries - 1;
        }

        /** Whether the application has published a buffer we have not taken (the tail is read with acquire). */
        boolean hasBuffer() {
            short tail = (short) SHORT.getAcquire(USER, ring + TAIL);
            return (short) (tail - head) != 0;
        }

        long addr() {
            return USER.get(JAVA_LONG, entry());
        }

        int len() {
            return USER.get(JAVA_INT, entry() + 8);
        }

        int bid() {
            return USER.get(JAVA_SHORT, entry() + 12) & 0xffff;
        }

        void consume() {
            head++;
        }

        private long entry() {
            return ring + 16L * (head & mask);
        }
    }

    private volatile Group[] groups = new Group[0];

    /** The registered ring of buffer group {@code id}, or null. */
    Group group(int id) {
        Group[] table = groups;
        return id < table.length ? table[id] : null;
    }

    /** {@code struct io_uring_buf_reg}: ring_addr u64, ring_entries u32, bgid u16, flags u16, resv u64[3]. */
    int register(long arg, int nr) {
        int ret = checkReg(arg, nr);
        if (ret < 0) {
            return ret;
        }
        long ringAddr = USER.get(JAVA_LONG, arg);
        int entries = USER.get(JAVA_INT, arg + 8);
        int id = USER.get(JAVA_SHORT, arg + 12) & 0xffff;
        if (USER.get(JAVA_SHORT, arg + 14) != 0 || Integer.bitCount(entries) != 1 || entries > MAX_ENTRIES) {
            return -Errno.EINVAL;
        }
        if (ringAddr == 0) {
            return -Errno.EFAULT;
        }
        if (group(id) != null) {
            return -Errno.EEXIST;
        }
        Group[] table = groups;
        Group[] next = Arrays.copyOf(table, Math.max(table.length, id + 1));
        next[id] = new Group(id, ringAddr, entries);
        groups = next;
        return 0;
    }

    int unregister(long arg, int nr) {
        int ret = checkReg(arg, nr);
        if (ret < 0) {
            return ret;
        }
        int id = USER.get(JAVA_SHORT, arg + 12) & 0xffff;
        if (USER.get(JAVA_SHORT, arg + 14) != 0) {
            return -Errno.EINVAL;
        }
        if (group(id) == null) {
            return -Errno.ENOENT;
        }
        Group[] next = groups.clone();
        next[id] = null;
        groups = next;
        return 0;
    }

    /** {@code struct io_uring_buf_status}: buf_group u32 in, head u32 out, resv u32[8]. */
    int status(long arg, int nr) {
        if (nr != 1) {
            return -Errno.EINVAL;
        }
        if (arg == 0) {
            return -Errno.EFAULT;
        }
        for (long at = arg + 8; at < arg + 40; at += 8) {
            if (USER.get(JAVA_LONG.withByteAlignment(4), at) != 0) {
                return -Errno.EINVAL;
            }
        }
        Group g = group(USER.get(JAVA_INT, arg));
        if (g == null) {
            return -Errno.ENOENT;
        }
        synchronized (g) {
            USER.set(JAVA_INT, arg + 4, g.head & 0xffff);
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
        for (long at = arg + 16; at < arg + 40; at += 8) {
            if (USER.get(JAVA_LONG, at) != 0) {
                return -Errno.EINVAL;
            }
        }
        return 0;
    }

    void clear() {
        groups = new Group[0];
    }
}
