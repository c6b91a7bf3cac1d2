package io.uring4j.portable;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterArgLayout;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * TIMEOUT, TIMEOUT_REMOVE and ASYNC_CANCEL: the requests that act on other requests; and REGISTER_SYNC_CANCEL.
 * Targets are looked up by scanning the ring's request pool under the lock (cancel is rare; a scan keeps the
 * submission path free of any index), taken out of the work queue, the timer or the poller there, and finished
 * with -ECANCELED after the lock is released, so the target's CQE always precedes the canceller's. The kernel
 * agrees for queued work and timeouts; a poll-armed target (a socket waiting for readiness) it completes through
 * task work, after the canceller's CQE — an order difference listed in package-info.
 */
final class Cancels {
    private static final int CANCEL_FLAGS = OpFlags.Cancel.ALL | OpFlags.Cancel.FD | OpFlags.Cancel.ANY
            | OpFlags.Cancel.FD_FIXED | OpFlags.Cancel.USERDATA | OpFlags.Cancel.OP;
    private static final MemorySegment USER = PortableRing.USER;
    /** The sleeps of a synchronous cancel between looks at a running target. */
    private static final long SYNC_POLL_MIN_NANOS = 20_000;
    private static final long SYNC_POLL_MAX_NANOS = 5_000_000;

    private Cancels() {
    }

    /**
     * Arms a TIMEOUT: -ETIME at the deadline, or 0 once {@code off} other CQEs were posted; -ECANCELED if a
     * cancel or a LINK_TIMEOUT asked for it while it was on its way here, as {@link Poller#arm} answers.
     */
    static int timeout(PortableRing ring, Request r) {
        long nanos = PortableRing.timespecNanos(r.addr);
        if (nanos < 0) {
            return -Errno.EINVAL;
        }
        long deadline = (r.opFlags & OpFlags.Timeout.ABS) != 0 ? nanos : System.nanoTime() + nanos;
        ring.lock.lock();
        try {
            if (r.cancelRequested) {
                return -Errno.ECANCELED;    // a cancel found it running since Links.run looked: it waits for us
            }
            r.countLeft = (int) Math.min(Integer.toUnsignedLong((int) r.off), Integer.MAX_VALUE);
            ring.timer.arm(r, deadline);
        } finally {
            ring.lock.unlock();
        }
        return PortableRing.PENDING;
    }

    /**
     * Removes (-ECANCELED) or, with UPDATE, re-arms the armed TIMEOUT whose user_data is {@code addr}; with
     * LINK_TIMEOUT_UPDATE, re-arms an armed LINK_TIMEOUT. Flags were checked at prep.
     */
    static int timeoutRemove(PortableRing ring, Request r) {
        boolean linkUpdate = (r.opFlags & OpFlags.Timeout.LINK_TIMEOUT_UPDATE) != 0;
        boolean update = linkUpdate || (r.opFlags & OpFlags.Timeout.UPDATE) != 0;
        byte opcode = linkUpdate ? Opcode.LINK_TIMEOUT : Opcode.TIMEOUT;
        Request target = null;
        ring.lock.lock();
        try {
            for (Request t : ring.lock.pool.all) {
                if (t != null && t.opcode == opcode && t.userData == r.addr
                        && (t.state == Request.ARMED || t.state == Request.RUNNING)) {
                    target = t;
                    break;
                }
            }
            if (target == null) {
                return -Errno.ENOENT;
            }
            if (target.state != Request.ARMED) {
                return -Errno.EALREADY;    // firing right now
            }
            if (update) {
                long nanos = PortableRing.timespecNanos(r.off);
                ring.timer.rearm(target, (r.opFlags & OpFlags.Timeout.ABS) != 0 ? nanos : System.nanoTime() + nanos);
                return 0;
            }
            ring.timer.remove(target);
        } finally {
            ring.lock.unlock();
        }
        ring.links.complete(target, -Errno.ECANCELED, false);
        return 0;
    }

    /**
     * ASYNC_CANCEL (and POLL_REMOVE, with {@code onlyOpcode}): by user_data, fd (plain or fixed), opcode, or any;
     * one match or, with ALL/ANY, all. Queued requests, armed timeouts and requests waiting on the poller for
     * readiness are cancelled; one inside its system call answers -EALREADY. Result: 0, -EALREADY or -ENOENT for
     * one match; with ALL/ANY the number of matches (running ones included, as the kernel counts its running
     * io-wq work), 0 if none; -EBADF for an fd or slot with no file behind it.
     */
    static int cancel(PortableRing ring, Request c, int onlyOpcode) {
        return cancel(ring, c, onlyOpcode, true);
    }

    /**
     * REGISTER_SYNC_CANCEL with {@code struct io_uring_sync_cancel_reg} at {@code arg}: cancels as ASYNC_CANCEL
     * does, and if its one match is running (-EALREADY) keeps trying until the request is gone — finished, as
     * the kernel waits on its CQ — or the timeout passes (-ETIME). Returns 0 for one match, -ENOENT for none, the
     * count with ALL/ANY (which, as in the kernel, does not wait for running matches), or -EBADF for a bad fd
     * (checked by each cancel: a slot may be emptied while we wait).
     * Waiting, it looks again after a sleep that doubles from 20 µs to 5 ms: a request inside a system call
     * signals nothing when it ends, and this is not a hot path.
     */
    static int sync(PortableRing ring, long arg) {
        long userData = USER.get(JAVA_LONG, arg + RegisterArgLayout.SYNC_CANCEL_ADDR);
        int fd = USER.get(JAVA_INT, arg + RegisterArgLayout.SYNC_CANCEL_FD);
        int flags = USER.get(JAVA_INT, arg + RegisterArgLayout.SYNC_CANCEL_FLAGS);
        long sec = USER.get(JAVA_LONG, arg + RegisterArgLayout.SYNC_CANCEL_TIMEOUT_SEC);
        long nsec = USER.get(JAVA_LONG, arg + RegisterArgLayout.SYNC_CANCEL_TIMEOUT_NSEC);
        if ((flags & ~CANCEL_FLAGS) != 0) {
            return -Errno.EINVAL;
        }
        for (long at = arg + RegisterArgLayout.SYNC_CANCEL_PAD; at < arg + RegisterArgLayout.SYNC_CANCEL_SIZE; at++) {
            if (USER.get(JAVA_BYTE, at) != 0) {
                return -Errno.EINVAL;       // pad and pad2
            }
        }
        Request c = new Request();          // stands for the cancel request: what matches() compares against
        c.addr = userData;
        c.fd = fd;
        c.opFlags = flags;
        c.len = USER.get(JAVA_BYTE, arg + RegisterArgLayout.SYNC_CANCEL_OPCODE) & 0xff;
        long deadline = sec == -1 && nsec == -1 ? Long.MAX_VALUE
                : System.nanoTime() + Math.max(0, sec * 1_000_000_000L + nsec);
        long sleep = SYNC_POLL_MIN_NANOS;
        boolean first = true;
        while (true) {
            int ret = cancel(ring, c, -1, false);
            if (ret != -Errno.EALREADY) {
                if (!first && (ret == -Errno.ENOENT || ret > 0)) {
                    return 0;       // after waiting, "gone" is success, as in the kernel
                }
                return ret;
            }
            first = false;
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return -Errno.ETIME;
            }
            LockSupport.parkNanos(Math.min(sleep, left));
            if (Thread.interrupted()) {
                return -Errno.EINTR;
            }
            sleep = Math.min(2 * sleep, SYNC_POLL_MAX_NANOS);
        }
    }

    /**
     * {@link #cancel(PortableRing, Request, int)}; a single running match makes the cancel request {@code c}
     * wait for its outcome if {@code mayWait}, else it is asked to stop and the answer is -EALREADY.
     */
    private static int cancel(PortableRing ring, Request c, int onlyOpcode, boolean mayWait) {
        int flags = onlyOpcode < 0 ? c.opFlags : 0;     // POLL_REMOVE: by user_data, poll requests only
        if ((flags & ~CANCEL_FLAGS) != 0) {
            return -Errno.EINVAL;
        }
        boolean all = (flags & (OpFlags.Cancel.ALL | OpFlags.Cancel.ANY)) != 0;
        int slotFd = -1;        // FD_FIXED: the slot's fd, held by the requests that looked the slot up
        if ((flags & OpFlags.Cancel.FD) != 0) {
            if ((c.sqeFlags & SqeFlags.FIXED_FILE) != 0) {
                flags |= OpFlags.Cancel.FD_FIXED;       // the cancel's own IOSQE_FIXED_FILE says the same
            }
            boolean fixed = (flags & OpFlags.Cancel.FD_FIXED) != 0;
            int found = fixed ? ring.files.file(c.fd) : Sys.fcntl(c.fd, Sys.F_GETFD, 0);
            if (found < 0) {
                return -Errno.EBADF;        // no file behind the fd or the slot: the kernel has nothing to match
            }
            slotFd = fixed ? found : -1;
        }
        Request victims = null;
        Request victimsTail = null;
        int count = 0;
        boolean running = false;
        ring.lock.lock();
        try {
            for (Request r : ring.lock.pool.all) {
                if (r == null || r == c || r.opcode == Opcode.LINK_TIMEOUT || !matches(c, flags, slotFd, r)
                        || (onlyOpcode >= 0 && r.opcode != onlyOpcode)) {
                    continue;
                }
                if (r.state != Request.QUEUED && r.state != Request.ARMED && r.state != Request.RUNNING
                        && r.state != Request.POLLING && r.state != Request.READY) {
                    continue;       // free, deferred or waiting in a chain: not cancellable on its own
                }
                boolean taken = false;
                if (r.state == Request.ARMED) {
                    ring.timer.remove(r);
                    taken = true;
                } else if (r.state == Request.QUEUED) {
                    taken = ring.wq.remove(r);
                } else {
                    taken = ring.poller.remove(r) || ring.taskWork.take(r);
                }
                if (!taken && mayWait && !all && r.canceller == null && r.state == Request.RUNNING) {
                    // Running (a worker or the poller is trying it): asked to stop, it ends -ECANCELED if it comes
                    // to wait for readiness, else with its result. Our answer waits for which (0 or -EALREADY),
                    // as the target's CQE precedes ours in the kernel too.
                    r.cancelRequested = true;
                    r.canceller = c;
                    return PortableRing.PENDING;
                }
                if (!taken) {
                    r.cancelRequested = true;
                    running = true;
                    if (!all) {
                        break;
                    }
                    count++;
                    continue;
                }
                r.state = Request.RUNNING;
                if (victims == null) {
                    victims = r;
                } else {
                    victimsTail.nextQueued = r;
                }
                victimsTail = r;
                count++;
                if (!all) {
                    break;
                }
            }
        } finally {
            ring.lock.unlock();
        }
        while (victims != null) {
            Request v = victims;
            victims = v.nextQueued;
            v.nextQueued = null;
            ring.links.complete(v, -Errno.ECANCELED, false);
        }
        if (all) {
            return count;
        }
        return count > 0 ? 0 : running ? -Errno.EALREADY : -Errno.ENOENT;
    }

    private static boolean matches(Request c, int flags, int slotFd, Request r) {
        if ((flags & OpFlags.Cancel.ANY) != 0) {
            return true;
        }
        boolean match = true;
        if ((flags & OpFlags.Cancel.FD) != 0) {
            // A request that looked its fixed file up holds that fd: it is matched by the slot's fd, as the
            // kernel matches the file; one not issued yet still names the slot.
            boolean fixed = (r.sqeFlags & SqeFlags.FIXED_FILE) != 0;
            match = (flags & OpFlags.Cancel.FD_FIXED) == 0 ? !fixed && !r.fileHeld && r.fd == c.fd
                    : r.fileHeld ? r.fd == slotFd : fixed && r.fd == c.fd;
        }
        if ((flags & OpFlags.Cancel.OP) != 0) {
            match &= r.opcode == c.len;
        }
        if ((flags & OpFlags.Cancel.USERDATA) != 0 || (flags & (OpFlags.Cancel.FD | OpFlags.Cancel.OP)) == 0) {
            match &= r.userData == c.addr;
        }
        return match;
    }
}
