package io.uring4j.portable;

import io.uring4j.sys.ThreadScratch;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.uring4j.portable.Sys.handle;
import static io.uring4j.sys.Native.callState;
import static io.uring4j.sys.Native.result;
import static io.uring4j.sys.Native.rethrow;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * epoll(7) for the {@link Poller}: the three calls and {@code struct epoll_event}, which x86-64 packs into 12
 * bytes (events, then the 64-bit data at offset 4) and other architectures lay out naturally in 16.
 */
final class Epoll {
    static final int CTL_ADD = 1;
    static final int CTL_DEL = 2;
    static final int CTL_MOD = 3;
    static final int EPOLLIN = 0x1;
    static final int EPOLLOUT = 0x4;
    static final int EPOLLERR = 0x8;
    static final int EPOLLHUP = 0x10;
    static final int EPOLLONESHOT = 1 << 30;
    static final int EPOLLET = 1 << 31;
    private static final int EPOLL_CLOEXEC = 0x80000;
    private static final boolean PACKED = System.getProperty("os.arch").matches("amd64|x86_64");
    static final long EVENT_SIZE = PACKED ? 12 : 16;
    private static final long DATA = PACKED ? 4 : 8;

    private static final MethodHandle CREATE = handle("epoll_create1", JAVA_INT, JAVA_INT);
    private static final MethodHandle CTL = handle("epoll_ctl", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG);
    private static final MethodHandle WAIT = handle("epoll_wait", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT);
    /** One epoll_event per thread for epoll_ctl. */
    private static final ThreadScratch EVENT = new ThreadScratch(16);

    private Epoll() {
    }

    static int create() {
        MemorySegment s = callState();
        try {
            return (int) result((int) CREATE.invokeExact(s, EPOLL_CLOEXEC), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** epoll_ctl with {@code data} = {@code fd}. */
    static int ctl(int epfd, int op, int fd, int events) {
        return ctl(epfd, op, fd, events, 0);
    }

    /** epoll_ctl with {@code data} = {@code fd} in the low half, {@code tag} ({@link #tag}) in the high half. */
    static int ctl(int epfd, int op, int fd, int events, int tag) {
        MemorySegment s = callState();
        MemorySegment event = EVENT.get();
        event.set(JAVA_INT, 0, events);
        event.set(JAVA_LONG.withByteAlignment(4), DATA, (long) tag << 32 | Integer.toUnsignedLong(fd));
        try {
            return (int) result((int) CTL.invokeExact(s, epfd, op, fd, event.address()), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Waits up to {@code timeoutMillis} (-1: no limit) for events: their count (into {@code events}), or -errno
     * (EINTR included).
     */
    static int await(int epfd, MemorySegment events, int max, int timeoutMillis) {
        MemorySegment s = callState();
        try {
            return (int) result((int) WAIT.invokeExact(s, epfd, events.address(), max, timeoutMillis), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int events(MemorySegment events, int i) {
        return events.get(JAVA_INT, i * EVENT_SIZE);
    }

    static int fd(MemorySegment events, int i) {
        return (int) events.get(JAVA_LONG.withByteAlignment(4), i * EVENT_SIZE + DATA);
    }

    /** The tag the event's registration was made with (0 for none). */
    static int tag(MemorySegment events, int i) {
        return (int) (events.get(JAVA_LONG.withByteAlignment(4), i * EVENT_SIZE + DATA) >>> 32);
    }
}
