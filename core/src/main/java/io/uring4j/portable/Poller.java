package io.uring4j.portable;

import io.uring4j.sys.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.StampedLock;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The kernel's internal poll arming, on epoll: a request that would block (EAGAIN) is armed here on its fd and
 * the thread that tried it moves on; one thread per ring waits in epoll_wait for every armed request and, when
 * an fd is ready, hands the requests waiting on it back to the ring ({@link TaskWork#readied}) to try again.
 * Ten thousand idle sockets cost ten thousand epoll entries, not ten thousand threads.
 *
 * <p>Several requests may wait on one fd (a recv and a send, two accepts): they share one epoll registration
 * for the union of their events, EPOLLONESHOT, re-armed with what is still wanted after each wake-up. A
 * multishot POLL_ADD gets a registration of its own, edge-triggered on a duplicate of the fd, so that, as in
 * the kernel, it fires once per wake-up rather than for as long as the fd stays ready.
 *
 * <p>Who waits in epoll_wait: on a DEFER_TASKRUN ring, the issuer itself, in enter ({@link #poll}) — the kernel
 * runs such a ring's task work only there, so readiness costs no thread hand-off; the waiter's wake-ups (io-wq
 * completions, timeouts) come through {@link #wakeUp}, an eventfd in the set. Otherwise, or once the ring has a
 * registered eventfd (which must say "work pending" while the issuer is away), a thread of the poller's own.
 *
 * <p>The armed requests are linked through {@link Request#nextQueued} in a table indexed by fd; everything is
 * guarded by the ring lock, so cancel takes an armed request out atomically ({@link #remove}). The epoll fd and
 * the thread are created with the first request that has to wait.
 */
final class Poller {
    private static final int MAX_EVENTS = 64;
    private static final long CLOSE_WAIT_MILLIS = TimeUnit.SECONDS.toMillis(2);

    private final PortableRing ring;
    private final String name;
    /** Requests armed per fd (for a multishot poll: per duplicate), newest first. */
    private Request[] byFd = new Request[64];
    /**
     * The events each fd is registered with, 0 for none: the next wait on a registered fd is one MOD, not an
     * ADD (and no DEL when its last request leaves). A stale entry — the fd closed and its number reused — only
     * turns the MOD into an ADD ({@link #register}).
     */
    private int[] registered = new int[64];
    /**
     * The {@link #round} in which each fd last reported an event: its registration is live then, so a request
     * taken from it that waits again in the same round (a multishot receive that emptied the socket) finds it
     * still armed and needs no epoll_ctl at all. Only that request ({@link Request#firedRound}): between the
     * wake-up and another's wait the fd may have been closed and its number reused.
     */
    private int[] firedRound = new int[64];
    /**
     * The tag ({@link Epoll#tag}) of the multishot poll registered on each duplicate, 0 for none. An event
     * epoll_wait returned for a duplicate that is cancelled (closed) before we take the lock must not go to a
     * multishot poll whose duplicate got the same number meanwhile: their tags differ.
     */
    private int[] multishotTag = new int[64];
    /** The last tag given out: never 0, which plain registrations carry. */
    private int lastTag;
    /** Issuer polls so far: one round per {@link #poll}. */
    private int round = 1;
    private int epfd = -1;
    /**
     * An eventfd in the epoll set, edge-triggered so that every write is one wake-up and nobody reads it: written
     * to wake the issuer polling in enter, or to stop the thread. Package-private for tests.
     */
    int wakeFd = -1;
    /**
     * Held shared by each {@link #wakeUp} from its read of {@link #wakeFd} until its write returns, and
     * exclusively by {@link #releaseFds} to take the eventfd away: a poster (an io-wq worker, the timer, another
     * ring's MSG_RING) that read the number must not write to it after it was closed and reused for another file.
     */
    private final StampedLock wakeFdInUse = new StampedLock();
    /** The 8-byte counter value written to {@link #wakeFd}. */
    private final MemorySegment one = Arena.ofAuto().allocate(JAVA_LONG);
    /** The native AIO context's eventfd ({@link DirectIo}), -1 until direct I/O is first used. */
    private int aioFd = -1;
    /** The AIO eventfd fired: the thread that saw it reaps once it has left the lock. */
    private boolean aioReady;
    /** The issuer's event array ({@link #poll}). */
    private MemorySegment issuerEvents;
    /** Requests armed (multishot polls included): with TASKRUN_FLAG, IORING_SQ_TASKRUN says "enter to poll". */
    private int armed;
    /** Whether a thread of our own waits in epoll_wait, rather than the issuer in enter. */
    private volatile boolean threaded;
    private Thread thread;
    /** The issuer is in {@link #poll}: close leaves the fds to it. */
    private boolean polling;
    private boolean closed;

    Poller(PortableRing ring, String name, boolean threaded) {
        this.ring = ring;
        this.name = name;
        this.threaded = threaded;
        one.set(JAVA_LONG, 0, 1L);
    }

    /** Whether the issuer polls in enter (a DEFER_TASKRUN ring with no registered eventfd). */
    boolean issuerPolls() {
        return !threaded;
    }

    /** Whether anything is armed: something enter should poll for. Under the ring lock, or as a hint. */
    boolean hasArmed() {
        return armed > 0;
    }

    /**
     * From now on a thread of our own waits (a registered eventfd must be signalled while the issuer is away).
     * By the issuer, under the ring lock: it is not polling now.
     */
    void useThread() {
        if (threaded) {
            return;
        }
        threaded = true;
        if (epfd >= 0 && thread == null && !closed) {
            thread = Thread.ofPlatform().daemon().name(name).start(this::run);
        }
    }

    /**
     * Arms {@code r} (RUNNING, about to wait) until {@code fd} reports one of {@code events}, or an error or
     * hang-up; the request becomes POLLING. Returns 0, -ECANCELED if a cancel has already asked for it, or the
     * epoll_ctl error — EPERM for a file that is always ready (a regular file). Under the ring lock.
     */
    int arm(Request r, int fd, int events) {
        if (r.cancelRequested || closed) {
            return -Errno.ECANCELED;
        }
        int ret = start();
        if (ret < 0) {
            return ret;
        }
        ensure(fd);
        int want = union(byFd[fd], events);
        int reg = registered[fd];
        // Issuer polling: level-triggered registrations that stay armed across a request's re-arming in the
        // round its fd fired (the common case: receive, empty, wait again — no system call). A poller thread
        // needs EPOLLONESHOT instead: it would report a ready fd again and again until the issuer ran its work.
        boolean stillArmed = !threaded && firedRound[fd] == round && r.firedRound == round && r.pollFd == fd
                && (reg & Epoll.EPOLLONESHOT) == 0 && (reg & want) == want;
        if (!stillArmed) {
            int value = threaded ? want | Epoll.EPOLLONESHOT : want;
            ret = register(fd, reg == 0, value);
            if (ret < 0) {
                return ret;
            }
            registered[fd] = value;
        }
        link(r, fd, events);
        return 0;
    }

    private void ensure(int fd) {
        if (fd >= byFd.length) {
            int length = Math.max(fd + 1, byFd.length * 2);
            byFd = Arrays.copyOf(byFd, length);
            registered = Arrays.copyOf(registered, length);
            firedRound = Arrays.copyOf(firedRound, length);
            multishotTag = Arrays.copyOf(multishotTag, length);
        }
    }

    /** Arms a multishot poll: an edge-triggered registration of a duplicate of {@code fd}. Under the ring lock. */
    int armMultishot(Request r, int fd, int events) {
        if (r.cancelRequested || closed) {
            return -Errno.ECANCELED;
        }
        int ret = start();
        if (ret < 0) {
            return ret;
        }
        int dup = Sys.dup(fd);
        if (dup < 0) {
            return dup;
        }
        int tag = ++lastTag == 0 ? ++lastTag : lastTag;
        ret = Epoll.ctl(epfd, Epoll.CTL_ADD, dup, (events & 0xffff) | Epoll.EPOLLET, tag);
        if (ret < 0) {
            Sys.close(dup);
            return ret;
        }
        ensure(dup);
        multishotTag[dup] = tag;
        r.multishotPoll = true;
        link(r, dup, events);
        return 0;
    }

    /** Takes an armed request out (cancel, link timeout): true if it was armed; it is RUNNING then. Under the lock. */
    boolean remove(Request r) {
        if (r.state != Request.POLLING) {
            return false;
        }
        int fd = r.pollFd;
        Request prev = null;
        Request q = byFd[fd];
        while (q != r) {            // a POLLING request is always in its fd's list
            prev = q;
            q = q.nextQueued;
        }
        if (prev == null) {
            byFd[fd] = r.nextQueued;
        } else {
            prev.nextQueued = r.nextQueued;
        }
        unlinked(r);
        if (r.multishotPoll) {
            Epoll.ctl(epfd, Epoll.CTL_DEL, fd, 0);
            multishotTag[fd] = 0;
            Sys.close(fd);
        } else {
            rearm(fd);
        }
        return true;
    }

    /** Creates the epoll set (and, if threaded, the thread). Under the ring lock. */
    int start() {
        if (epfd >= 0) {
            return 0;
        }
        if (closed) {
            return -Errno.ECANCELED;
        }
        int ep = Epoll.create();
        if (ep < 0) {
            return ep;
        }
        int wake = Sys.eventfd(0, Sys.EFD_CLOEXEC_NONBLOCK);
        int ret = wake < 0 ? wake : Epoll.ctl(ep, Epoll.CTL_ADD, wake, Epoll.EPOLLIN | Epoll.EPOLLET);
        if (ret < 0) {
            if (wake >= 0) {
                Sys.close(wake);
            }
            Sys.close(ep);
            return ret;
        }
        epfd = ep;
        wakeFd = wake;
        if (threaded) {
            thread = Thread.ofPlatform().daemon().name(name).start(this::run);
        } else {
            issuerEvents = Arena.ofAuto().allocate(Epoll.EVENT_SIZE * MAX_EVENTS, 8);
        }
        return 0;
    }

    /**
     * Creates the epoll set and its wake-up eventfd, if not there yet: before the issuer publishes itself as
     * waiting, so that a poster who finds it waiting has an eventfd to write ({@link #wakeUp} before the set
     * exists wakes nobody). Returns -errno if the set cannot be created, else 0.
     */
    int open() {
        ring.lock.lock();
        try {
            return start();
        } finally {
            ring.lock.unlock();
        }
    }

    /**
     * The issuer's wait, in enter: up to {@code timeoutMillis} (-1: no limit, 0: just look) for armed requests to
     * become ready, or for {@link #wakeUp}; the ready ones run right here. Returns -errno if the set cannot be
     * created, else 0.
     */
    int poll(int timeoutMillis) {
        ring.lock.lock();
        try {
            int ret = start();
            if (ret < 0) {
                return ret;
            }
            polling = true;
            round++;
        } finally {
            ring.lock.unlock();
        }
        int n = Epoll.await(epfd, issuerEvents, MAX_EVENTS, timeoutMillis);
        Request ready = null;
        ring.lock.lock();
        try {
            polling = false;
            if (closed) {
                releaseFds();
                return 0;
            }
            ready = fired(issuerEvents, n);
        } finally {
            ring.lock.unlock();
        }
        dispatch(ready);
        return 0;
    }

    /** Takes out what {@code n} events (n < 0: none) made ready, linked through nextQueued. Under the ring lock. */
    private Request fired(MemorySegment events, int n) {
        Request ready = null;
        for (int i = 0; i < n; i++) {
            ready = fired(Epoll.fd(events, i), Epoll.events(events, i), Epoll.tag(events, i), ready);
        }
        return ready;
    }

    /** After a wait, outside the lock: direct I/O is reaped and the ready requests run again. */
    private void dispatch(Request ready) {
        reapAio();
        if (ready != null) {
            ring.taskWork.readied(ready);
        }
    }

    /**
     * Adds the AIO context's eventfd to the set (edge-triggered: every completion signals anew, and the reaper
     * resets the counter before it reaps). Under the ring lock; 0 or -errno.
     */
    int watchAio(int fd) {
        int ret = start();
        if (ret == 0) {
            ret = Epoll.ctl(epfd, Epoll.CTL_ADD, fd, Epoll.EPOLLIN | Epoll.EPOLLET);
        }
        if (ret == 0) {
            aioFd = fd;
        }
        return ret;
    }

    /** Reaps direct I/O if its eventfd fired. */
    private void reapAio() {
        if (aioReady) {
            aioReady = false;
            ring.directIo.reap();
        }
    }

    /** Ends the issuer's {@link #poll} (or makes its next one return at once). */
    void wakeUp() {
        long stamp = wakeFdInUse.readLock();
        try {
            int fd = wakeFd;
            if (fd >= 0) {
                Sys.write(fd, one.address(), 8);
            }
        } finally {
            wakeFdInUse.unlockRead(stamp);
        }
    }

    private static int union(Request head, int events) {
        int union = events & 0xffff;
        for (Request q = head; q != null; q = q.nextQueued) {
            union |= q.pollEvents & 0xffff;
        }
        return union;
    }

    /** ADD or MOD, falling back to the other when the fd's epoll entry is not what our table thinks (a reused fd). */
    private int register(int fd, boolean add, int events) {
        int ret = Epoll.ctl(epfd, add ? Epoll.CTL_ADD : Epoll.CTL_MOD, fd, events);
        if (ret == -Errno.EEXIST || ret == -Errno.ENOENT) {
            ret = Epoll.ctl(epfd, add ? Epoll.CTL_MOD : Epoll.CTL_ADD, fd, events);
        }
        return ret;
    }

    private void link(Request r, int fd, int events) {
        ensure(fd);
        r.pollFd = fd;
        r.pollEvents = events;
        r.revents = 0;
        r.state = Request.POLLING;
        r.nextQueued = byFd[fd];
        byFd[fd] = r;
        if (armed++ == 0) {
            ring.taskWork.pendingChanged();
        }
    }

    /** {@code r} left its fd's list. */
    private void unlinked(Request r) {
        r.nextQueued = null;
        r.state = Request.RUNNING;
        if (--armed == 0) {
            ring.taskWork.pendingChanged();
        }
    }

    /**
     * After requests left {@code fd}: re-arm it for those still waiting. With none left it stays in the set as
     * it is — spent after a wake-up; after a cancel possibly still armed, costing at most one wake-up that finds
     * nobody and, one-shot, disarms it.
     */
    private void rearm(int fd) {
        Request head = byFd[fd];
        if (threaded && head != null) {
            int value = union(head, 0) | Epoll.EPOLLONESHOT;
            register(fd, false, value);
            registered[fd] = value;
            return;
        }
        // Level-triggered (or left so by the issuer before a thread took over): narrow the registration to what
        // is still wanted, or disarm it (one-shot with no events: at most one more report, of an error or
        // hang-up), so that a ready fd nobody waits on stops being reported. A spent one-shot stays as it is.
        if (threaded && (registered[fd] & Epoll.EPOLLONESHOT) != 0) {
            return;
        }
        int value = head == null ? Epoll.EPOLLONESHOT : union(head, 0);
        if (registered[fd] != value) {
            register(fd, false, value);
            registered[fd] = value;
        }
    }

    private void run() {
        MemorySegment events = Arena.ofAuto().allocate(Epoll.EVENT_SIZE * MAX_EVENTS, 8);
        try {
            while (true) {
                int n = Epoll.await(epfd, events, MAX_EVENTS, -1);
                if (n == -Errno.EINTR) {
                    continue;
                }
                Request ready = null;
                ring.lock.lock();
                try {
                    if (closed || n < 0) {
                        return;
                    }
                    ready = fired(events, n);
                } finally {
                    ring.lock.unlock();
                }
                dispatch(ready);
            }
        } catch (IllegalStateException e) {
            if (!ring.closed) {
                throw e;
            }
        } finally {
            releaseFds();
        }
    }

    /**
     * The thread leaves: closes the epoll fd, the wake-up eventfd and the duplicates of multishot polls. Only
     * this thread (or the issuer leaving {@link #poll}, or close when nobody waits) closes them, after their last
     * use, so that no fd number still in use is reused meanwhile; posters' {@link #wakeUp}s, which do not take
     * the ring lock, are waited for ({@link #wakeFdInUse}). Under the ring lock, or taking it.
     */
    private void releaseFds() {
        ring.lock.lock();
        try {
            closed = true;
            for (int fd = 0; fd < byFd.length; fd++) {
                if (byFd[fd] != null && byFd[fd].multishotPoll) {
                    Sys.close(fd);
                }
                byFd[fd] = null;
            }
            armed = 0;
            if (epfd >= 0) {
                int wake = wakeFd;
                long stamp = wakeFdInUse.writeLock();      // waits for posters writing to it right now
                wakeFd = -1;
                wakeFdInUse.unlockWrite(stamp);
                Sys.close(epfd);
                Sys.close(wake);
                epfd = -1;
            }
        } finally {
            ring.lock.unlock();
        }
    }

    /**
     * {@code fd} reported {@code revents}: takes out every request waiting for one of them (or for nothing in
     * particular: an error or hang-up is everybody's) and prepends it to {@code ready}; a multishot poll posts
     * its CQE and stays — if the event is its own ({@code tag}). Under the ring lock.
     */
    private Request fired(int fd, int revents, int tag, Request ready) {
        if (fd == aioFd) {
            aioReady = true;
            return ready;
        }
        Request head = fd < byFd.length ? byFd[fd] : null;
        if (tag != 0 || (head != null && head.multishotPoll)) {
            // A multishot poll's registration, or an event for one: only the poll registered with this tag is
            // ready. Another tag (or none) is an event of a duplicate cancelled and closed since epoll_wait
            // returned, or of a file that had the number before: its requests are gone.
            if (head != null && head.multishotPoll && multishotTag[fd] == tag) {
                ring.cq.postMore(head, revents & (head.pollEvents | Epoll.EPOLLERR | Epoll.EPOLLHUP), 0);
            }
            return ready;
        }
        if (head == null) {
            if (fd < byFd.length && fd != wakeFd) {
                rearm(fd);      // level-triggered and nobody waits: stop the reports
            }
            return ready;      // the wake-up eventfd, or requests cancelled since
        }
        Request before = ready;
        Request prev = null;
        for (Request q = head; q != null; ) {
            Request next = q.nextQueued;
            if ((revents & (q.pollEvents | Epoll.EPOLLERR | Epoll.EPOLLHUP)) != 0) {
                if (prev == null) {
                    byFd[fd] = next;
                } else {
                    prev.nextQueued = next;
                }
                q.revents = revents;
                q.firedRound = round;
                unlinked(q);
                q.nextQueued = ready;
                ready = q;
            } else {
                prev = q;
            }
            q = next;
        }
        if (threaded || ready == before) {
            rearm(fd);      // one-shot: spent; level-triggered: nobody taken, so narrow it
        } else {
            firedRound[fd] = round;     // live: whoever was taken may wait again without a system call
        }
        return ready;
    }

    /**
     * The ring closes: stops the thread and drops what is armed (the ring's memory goes with it). Waits a
     * bounded time for the thread, which may be finishing a request; it releases its fds itself.
     */
    void close() {
        Thread t;
        ring.lock.lock();
        try {
            closed = true;
            t = thread;
            if (t != null || polling) {
                wakeUp();
            } else {
                releaseFds();
            }
        } finally {
            ring.lock.unlock();
        }
        if (t == null) {
            return;
        }
        try {
            t.join(CLOSE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
