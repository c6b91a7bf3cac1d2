package io.uring4j.portable;

import io.uring4j.sys.Errno;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Registered ring fds (REGISTER_RING_FDS, 5.18): as the kernel keeps them in the task's io_uring context, each
 * thread has a table of {@link #MAX} rings, and an enter or register with IORING_ENTER_REGISTERED_RING /
 * IORING_REGISTER_USE_REGISTERED_RING names a slot of the calling thread's table instead of a ring fd. A slot
 * may hold any ring, not only the one register was called on.
 *
 * <p>One difference: the kernel's slot holds a reference that keeps the ring alive after its fd is closed; here
 * closing the ring ends it, and its slots, still taken until unregistered, answer EBADF.
 */
final class RingFds {
    /** IO_RINGFD_REG_MAX: slots per thread. */
    static final int MAX = 16;
    /** {@code struct io_uring_rsrc_update}: offset (u32), resv (u32), data (u64). */
    private static final long UPDATE_SIZE = 16;
    private static final MemorySegment USER = PortableRing.USER;

    private static final ThreadLocal<PortableRing[]> TABLES = new ThreadLocal<>();

    private RingFds() {
    }

    /** The ring in the calling thread's slot {@code index}, or null ({@link #lookupError} says why). */
    static PortableRing ring(int index) {
        PortableRing[] table = TABLES.get();
        if (table == null || index < 0 || index >= MAX) {
            return null;
        }
        PortableRing ring = table[index];
        return ring == null || ring.closed ? null : ring;
    }

    /** Why {@link #ring} found nothing: EINVAL for a bad index or no table yet, EBADF for an empty slot. */
    static int lookupError(int index) {
        return TABLES.get() == null || index < 0 || index >= MAX ? -Errno.EINVAL : -Errno.EBADF;
    }

    /**
     * REGISTER_RING_FDS: {@code nr} updates, each naming a ring fd (data) and a slot (offset, or -1 for the
     * first free one, written back). Returns how many were registered, or the first one's error.
     */
    static int register(long arg, int nr) {
        int checked = checkUpdates(arg, nr);
        if (checked < 0) {
            return checked;
        }
        PortableRing[] table = TABLES.get();
        if (table == null) {
            table = new PortableRing[MAX];
            TABLES.set(table);
        }
        int done = 0;
        int error = 0;
        for (; done < nr; done++) {
            long up = arg + UPDATE_SIZE * done;
            int offset = USER.get(JAVA_INT, up);
            long data = USER.get(JAVA_LONG, up + 8);
            if (USER.get(JAVA_INT, up + 4) != 0 || (offset != -1 && (offset < 0 || offset >= MAX))) {
                error = -Errno.EINVAL;
                break;
            }
            PortableRing ring = data == (int) data ? PortableEngine.instance().ring((int) data) : null;
            if (ring == null) {
                // A real fd that is not a ring, or nothing at all.
                error = data == (int) data && data >= 0 && Sys.fcntl((int) data, Sys.F_GETFL, 0) >= 0
                        ? -Errno.EOPNOTSUPP : -Errno.EBADF;
                break;
            }
            int slot = offset == -1 ? firstFree(table) : table[offset] == null ? offset : -1;
            if (slot < 0) {
                error = -Errno.EBUSY;
                break;
            }
            table[slot] = ring;
            USER.set(JAVA_INT, up, slot);
        }
        return done > 0 ? done : error;
    }

    /** {@code nr} updates at {@code arg}: 1 to {@link #MAX} of them (EINVAL), at a real address (EFAULT). */
    private static int checkUpdates(long arg, int nr) {
        return nr <= 0 || nr > MAX ? -Errno.EINVAL : arg == 0 ? -Errno.EFAULT : 0;
    }

    private static int firstFree(PortableRing[] table) {
        for (int i = 0; i < MAX; i++) {
            if (table[i] == null) {
                return i;
            }
        }
        return -1;
    }

    /**
     * UNREGISTER_RING_FDS: empties the slots the updates name (offset; data and resv must be zero). An empty slot
     * is not an error. Returns how many updates were done, or the first one's error.
     */
    static int unregister(long arg, int nr) {
        int checked = checkUpdates(arg, nr);
        if (checked < 0) {
            return checked;
        }
        PortableRing[] table = TABLES.get();
        if (table == null) {
            return 0;
        }
        int done = 0;
        for (; done < nr; done++) {
            long up = arg + UPDATE_SIZE * done;
            int offset = USER.get(JAVA_INT, up);
            if (USER.get(JAVA_INT, up + 4) != 0 || USER.get(JAVA_LONG, up + 8) != 0 || offset < 0 || offset >= MAX) {
                return done > 0 ? done : -Errno.EINVAL;
            }
            table[offset] = null;
        }
        return done;
    }
}
