package io.uring4j.portable;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ThreadScratch;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Multishot RECVMSG: each message lands in a provided buffer laid out as the kernel lays it out —
 * {@code struct io_uring_recvmsg_out} (namelen, controllen, payloadlen, flags: four u32), then a name area and a
 * control area of the sizes the SQE's msghdr template gives, then the payload. The result is the whole: 16 +
 * both areas + the payload bytes.
 *
 * <p>The template's sizes are copied at prep (the kernel imports the msghdr there), into the request's
 * {@link Request#iov} scratch, so the application may reuse the template once submitted.
 */
final class MultishotRecvmsg {
    private static final MemorySegment USER = PortableRing.USER;
    private static final long OUT = 16;
    /** Per thread: a msghdr (56 bytes) and its one iovec, built for each receive. */
    private static final ThreadScratch MSGHDR = new ThreadScratch(72);

    private MultishotRecvmsg() {
    }

    /** Copies msg_namelen and msg_controllen of the template at {@code r.addr}. */
    static int prep(Request r) {
        if (r.iov == null) {
            r.iov = Arena.ofAuto().allocate(64, 8);
        }
        r.iov.set(JAVA_INT, 0, USER.get(JAVA_INT, r.addr + 8));
        r.iov.set(JAVA_LONG, 8, USER.get(JAVA_LONG, r.addr + 40));
        return 0;
    }

    /** One recvmsg into the buffer {@code buf} of {@code len} bytes: the result, 0 at end of stream, or -errno. */
    static int receive(Request r, int fd, long buf, int len, int flags) {
        int namelen = r.iov.get(JAVA_INT, 0);
        long controllen = r.iov.get(JAVA_LONG, 8);
        long header = OUT + Integer.toUnsignedLong(namelen) + controllen;
        if (Integer.toUnsignedLong(len) < header) {
            return -Errno.EFAULT;
        }
        long capacity = len - header;
        MemorySegment m = MSGHDR.get();
        m.set(JAVA_LONG, 0, namelen == 0 ? 0 : buf + OUT);
        m.set(JAVA_INT, 8, namelen);
        m.set(JAVA_LONG, 16, m.address() + 56);
        m.set(JAVA_LONG, 24, 1);
        m.set(JAVA_LONG, 32, controllen == 0 ? 0 : buf + OUT + namelen);
        m.set(JAVA_LONG, 40, controllen);
        m.set(JAVA_INT, 48, 0);
        m.set(JAVA_LONG, 56, buf + header);
        m.set(JAVA_LONG, 64, capacity);
        int n = SocketSys.transferMsg(false, fd, m.address(), flags);
        if (n < 0 || (n == 0 && SocketSys.isStream(fd))) {
            return n;
        }
        USER.set(JAVA_INT_UNALIGNED, buf, m.get(JAVA_INT, 8));
        USER.set(JAVA_INT_UNALIGNED, buf + 4, (int) m.get(JAVA_LONG, 40));
        USER.set(JAVA_INT_UNALIGNED, buf + 8, n);
        USER.set(JAVA_INT_UNALIGNED, buf + 12, m.get(JAVA_INT, 48));
        return (int) (header + Math.min(n, capacity));      // MSG_TRUNC may report more than fitted
    }
}
