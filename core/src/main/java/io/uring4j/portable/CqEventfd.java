package io.uring4j.portable;

import io.uring4j.sys.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.StampedLock;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The eventfd registered to hear of CQEs (REGISTER_EVENTFD, or _ASYNC: only for completions off the submitting
 * thread), signalled by {@link CqProducer#wake}. Held as a close-on-exec duplicate, as the kernel holds a
 * reference to the file: the application may close its own fd. Registered and unregistered under the ring lock.
 */
final class CqEventfd {
    /** The duplicate we signal, -1 for none. */
    volatile int fd = -1;
    /** The fd number the application registered: its reads' wake-ups are our own. */
    volatile int source = -1;
    volatile boolean asyncOnly;
    /** The 8-byte counter value written to the eventfd. */
    private final MemorySegment one;
    /**
     * Held shared by each {@link #signal} from its read of {@link #fd} until its write returns, and exclusively
     * by unregister to take the fd away: a signal that read the fd must not write to a number that was closed
     * meanwhile and reused for another file.
     */
    private final StampedLock inUse = new StampedLock();

    CqEventfd(Arena arena) {
        this.one = arena.allocate(8, 8);
        one.set(JAVA_LONG, 0, 1L);
    }

    int register(long arg, int nr, boolean asyncOnly) {
        if (nr != 1 || arg == 0) {
            return -Errno.EINVAL;
        }
        if (fd >= 0) {
            return -Errno.EBUSY;
        }
        int source = PortableRing.USER.get(JAVA_INT, arg);
        int dup = Sys.dup(source);
        if (dup < 0) {
            return dup;
        }
        this.source = source;
        this.asyncOnly = asyncOnly;
        fd = dup;
        return 0;
    }

    int unregister() {
        int fd = this.fd;
        if (fd < 0) {
            return -Errno.ENXIO;
        }
        long stamp = inUse.writeLock();
        try {
            this.fd = -1;
            source = -1;
        } finally {
            inUse.unlockWrite(stamp);
        }
        Sys.close(fd);
        return 0;
    }

    void signal() {
        long stamp = inUse.readLock();
        try {
            int fd = this.fd;
            if (fd >= 0) {
                Sys.write(fd, one.address(), 8);
            }
        } finally {
            inUse.unlockRead(stamp);
        }
    }

    /** The ring is closing (under its lock). */
    void close() {
        if (fd >= 0) {
            unregister();
        }
    }
}
