package io.uring4j.net;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The backstop of queued sends: a selector's queued sends go out with its next select, which an event loop makes
 * at once, but code that writes and then waits for something else (a reply on another socket, a blocking write
 * after cancelling the key) would wait for ever. One daemon thread looks, every millisecond while any selector
 * has sends queued, for selectors that have not selected since, and submits (and reaps) for them. It sleeps
 * without a timeout while nothing is queued, so an idle process pays nothing; under load it costs one wake-up a
 * millisecond, not one a write.
 */
final class SendFlusher {
    private static final long PERIOD = TimeUnit.MILLISECONDS.toNanos(1);
    private static final Set<UringSelector> PENDING = ConcurrentHashMap.newKeySet();
    private static volatile boolean sleeping;
    private static final Thread THREAD = Thread.ofPlatform().daemon().name("uring4j-send-flusher")
            .unstarted(SendFlusher::run);

    static {
        THREAD.start();
    }

    private SendFlusher() {
    }

    /** {@code selector} has sends queued (any thread). */
    static void pending(UringSelector selector) {
        if (PENDING.add(selector) && sleeping) {
            LockSupport.unpark(THREAD);
        }
    }

    private static void run() {
        while (true) {
            if (PENDING.isEmpty()) {
                sleeping = true;
                if (PENDING.isEmpty()) {
                    LockSupport.park();
                }
                sleeping = false;
                continue;
            }
            LockSupport.parkNanos(PERIOD);
            for (UringSelector selector : PENDING) {
                boolean done;
                try {
                    done = selector.flushIfStale();
                } catch (RuntimeException e) {
                    done = true;                        // closed meanwhile: nothing left to flush
                }
                if (done) {
                    PENDING.remove(selector);
                    if (selector.sends().wanted()) {
                        PENDING.add(selector);          // queued between the look and the removal
                    }
                }
            }
        }
    }
}
