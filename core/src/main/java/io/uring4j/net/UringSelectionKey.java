package io.uring4j.net;

import io.uring4j.ring.abi.OpFlags;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectionKey;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A registration with a {@link UringSelector}. The public state (interest and ready sets) is as the JDK's keys
 * keep it; the rest belongs to the selecting thread: the key's slot (the low half of its polls' user_data),
 * the poll armed for it and how many of its polls have yet to post their final CQE.
 */
final class UringSelectionKey extends AbstractSelectionKey {
    private final SelectableChannel channel;
    final SelectorLink link;
    private final UringSelector selector;
    private volatile int interestOps;
    private volatile int readyOps;

    /** Selecting thread only: index in the selector's slot table, -1 before the first update. */
    int slot = -1;
    /** Selecting thread only: the events and user_data of the poll armed now (0: none). */
    int armedEvents;
    long armedUserData;
    /** Selecting thread only: polls submitted whose final CQE has not been seen. */
    int pollsInFlight;
    /** Selecting thread only: deregistered; its slot and fd hold go once {@link #pollsInFlight} is 0. */
    boolean dead;
    /** Selecting thread only: dead with requests in flight, counted in its selector's releases awaited. */
    boolean releaseAwaited;
    /** Selecting thread only: when a dead key's queued sends are given up ({@code System.nanoTime}); 0: never. */
    long lingerDeadline;
    /**
     * Selecting thread only: the channel's reads come from its {@link Inbox}, filled by a multishot receive
     * (armed while {@link #recvUserData} is not 0), not from polls for POLLIN.
     */
    boolean receiving;
    long recvUserData;
    /** Selecting thread only: the armed receive's cancel is submitted (deregistered, or the inbox is full). */
    boolean recvCancelling;
    /** Selecting thread only: the user_data of the channel's sends (0 before the first). */
    long sendUserData;
    /** Selecting thread only: the selector waits for the receive's end (deregistration, selector close). */
    boolean recvEnding;
    /** Selecting thread only: in the selector's candidate list. */
    boolean candidate;
    /** Where the key is in its selector's selected-key set ({@link SelectedKeys}); -1 while it is not there. */
    int selectedIndex = -1;
    /** Waiting in the selector's update queue (any thread sets it, the selecting thread clears it). */
    final AtomicBoolean queued = new AtomicBoolean();
    /** The registration holds the channel's fd open (false if the channel closed while registering). */
    boolean holdsFd;
    /**
     * The selector's CQE index below which this key's polls' POLLIN (resp. POLLOUT) reports are stale: a
     * non-blocking call that began after they were posted found the socket not ready. Any thread raises them.
     */
    private final AtomicLong readStale = new AtomicLong();
    private final AtomicLong writeStale = new AtomicLong();

    UringSelectionKey(SelectableChannel channel, SelectorLink link, UringSelector selector) {
        this.channel = channel;
        this.link = link;
        this.selector = selector;
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    @Override
    public Selector selector() {
        return selector;
    }

    UringSelector uringSelector() {
        return selector;
    }

    @Override
    public int interestOps() {
        ensureValid();
        return interestOps;
    }

    /** The interest set without the validity check, for the selecting thread. */
    int interest() {
        return interestOps;
    }

    @Override
    public java.nio.channels.SelectionKey interestOps(int ops) {
        ensureValid();
        if ((ops & ~channel.validOps()) != 0) {
            throw new IllegalArgumentException();
        }
        if (interestOps != ops) {
            interestOps = ops;
            selector.interestChanged(this);
        }
        return this;
    }

    @Override
    public int readyOps() {
        ensureValid();
        return readyOps;
    }

    int ready() {
        return readyOps;
    }

    void ready(int ops) {
        readyOps = ops;
    }

    /** The inbox has been drained below half its bound after a pause: arm the receive again (any thread). */
    void resumeReceive() {
        selector.resumeReceive(this);
    }

    /** The selector's CQE position now, to pass to {@link #stale} if the call about to be made finds nothing. */
    long position() {
        return selector.position();
    }

    /** A call that began at {@code position} found {@code events} not ready: earlier reports of them are stale. */
    void stale(int events, long position) {
        if ((events & OpFlags.Poll.POLLIN) != 0) {
            readStale.accumulateAndGet(position, Math::max);
        }
        if ((events & OpFlags.Poll.POLLOUT) != 0) {
            writeStale.accumulateAndGet(position, Math::max);
        }
    }

    /**
     * What the poll CQE at {@code index} reports that is not stale. An error or hang-up is stale before either
     * mark: the call that set it would have returned the error, or end of stream, instead of "would block".
     */
    int fresh(int events, long index) {
        long read = readStale.get();
        long write = writeStale.get();
        if (index < read) {
            events &= ~OpFlags.Poll.POLLIN;
        }
        if (index < write) {
            events &= ~OpFlags.Poll.POLLOUT;
        }
        if (index < Math.max(read, write)) {
            events &= ~(OpFlags.Poll.POLLERR | OpFlags.Poll.POLLHUP);
        }
        return events;
    }

    private void ensureValid() {
        if (!isValid()) {
            throw new CancelledKeyException();
        }
    }

    @Override
    public String toString() {
        return "UringSelectionKey[" + (isValid() ? "interest=" + interestOps + " ready=" + readyOps : "cancelled")
                + " " + channel + "]";
    }
}
