package io.uring4j.portable;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.ring.abi.SqeLayout;
import io.uring4j.sys.Errno;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The SQ's consumer side (the kernel's io_submit_sqes and io_init_req): reads SQEs into requests, checks them
 * (prep: {@link OpDefs}), and hands each complete chain to {@link Links}. The SQ tail is read with acquire (SQE
 * contents after it) and the SQ head published with release (the slots may be reused). Only the thread in enter
 * runs it, one at a time: its state needs no lock.
 */
final class SqConsumer {
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final PortableRing ring;
    private final RingLock lock;
    private final MemorySegment mem;
    private final MemorySegment sqes;
    private final int sqEntries;
    private final int sqMask;
    /** 64 or 128 (SQE128). */
    private final int sqeSize;
    /** Offset of the SQ index array; -1 with NO_SQARRAY. */
    private final long arrayOff;
    /** SUBMIT_ALL: a chain refused at prep does not stop the batch. */
    private final boolean submitAll;
    /** Our SQ head: only enter moves it. */
    private int sqHead;

    SqConsumer(PortableRing ring, long arrayOff) {
        this.ring = ring;
        this.lock = ring.lock;
        this.mem = ring.mem;
        this.sqes = ring.sqes;
        this.sqEntries = ring.sqEntries;
        this.sqMask = ring.sqEntries - 1;
        this.sqeSize = (ring.setupFlags & SetupFlags.SQE128) != 0 ? 128 : 64;
        this.arrayOff = arrayOff;
        this.submitAll = (ring.setupFlags & SetupFlags.SUBMIT_ALL) != 0;
    }

    /** Consumes up to {@code toSubmit} SQEs; returns how many were consumed (io_submit_sqes). */
    int submit(int toSubmit) {
        int tail = (int) INT.getAcquire(mem, (long) RingLayout.SQ_TAIL);
        int n = Math.min(toSubmit, tail - sqHead);
        int consumed = 0;
        Request chainHead = null;
        Request chainTail = null;
        int chainError = 0;
        Request chainFailed = null;
        while (consumed < n) {
            int index = arrayOff < 0 ? sqHead & sqMask : mem.get(JAVA_INT, arrayOff + 4L * (sqHead & sqMask));
            sqHead++;
            consumed++;
            if (index < 0 || index >= sqEntries) {
                INT.setRelease(mem, (long) RingLayout.SQ_DROPPED, (int) INT.getOpaque(mem, (long) RingLayout.SQ_DROPPED) + 1);
                break;
            }
            Request r = acquire();
            int err = copySqe(r, (long) index * sqeSize);
            if (err == 0 && r.opcode == Opcode.LINK_TIMEOUT) {
                if (chainTail == null || chainTail.opcode == Opcode.LINK_TIMEOUT) {
                    err = -Errno.EINVAL;
                } else {
                    chainTail.linkTimeout = r;
                    r.linkTimeout = chainTail;
                }
            }
            boolean linksOn = (r.sqeFlags & (SqeFlags.IO_LINK | SqeFlags.IO_HARDLINK)) != 0;
            r.state = Request.LINKED;
            if (chainHead == null) {
                chainHead = r;
            } else {
                chainTail.link = r;
            }
            chainTail = r;
            if (err != 0 && chainFailed == null) {
                chainFailed = r;
                chainError = err;
            }
            if (!linksOn) {
                boolean stop = chainFailed != null && !submitAll;
                ring.links.submit(chainHead, chainFailed, chainError);
                chainHead = chainTail = chainFailed = null;
                if (stop) {
                    break;
                }
            }
        }
        if (chainHead != null) {
            ring.links.submit(chainHead, chainFailed, chainError);     // the batch ended inside a chain: it ends here
        }
        INT.setRelease(mem, (long) RingLayout.SQ_HEAD, sqHead);
        return consumed;
    }

    private Request acquire() {
        lock.lock();
        try {
            return lock.pool.acquire();
        } finally {
            lock.unlock();
        }
    }

    /** SUBMIT_STABLE: everything the request needs is copied now. Returns 0 or the prep error. */
    private int copySqe(Request r, long sqe) {
        final MemorySegment s = sqes;
        r.opcode = s.get(JAVA_BYTE, sqe + SqeLayout.OPCODE);
        r.sqeFlags = s.get(JAVA_BYTE, sqe + SqeLayout.FLAGS);
        r.ioprio = s.get(JAVA_SHORT, sqe + SqeLayout.IOPRIO) & 0xffff;
        r.fd = s.get(JAVA_INT, sqe + SqeLayout.FD);
        r.off = s.get(JAVA_LONG, sqe + SqeLayout.OFF);
        r.addr = s.get(JAVA_LONG, sqe + SqeLayout.ADDR);
        r.len = s.get(JAVA_INT, sqe + SqeLayout.LEN);
        r.opFlags = s.get(JAVA_INT, sqe + SqeLayout.OP_FLAGS);
        r.userData = s.get(JAVA_LONG, sqe + SqeLayout.USER_DATA);
        r.bufIndex = s.get(JAVA_SHORT, sqe + SqeLayout.BUF_INDEX) & 0xffff;
        r.fileIndex = s.get(JAVA_INT, sqe + SqeLayout.FILE_INDEX);
        if ((r.sqeFlags & ~OpDefs.SUPPORTED_SQE_FLAGS) != 0 || OpDefs.of(r.opcode) == null) {
            return -Errno.EINVAL;
        }
        int refused = admit(r, sqe);
        return refused != 0 ? refused : OpDefs.prep(r);
    }

    /**
     * The rest of the kernel's io_init_req, in its order: restrictions (-EACCES), the personality (-EINVAL),
     * and addr3 where an opcode reads it (FTRUNCATE, FIXED_FD_INSTALL, PIPE: must be zero; MSG_RING: SEND_FD's source
     * slot). A method of its own so that {@link #copySqe} stays small enough for the JIT to inline it into
     * {@link #submit}.
     */
    private int admit(Request r, long sqe) {
        Restrictions restrictions = ring.restrictions();
        if (restrictions != null && !restrictions.allows(r.opcode, r.sqeFlags & 0xff)) {
            return -Errno.EACCES;
        }
        int personality = sqes.get(JAVA_SHORT, sqe + SqeLayout.PERSONALITY) & 0xffff;
        if ((personality != 0 && !ring.personalities.contains(personality))
                || (r.opcode == Opcode.FTRUNCATE || r.opcode == Opcode.FIXED_FD_INSTALL || r.opcode == Opcode.PIPE)
                    && sqes.get(JAVA_LONG, sqe + SqeLayout.ADDR3) != 0) {
            return -Errno.EINVAL;
        }
        if (r.opcode == Opcode.MSG_RING) {
            r.progress = (int) sqes.get(JAVA_LONG, sqe + SqeLayout.ADDR3);
        }
        return 0;
    }
}
