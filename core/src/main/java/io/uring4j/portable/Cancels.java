package io.uring4j.portable;

import io.uring4j.ring.OpFlags;
import io.uring4j.ring.Opcode;
import io.uring4j.ring.SqeFlags;
import io.uring4j.sys.Errno;

/**
 * TIMEOUT, TIMEOUT_REMOVE and ASYNC_CANCEL: the requests that act on other requests. Targets are looked up by
 * scanning the ring's request pool under the lock (cancel is rare; a scan keeps the submission path free of
 * any index), taken out of the work queue, the timer or the poller there, and finished with -ECANCELED after
 * the lock is released, so the target's CQE always precedes the canceller's. The kernel agrees for queued work
 * and timeouts; a poll-armed target (a socket waiting for readiness) it completes through task work, after the
 * canceller's CQE — an order difference listed in package-info.
 */
final class Cancels {
    private static final int CANCEL_FLAGS = OpFlags.Cancel.ALL | OpFlags.Cancel.FD | OpFlags.Cancel.ANY
            | OpFlags.Cancel.FD_FIXED | OpFlags.Cancel.USERDATA | OpFlags.Cancel.OP;

    private Cancels() {
    }

    /** Arms a TIMEOUT: -ETIME at the deadline, or 0 once {@code off} other CQEs were posted. */
    static int timeout(PortableRing ring, Request r) {
        long nanos = PortableRing.timespecNanos(r.addr);
        if (nanos < 0) {
            return -Errno.EINVAL;
        }
        long deadline = (r.opFlags & OpFlags.Timeout.ABS) != 0 ? nanos : System.nanoTime() + nanos;
        ring.lock.lock();
        try {
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
            for (Request t : ring.pool.all) {
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
        ring.issue(ring.finish(target, -Errno.ECANCELED, false), false);
        return 0;
    }

    /**
     * ASYNC_CANCEL (and POLL_REMOVE, with {@code onlyOpcode}): by user_data, fd (plain or fixed), opcode, or any;
     * one match or, with ALL/ANY, all. Queued requests, armed timeouts and requests waiting on the poller for
     * readiness are cancelled; one inside its system call answers -EALREADY. Result: 0 or the count (ALL/ANY),
     * -EALREADY, -ENOENT, or -EBADF for an fd or slot with no file.
     */
    static int cancel(PortableRing ring, Request c, int onlyOpcode) {
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
            int found = fixed ? ring.registered.file(c.fd) : Sys.fcntl(c.fd, Sys.F_GETFD, 0);
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
            for (Request r : ring.pool.all) {
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
                    taken = ring.poller.remove(r) || ring.takeTaskWork(r);
                }
                if (!taken && !all && r.canceller == null && r.state == Request.RUNNING) {
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
            ring.issue(ring.finish(v, -Errno.ECANCELED, false), false);
        }
        if (count > 0 || all && !running) {
            return all ? count : 0;         // ALL/ANY count, nothing found too
        }
        return running ? -Errno.EALREADY : -Errno.ENOENT;
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
