package io.uring4j.net;

import io.uring4j.ring.Cqe;
import io.uring4j.ring.Engine;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A {@link java.nio.channels.Selector} on its own io_uring: each key with a non-empty interest set has one
 * multishot POLL_ADD armed on its channel's fd, and each select is one {@code io_uring_enter} on the selecting
 * thread that submits the interest changes queued since the last one and waits for completions.
 *
 * <p>Level-triggered as the JDK's selectors are, over edge-like multishot polls: a poll's report is cached in
 * the channel's {@link Readiness} until a non-blocking call there finds the socket not ready, and a key whose
 * cached readiness meets its interest is selected again by the next select, which then does not wait. The keys
 * that may be ready are kept in a candidate list, so a select costs in proportion to the ready keys.
 *
 * <p>A connected socket's reads and writes skip the system calls: a multishot receive fills its {@link Inbox}
 * (in place of a POLLIN poll), and writes between selects queue in its {@link Outbox} and go out with the next
 * enter ({@link SelectorSends}).
 *
 * <p>Deregistration (cancelled keys, at the next select; all keys on close) removes the key's poll and cancels
 * its receive (its queued sends still go out), and its hold on the channel's fd ends with the final CQE of the
 * last: a closed channel's fd is closed then, never while a request may still name it.
 */
final class UringSelector extends AbstractSelector {
    /**
     * How long a closed channel's queued bytes may wait for a peer that does not read before their send is
     * cancelled and the fd closed ({@code -During4j.selector.closeLingerMillis}, read at each such close).
     */
    static final String LINGER_PROPERTY = "uring4j.selector.closeLingerMillis";
    private static final long LINGER_DEFAULT_MILLIS = 30_000;
    private static final long LINGER_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Marks a multishot receive's user_data (a poll's has it clear, and {@link SelectorSends#SEND}). */
    static final long RECV = 1L << 62;
    private static final int SETTLE_ROUNDS = 1000;
    private final SelectorRing ring;
    private final Set<SelectionKey> keys = ConcurrentHashMap.newKeySet();
    private final Set<SelectionKey> publicKeys = Collections.unmodifiableSet(keys);
    private final SelectedKeys selectedKeys = new SelectedKeys();
    private final InboxArrays inboxArrays = new InboxArrays();
    /** Keys whose interest set changed, or whose poll ended and must be re-armed. */
    private final ConcurrentLinkedQueue<UringSelectionKey> updates = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wakeupPending = new AtomicBoolean();
    private final SelectorRing.Handler completions = this::completed;
    /** Held by a select (and the flusher, close): the ring and the fields below are used under it only. */
    private final ReentrantLock selectLock = new ReentrantLock();
    private final SelectorSends sends;

    // ---- selecting thread only (under the monitor) ----
    private UringSelectionKey[] slots = new UringSelectionKey[64];
    private int[] freeSlots = new int[64];
    private int freeCount;
    private int slotsUsed;
    private int arms;
    /** Multishot receives armed whose final CQE has not been seen, and how many of them are being cancelled. */
    private int receives;
    private int receivesEnding;
    /** Receives ended by ENOBUFS (the provided buffers ran out within one reap) and armed again; for the tests. */
    volatile int enobufs;
    /** Deregistered keys that hold their channel's fd until their requests end; written under the select lock. */
    private volatile int releasesAwaited;
    /** The earliest {@link UringSelectionKey#lingerDeadline} of a dead key, if {@link #lingering}. */
    private volatile long lingerDue;
    private volatile boolean lingering;
    /** Keys whose cached readiness may meet their interest set. */
    private final List<UringSelectionKey> candidates = new ArrayList<>();

    UringSelector(SelectorProvider provider, Engine engine) throws IOException {
        super(provider);
        this.ring = new SelectorRing(engine);
        this.sends = new SelectorSends(this, ring);
    }

    @Override
    public Set<SelectionKey> keys() {
        ensureOpen();
        return publicKeys;
    }

    @Override
    public Set<SelectionKey> selectedKeys() {
        ensureOpen();
        return selectedKeys;
    }

    @Override
    protected SelectionKey register(AbstractSelectableChannel ch, int ops, Object att) {
        SelectorLink link = SelectorLink.of(ch);
        if (link == null) {
            throw new IllegalSelectorException();
        }
        ensureOpen();
        UringSelectionKey key = new UringSelectionKey(ch, link, this);
        key.attach(att);
        key.holdsFd = link.hold(key);       // before the key is published: a close iterating the keys sees it
        keys.add(key);
        if (!key.holdsFd) {
            key.cancel();          // the channel is closing: its close would cancel the key, but finds it too late
            return key;
        }
        if (!isOpen()) {
            // Closed since the check above: its close may have gone over the keys before this one was added, and
            // nothing else would end the key's hold on the fd.
            selectLock.lock();
            try {
                if (!key.dead) {
                    key.dead = true;
                    keys.remove(key);
                    release(key);
                }
            } finally {
                selectLock.unlock();
            }
            throw new ClosedSelectorException();
        }
        key.interestOps(ops);
        if (ops == 0) {
            interestChanged(key);  // still gets a slot, so that deregistration finds it in the same state
        }
        return key;
    }

    /** Queues {@code key}'s interest change for the next select. */
    void interestChanged(UringSelectionKey key) {
        queueUpdate(key);
        if (!isOpen()) {
            throw new ClosedSelectorException();
        }
    }

    @Override
    public int selectNow() throws IOException {
        return doSelect(null, 0);
    }

    @Override
    public int select(long timeout) throws IOException {
        if (timeout < 0) {
            throw new IllegalArgumentException("Negative timeout");
        }
        return doSelect(null, timeout == 0 ? -1 : timeout);
    }

    @Override
    public int select() throws IOException {
        return doSelect(null, -1);
    }

    @Override
    public int select(Consumer<SelectionKey> action, long timeout) throws IOException {
        if (timeout < 0) {
            throw new IllegalArgumentException("Negative timeout");
        }
        return doSelect(Objects.requireNonNull(action), timeout == 0 ? -1 : timeout);
    }

    @Override
    public int select(Consumer<SelectionKey> action) throws IOException {
        return doSelect(Objects.requireNonNull(action), -1);
    }

    @Override
    public int selectNow(Consumer<SelectionKey> action) throws IOException {
        return doSelect(Objects.requireNonNull(action), 0);
    }

    /** One selection: {@code timeoutMillis} 0 for selectNow, negative for no limit. */
    private int doSelect(Consumer<SelectionKey> action, long timeoutMillis) throws IOException {
        selectLock.lock();
        try {
            return selectLocked(action, timeoutMillis);
        } finally {
            selectLock.unlock();
        }
    }

    private int selectLocked(Consumer<SelectionKey> action, long timeoutMillis) throws IOException {
        ensureOpen();
        long deadline = timeoutMillis > 0 ? System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis) : 0;
        int selected;
        boolean woken;
        try {
            begin();            // an interrupt wakes the select up (and leaves the thread's status set)
            while (true) {
                deregisterCancelled();
                applyUpdates();
                long wait = timeoutMillis < 0 ? -1 : timeoutMillis == 0 ? 0 : Math.max(1, deadline - System.nanoTime());
                boolean ready = anyReady();
                if (ready || wakeupPending.get() || Thread.currentThread().isInterrupted()) {
                    wait = 0;
                }
                sends.enter(wait);
                ring.reap(completions);
                expireLingers();
                woken = wakeupPending.get();
                deregisterCancelled();
                selected = collect(action);
                if (selected > 0 || ready || woken || wait == 0 || Thread.currentThread().isInterrupted()
                        || timeoutMillis > 0 && deadline - System.nanoTime() <= 0 || anyReady()) {
                    break;
                }
                // Woken by a completion that selected nothing (a removal, a poll ending): wait again.
            }
        } finally {
            end();
        }
        if (woken) {
            // This select saw the wakeup: it is used up. One made later (while the keys were collected, say)
            // stays for the next select, as with the JDK's. The flag goes first: a wakeup racing with the drain
            // is kept by the flag, if not by the eventfd.
            wakeupPending.set(false);
            ring.drainSignal();
        }
        return selected;
    }

    /**
     * For the {@link SendFlusher}: see {@link SelectorSends#flusherLook}. A select in progress, which the flusher
     * leaves alone, is woken when a closed channel's linger has run out, to give its sends up.
     */
    SendFlusher.Look flusherLook() {
        SendFlusher.Look look = sends.flusherLook(selectLock, completions);
        if (look == SendFlusher.Look.SELECTING && lingering && System.nanoTime() - lingerDue >= 0) {
            ring.signal();          // not a wakeup(): the select goes on waiting once it has looked
        }
        return look;
    }

    /**
     * Under the select lock: cancels the sends of deregistered keys whose linger has run out. A closed channel's
     * queued bytes still go out, as a closed socket's buffer does, but a peer that never reads must not hold the
     * fd and the bytes for ever; the kernel likewise gives an orphaned socket's data up in the end. A cancel that
     * finds the send between two requests (a partial send's rest, queued) is tried again a moment later.
     */
    void expireLingers() throws ErrnoException {
        if (!lingering) {
            return;
        }
        long now = System.nanoTime();
        if (now - lingerDue < 0) {
            return;
        }
        lingering = false;
        for (UringSelectionKey key : slots) {
            if (key == null || !key.releaseAwaited || key.lingerDeadline == 0) {
                continue;
            }
            if (now - key.lingerDeadline >= 0) {
                if (key.sendUserData != 0 && !key.link.outbox.idle()) {
                    ring.cancel(key.sendUserData);
                }
                linger(key, now + LINGER_RETRY_NANOS);
            } else {
                linger(key, key.lingerDeadline);
            }
        }
    }

    /** Under the select lock: {@code key}'s sends are given up at {@code deadline}. */
    private void linger(UringSelectionKey key, long deadline) {
        key.lingerDeadline = deadline == 0 ? 1 : deadline;
        if (!lingering || deadline - lingerDue < 0) {
            lingerDue = deadline;
        }
        lingering = true;
    }

    SelectorSends sends() {
        return sends;
    }

    /** For the {@link SendFlusher}: deregistered keys wait for their requests' last CQEs to let go of an fd. */
    boolean releasesAwaited() {
        return releasesAwaited != 0;
    }

    /** For a blocking write: see {@link SelectorSends#needsFlush}. */
    void needsFlush() throws ErrnoException {
        sends.needsFlush(selectLock, completions);
    }

    /** Selecting thread: whether a candidate is ready for its interest set now; drops those that are not. */
    private boolean anyReady() {
        boolean any = false;
        int kept = 0;
        for (int i = 0; i < candidates.size(); i++) {
            UringSelectionKey key = candidates.get(i);
            if (key.isValid() && readyOps(key) != 0) {
                candidates.set(kept++, key);
                any = true;
            } else {
                key.candidate = false;
            }
        }
        for (int i = candidates.size() - 1; i >= kept; i--) {
            candidates.remove(i);           // from the end, so nothing moves (and no sublist is made)
        }
        return any;
    }

    private static int readyOps(UringSelectionKey key) {
        return key.link.readyOps(key.link.readiness.events(), key.interest());
    }

    /** Selecting thread: updates the ready sets (and the selected-key set, or calls {@code action}) as the JDK's. */
    private int collect(Consumer<SelectionKey> action) {
        int count = 0;
        for (int i = 0; i < candidates.size(); i++) {
            UringSelectionKey key = candidates.get(i);
            int ops = key.isValid() ? readyOps(key) : 0;
            if (ops == 0) {
                continue;               // dropped by the next anyReady
            }
            if (action != null) {
                key.ready(ops);
                action.accept(key);
                ensureOpen();
                count++;
            } else if (selectedKeys.contains(key)) {
                int old = key.ready();
                if ((ops & ~old) != 0) {
                    key.ready(old | ops);
                    count++;
                }
            } else {
                key.ready(ops);
                selectedKeys.put(key);
                count++;
            }
        }
        return count;
    }

    /** Selecting thread: the CQE at {@code index} of a key's poll or receive. */
    private void completed(Cqe cqe, long index) {
        long userData = cqe.userData();
        UringSelectionKey key = slots[(int) userData];
        if ((userData & RECV) != 0) {
            received(key, cqe);
            return;
        }
        if ((userData & SelectorSends.SEND) != 0) {
            if (sends.sent(key, cqe.res())) {
                if (!key.dead) {
                    candidate(key);
                } else if (key.pollsInFlight == 0) {
                    release(key);
                }
            }
            return;
        }
        int res = cqe.res() > 0 && userData == key.armedUserData ? key.fresh(cqe.res(), index) : 0;
        if (res != 0 && !key.dead) {
            key.link.readiness.report(res);
            candidate(key);
        }
        if (!cqe.hasMore()) {
            key.pollsInFlight--;
            if (key.armedUserData == userData) {        // ended by itself (CQ overflow, error): re-arm
                key.armedUserData = 0;
                key.armedEvents = 0;
                if (!key.dead) {
                    queueUpdate(key);
                }
            }
            if (key.dead && key.pollsInFlight == 0) {
                release(key);
            }
        }
    }

    /**
     * Selecting thread: a CQE of a key's multishot receive. The bytes go to the channel's inbox and the buffer
     * back to the ring at once; a full inbox cancels the receive (armed again when the reads have drained it);
     * one that ended by itself (ENOBUFS, its byte limit) is armed again by the next enter; end of stream and
     * errors stay in the inbox for the reads.
     */
    private void received(UringSelectionKey key, Cqe cqe) {
        Inbox inbox = key.link.inbox;
        int res = cqe.res();
        if (res > 0 && cqe.hasBuffer()) {
            RecvBuffers buffers = ring.buffers();
            int flags = cqe.flags();
            boolean full;
            try {
                full = inbox.append(inboxArrays, buffers.buffer(flags), buffers.offset(flags), res);
            } finally {
                buffers.release(flags, res);
            }
            if (full && cqe.hasMore() && !key.recvCancelling) {
                queueUpdate(key);                       // whose update cancels the receive
            }
        }
        if (!cqe.hasMore()) {
            if (key.recvEnding) {
                key.recvEnding = false;
                receivesEnding--;
            }
            receives--;
            key.pollsInFlight--;
            key.recvUserData = 0;
            key.recvCancelling = false;
            if (res == -Errno.ENOBUFS) {
                enobufs++;
            }
            boolean again = res > 0 || res == -Errno.ENOBUFS || res == -Errno.ECANCELED || ring.refusedLimit(res);
            inbox.ended(res, again);
            if (!key.dead && again) {
                queueUpdate(key);
            }
            if (key.dead && key.pollsInFlight == 0) {
                release(key);
            }
        }
        if (!key.dead) {
            candidate(key);
        }
    }

    /** The inbox of {@code key}'s channel was drained after a pause (any thread): arm its receive again. */
    void resumeReceive(UringSelectionKey key) {
        if (isOpen()) {
            queueUpdate(key);
            wakeup();
        }
    }

    /**
     * A blocking read waits for the receive of {@code key}, cancelled, to end (any thread): ends it now unless a
     * select is in progress, which is woken to do it. The reader may be the selecting thread itself (the JDK's HTTP
     * server reads a request on it), and then nobody else would select.
     */
    void endCancelledReceive(UringSelectionKey key) throws IOException {
        if (!selectLock.tryLock()) {
            wakeup();
            return;
        }
        try {
            if (isOpen() && !key.isValid() && key.recvUserData != 0) {
                endReceive(key);
                settleReceives();
            }
        } finally {
            selectLock.unlock();
        }
    }

    private void queueUpdate(UringSelectionKey key) {
        if (key.queued.compareAndSet(false, true)) {
            updates.add(key);
        }
    }

    private void candidate(UringSelectionKey key) {
        if (!key.candidate) {
            key.candidate = true;
            candidates.add(key);
        }
    }

    /** Selecting thread: arms, re-arms or removes the polls of the keys whose interest changed. */
    private void applyUpdates() throws IOException {
        UringSelectionKey key;
        while ((key = updates.poll()) != null) {
            key.queued.set(false);
            if (key.dead || !key.isValid()) {
                continue;                           // deregisterCancelled deals with it
            }
            if (key.slot < 0) {
                key.slot = allocateSlot(key);
            }
            key.receiving |= key.link.receivable(key);
            int room = key.receiving && key.recvUserData == 0 ? key.link.inbox.arm(key) : 0;
            if (room > 0) {
                long userData = RECV | nextArm() | key.slot;
                ring.recv(key.link.guard.fd(), room, userData);
                key.recvUserData = userData;
                key.pollsInFlight++;
                receives++;
                key.link.outbox.attach(key);
            }
            if (key.recvUserData != 0 && !key.recvCancelling && key.link.inbox.available() >= Inbox.HIGH_WATER) {
                ring.cancel(key.recvUserData);      // paused: the reads arm it again (resumeReceive)
                key.recvCancelling = true;
            }
            // A receiving channel's POLLIN is its inbox's: no poll asks the socket.
            int events = SelectorLink.pollEvents(key.interest()) & (key.receiving ? ~OpFlags.Poll.POLLIN : -1);
            if (events != key.armedEvents) {
                if (key.armedUserData != 0) {
                    ring.pollRemove(key.armedUserData);
                    key.armedUserData = 0;
                }
                key.armedEvents = events;
                if (events != 0) {
                    if (key.link.exclusive()) {
                        // The new poll's first check reports what holds now: what was cached may be gone (read
                        // in blocking mode meanwhile, say), and only this poll's reports count from here on.
                        key.link.readiness.forget(events | OpFlags.Poll.POLLERR | OpFlags.Poll.POLLHUP);
                    }
                    long userData = nextArm() | key.slot;
                    ring.pollAdd(key.link.guard.fd(), events, userData);
                    key.armedUserData = userData;
                    key.pollsInFlight++;
                }
            }
            candidate(key);                         // cached readiness may meet the new interest set
        }
    }

    /**
     * The high half of a request's user_data: a new arm number each time, in bits 32 to 60 (61 is
     * {@link SelectorSends#SEND}'s, 62 {@link #RECV}'s, 63 {@link SelectorRing#REMOVAL}'s).
     */
    private long nextArm() {
        return (long) (++arms & 0x1fff_ffff) << 32;
    }

    /**
     * Selecting thread: deregisters the cancelled keys, as AbstractSelector's contract asks of every select. A
     * channel's receive has ended when this returns: its reads (in blocking mode, say) may ask the socket again.
     */
    private void deregisterCancelled() throws IOException {
        Set<SelectionKey> cancelled = cancelledKeys();
        synchronized (cancelled) {
            if (cancelled.isEmpty()) {
                return;
            }
            for (SelectionKey k : cancelled) {
                UringSelectionKey key = (UringSelectionKey) k;
                deregister(key, true);
            }
            cancelled.clear();
        }
        settleReceives();
    }

    /**
     * Selecting thread: waits for the cancelled receives' final CQEs (a cancel ends a receive at once; the wait
     * is bounded all the same, so a kernel that takes longer costs a spurious "nothing to read", not a hang).
     */
    private void settleReceives() throws ErrnoException {
        for (int i = 0; receivesEnding > 0 && i < SETTLE_ROUNDS; i++) {
            ring.enter(i == 0 ? 0 : TimeUnit.MILLISECONDS.toNanos(1));
            ring.reap(completions);
        }
    }

    private void deregister(UringSelectionKey key, boolean removePoll) throws IOException {
        if (key.dead) {
            return;
        }
        key.dead = true;
        keys.remove(key);
        selectedKeys.remove(key);
        deregister(key);            // the channel forgets the key: isRegistered() turns false once none is left
        if (removePoll && key.armedUserData != 0) {
            ring.pollRemove(key.armedUserData);
        }
        if (removePoll && key.recvUserData != 0) {
            endReceive(key);
        }
        if (removePoll && key.link.outbox != null && !key.link.outbox.detachIfIdle(key)) {
            if (key.link.outbox.discarding()) {
                // A close that resets: the send in flight is cancelled (again shortly, if between two requests).
                ring.cancel(key.sendUserData);
                linger(key, System.nanoTime() + LINGER_RETRY_NANOS);
            } else {
                sends.send(key);    // bytes queued before a close still go out; the fd is held until they have
                linger(key, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
                        Long.getLong(LINGER_PROPERTY, LINGER_DEFAULT_MILLIS)));
            }
        }
        key.armedUserData = 0;
        if (key.pollsInFlight == 0 || !removePoll) {
            release(key);
        } else {
            // The fd goes with the requests' last CQEs, which a select reaps — or, if none follows (a program that
            // closed its last channel and waits for its peer), the flusher: as with the JDK's, a channel closed
            // and deregistered is closed without another select.
            key.releaseAwaited = true;
            releasesAwaited++;
            SendFlusher.pending(this);
        }
    }

    /** The key's poll has ended: its slot is free, and its hold on the fd ends (closing a closed channel's fd). */
    private void release(UringSelectionKey key) {
        if (key.releaseAwaited) {
            key.releaseAwaited = false;
            releasesAwaited--;
        }
        if (key.slot >= 0) {
            slots[key.slot] = null;
            freeSlots[freeCount++] = key.slot;
            key.slot = -1;
        }
        if (key.holdsFd) {
            key.holdsFd = false;
            key.link.release(key);
        }
    }

    private int allocateSlot(UringSelectionKey key) {
        int slot;
        if (freeCount > 0) {
            slot = freeSlots[--freeCount];
        } else {
            if (slotsUsed == slots.length) {
                slots = Arrays.copyOf(slots, slots.length * 2);
                freeSlots = Arrays.copyOf(freeSlots, slots.length);
            }
            slot = slotsUsed++;
        }
        slots[slot] = key;
        return slot;
    }

    /** The ring's CQE position (any thread): see {@link UringSelectionKey#stale}. */
    long position() {
        return ring.position();
    }

    @Override
    public UringSelector wakeup() {
        if (wakeupPending.compareAndSet(false, true)) {
            ring.signal();
        }
        return this;
    }

    /**
     * Waits for a select in progress (woken first) to return, then closes the ring — which ends every poll — and
     * deregisters every key, ending their holds on the channels' fds.
     */
    @Override
    protected void implCloseSelector() throws IOException {
        wakeup();
        selectLock.lock();
        try {
            sends.end(slots, completions);
            endReceives();
            ring.close(receives == 0);
            if (sends.inFlight() == 0) {
                sends.freeChunks();
            }
            for (SelectionKey k : keys.toArray(new SelectionKey[0])) {
                k.cancel();
            }
            Set<SelectionKey> cancelled = cancelledKeys();
            synchronized (cancelled) {
                for (SelectionKey k : cancelled) {
                    deregister((UringSelectionKey) k, false);
                }
                cancelled.clear();
            }
            for (UringSelectionKey key : slots) {
                if (key != null) {
                    release(key);   // deregistered before, waiting for its requests' last CQEs: none come now
                }
            }
            updates.clear();
            candidates.clear();
        } finally {
            selectLock.unlock();
        }
    }

    /** Cancels {@code key}'s receive (unless its cancel is on its way) and counts it for {@link #settleReceives}. */
    private void endReceive(UringSelectionKey key) throws ErrnoException {
        if (key.recvEnding) {
            return;                 // counted already: a blocking read ended it before the key was deregistered
        }
        if (!key.recvCancelling) {
            ring.cancel(key.recvUserData);
            key.recvCancelling = true;
        }
        key.recvEnding = true;
        receivesEnding++;
    }

    /**
     * Closing thread, under the select lock: cancels every receive and waits for their ends, so that no receive can
     * write into the buffers when they are freed, and tells the inboxes that their receives are over.
     */
    private void endReceives() {
        if (receives > 0) {
            try {
                for (UringSelectionKey key : slots) {
                    if (key != null && key.recvUserData != 0 && !key.recvEnding) {
                        endReceive(key);
                    }
                }
                settleReceives();
            } catch (ErrnoException | RuntimeException e) {
                // the ring is unusable: the buffers are left to the process (see SelectorRing#close)
            }
        }
        for (UringSelectionKey key : slots) {
            if (key != null && key.recvUserData != 0) {
                key.link.inbox.ended(-Errno.ECANCELED, true);
            }
        }
    }

    private void ensureOpen() {
        if (!isOpen()) {
            throw new ClosedSelectorException();
        }
    }
}
