package io.uring4j.portable;

import io.uring4j.ring.abi.RegisterArgLayout;
import io.uring4j.sys.Errno;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The registered buffer table (REGISTER_BUFFERS and its updates), which READ_FIXED, WRITE_FIXED and SEND_ZC with
 * a fixed buffer check their range against. Copy-on-write behind a volatile field, so workers check without a
 * lock; changes come from register calls, under the ring lock.
 */
final class BufferTable {
    private static final int MAX_BUFFERS = 1 << 14;
    private static final long MAX_BUFFER_LEN = 1L << 30;
    private static final MemorySegment USER = PortableRing.USER;

    /** Base address and length per slot (0, 0: an empty sparse slot). */
    private volatile long[] buffers;

    /** The range must lie inside registered buffer {@code index}; else -EFAULT. */
    int check(int index, long addr, int len) {
        long[] table = buffers;
        if (table == null || index >= table.length / 2) {
            return -Errno.EFAULT;
        }
        long base = table[2 * index];
        long end = base + table[2 * index + 1];
        if (base == 0 || addr < base || addr + Integer.toUnsignedLong(len) > end) {
            return -Errno.EFAULT;
        }
        return 0;
    }

    /** REGISTER_BUFFERS: {@code nr} iovecs at {@code iovecs} (or, sparse, empty slots). */
    int register(long iovecs, int nr, boolean sparse) {
        if (buffers != null) {
            return -Errno.EBUSY;
        }
        if (nr <= 0 || nr > MAX_BUFFERS) {
            return -Errno.EINVAL;
        }
        long[] table = new long[2 * nr];
        if (!sparse) {
            int ret = readIovecs(iovecs, nr, table, 0);
            if (ret < 0) {
                return ret;
            }
        }
        buffers = table;
        return 0;
    }

    /** REGISTER_BUFFERS_UPDATE: {@code nr} iovecs into the slots from {@code offset} on; the count. */
    int update(int offset, long iovecs, int nr) {
        long[] table = buffers;
        if (table == null) {
            return -Errno.ENXIO;
        }
        if (offset < 0 || nr < 0 || (long) offset + nr > table.length / 2) {
            return -Errno.EINVAL;
        }
        long[] next = table.clone();
        int ret = readIovecs(iovecs, nr, next, offset);
        if (ret < 0) {
            return ret;
        }
        buffers = next;
        return nr;
    }

    private static int readIovecs(long iovecs, int nr, long[] table, int offset) {
        for (int i = 0; i < nr; i++) {
            long at = iovecs + RegisterArgLayout.IOVEC_SIZE * i;
            long base = USER.get(JAVA_LONG, at + RegisterArgLayout.IOVEC_BASE);
            long len = USER.get(JAVA_LONG, at + RegisterArgLayout.IOVEC_LEN);
            if ((base == 0 && len != 0) || len < 0 || len > MAX_BUFFER_LEN) {
                return -Errno.EFAULT;
            }
            table[2 * (offset + i)] = base;
            table[2 * (offset + i) + 1] = len;
        }
        return 0;
    }

    /** UNREGISTER_BUFFERS. */
    int unregister() {
        if (buffers == null) {
            return -Errno.ENXIO;
        }
        buffers = null;
        return 0;
    }

    /** The ring is closing. */
    void clear() {
        buffers = null;
    }
}
