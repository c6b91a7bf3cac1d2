package io.uring4j.net;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A channel's cached readiness, in poll events (POLLIN, POLLOUT, POLLERR, POLLHUP): set by the selectors'
 * multishot polls and cleared by the channel when a non-blocking call finds the socket not ready after all.
 *
 * <p>A multishot poll reports a change once, so the cache is what makes a selector level-triggered: readiness
 * stays until the channel proves it gone. Proof and report can race — data arriving and its poll reported
 * between a recv's EAGAIN and the clear — so every report bumps an epoch kept in the same word, and a clear only
 * applies to the word the call began with: a report meanwhile wins, at worst a readiness that turns out spurious
 * (which the selector contract allows), never a lost one.
 */
final class Readiness {
    /** Epoch in the high 32 bits, events in the low. */
    private final AtomicLong word = new AtomicLong();

    /** The state to pass to {@link #clear} after a call that may find the socket not ready. */
    long snapshot() {
        return word.get();
    }

    /** The events cached now. */
    int events() {
        return (int) word.get();
    }

    /** A poll reported {@code events}. */
    void report(int events) {
        // Loops rather than getAndUpdate: its capturing lambda is an allocation per report wherever C2 does not
        // inline the whole chain, and a report is made per completion on the selecting thread.
        long w;
        do {
            w = word.get();
        } while (!word.compareAndSet(w, (((w >>> 32) + 1) << 32) | ((int) w | events) & 0xffff_ffffL));
    }

    /** A poll armed afresh will report {@code events} if they hold: what was cached of them is forgotten. */
    void forget(int events) {
        long w;
        do {
            w = word.get();
        } while (!word.compareAndSet(w, w & ~(events & 0xffff_ffffL)));
    }

    /** A call that began at {@code snapshot} found {@code events} not ready: forget them, unless reported since. */
    void clear(long snapshot, int events) {
        if (((int) snapshot & events) != 0) {
            word.compareAndSet(snapshot, snapshot & ~(events & 0xffff_ffffL));
        }
    }
}
