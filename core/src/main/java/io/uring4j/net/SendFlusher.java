package io.uring4j.net;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The backstop of queued sends: a selector's queued sends go out with its next select, which an event loop makes
 * at once, but code that writes and then waits for something else (a reply on another socket, a blocking write
 * after cancelling the key) would wait for ever. One daemon thread looks, while any selector has queued sends, for
 * selectors that have not selected since its last look, and submits (and reaps) for them — so too for a closed
 * channel whose key a select deregistered, whose fd goes with its requests' last CQEs. A selector stays on its
 * list until it has had nothing queued for {@link #LINGER} looks, so that under load the writes find it there and
 * never wake the thread; with nothing queued anywhere it sleeps without a timeout, and an idle process pays nothing.
 *
 * <p>The looks come every millisecond, and further apart — up to {@link #MAX_PERIOD} — while every look finds a
 * selector selecting by itself and none that needed the flusher: each look is a wake-up of a thread on a CPU an
 * event loop needs, which a busy event loop does not need. A look that flushes, or that finds nobody selecting,
 * brings the period back to a millisecond. So a send that nobody selects for waits at most two periods: two
 * milliseconds, or up to twice {@link #MAX_PERIOD} while some event loop in the process keeps selecting by itself.
 */
final class SendFlusher {
    static final long MIN_PERIOD = TimeUnit.MILLISECONDS.toNanos(1);
    static final long MAX_PERIOD = TimeUnit.MILLISECONDS.toNanos(8);
    private static final int LINGER = 1000;
    private static final Set<UringSelector> PENDING = ConcurrentHashMap.newKeySet();
    private static volatile boolean sleeping;
    private static final Thread THREAD = Thread.ofPlatform().daemon().name("uring4j-send-flusher")
            .unstarted(SendFlusher::run);

    static {
        THREAD.start();
    }

    private SendFlusher() {
    }

    /** What a look found at one selector. */
    enum Look {
        /** Nothing queued, and no select since the last look. */
        QUIET,
        /** The selecting thread has entered since the last look, or is selecting now: it submits what is queued. */
        SELECTING,
        /** Sends were queued and nobody had selected since the last look: the flusher submitted them. */
        FLUSHED
    }

    /** {@code selector} has sends queued (any thread). */
    static void pending(UringSelector selector) {
        if (PENDING.add(selector) && sleeping) {
            LockSupport.unpark(THREAD);
        }
    }

    /** A blocking write waits for {@code selector}'s sends (any thread): the flusher looks now, whatever its period. */
    static void drainWanted(UringSelector selector) {
        PENDING.add(selector);
        LockSupport.unpark(THREAD);
    }

    private static void run() {
        int idleLooks = 0;
        long period = MIN_PERIOD;
        while (true) {
            if (PENDING.isEmpty()) {
                sleeping = true;
                if (PENDING.isEmpty()) {
                    LockSupport.park();
                }
                sleeping = false;
                idleLooks = 0;
                period = MIN_PERIOD;
                continue;
            }
            LockSupport.parkNanos(period);
            boolean flushed = false;
            boolean selecting = false;
            boolean wanted = false;
            for (UringSelector selector : PENDING) {
                Look look;
                try {
                    look = selector.flusherLook();
                    wanted |= selector.sends().wanted();
                } catch (RuntimeException e) {
                    look = Look.QUIET;                  // closed meanwhile: nothing left to flush
                }
                if (!selector.isOpen()) {
                    PENDING.remove(selector);
                }
                flushed |= look == Look.FLUSHED;
                selecting |= look == Look.SELECTING;
            }
            period = nextPeriod(period, flushed, selecting);
            idleLooks = wanted ? 0 : idleLooks + 1;
            if (idleLooks >= LINGER) {
                for (UringSelector selector : PENDING) {
                    PENDING.remove(selector);
                    if (selector.sends().wanted()) {
                        PENDING.add(selector);          // queued between the look and the removal
                    }
                }
                idleLooks = 0;
            }
        }
    }

    /**
     * The delay before the next look: doubled, up to {@link #MAX_PERIOD}, after a look that found a selector
     * selecting and flushed nothing; a millisecond after one that flushed, or found nobody selecting.
     */
    static long nextPeriod(long period, boolean flushed, boolean selecting) {
        return flushed || !selecting ? MIN_PERIOD : Math.min(2 * period, MAX_PERIOD);
    }
}
