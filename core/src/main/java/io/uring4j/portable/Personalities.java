package io.uring4j.portable;

import io.uring4j.sys.Errno;

/**
 * Registered personalities (REGISTER_PERSONALITY): ids 1..65535, handed out cyclically as the kernel's
 * xa_alloc_cyclic does. A request naming an id that is not registered completes with -EINVAL at submission.
 *
 * <p>The kernel runs such a request with the credentials captured at registration. Here every request runs
 * with the process's credentials of the moment — the same ones unless the process changed its ids since.
 *
 * <p>The set is a bitmap replaced whole under the ring lock and read without one at submission.
 */
final class Personalities {
    private static final int MAX_ID = 0xffff;

    private volatile long[] ids;
    /** Where the next search starts (the kernel's pers_next). */
    private int next = 1;

    /** A new id, or -EBUSY when all are taken. Under the ring lock. */
    int register() {
        long[] current = ids;
        long[] table = current == null ? new long[(MAX_ID + 64) / 64] : current.clone();
        for (int n = 0; n < MAX_ID; n++) {
            int id = (next - 1 + n) % MAX_ID + 1;
            if ((table[id >>> 6] & 1L << id) == 0) {
                table[id >>> 6] |= 1L << id;
                next = id % MAX_ID + 1;
                ids = table;
                return id;
            }
        }
        return -Errno.EBUSY;
    }

    /** Removes {@code id}: 0, or -EINVAL if it is not registered. Under the ring lock. */
    int unregister(int id) {
        if (!contains(id)) {
            return -Errno.EINVAL;
        }
        long[] table = ids.clone();
        table[id >>> 6] &= ~(1L << id);
        ids = table;
        return 0;
    }

    /** Whether {@code id} (an SQE's personality, 1..65535) is registered. */
    boolean contains(int id) {
        long[] table = ids;
        return table != null && id > 0 && id <= MAX_ID && (table[id >>> 6] & 1L << id) != 0;
    }
}
