package io.uring4j.net;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The backstop of queued sends: a selector's queued sends go out with its next select, which an event loop makes
 * at once, but code that writes and then waits for something else (a reply on another socket, a blocking write
 * after cancelling the key) would wait for ever. One daemon thread looks, every millisecond while any selector
 * has queued sends, for selectors that have not selected since, and submits (and reaps) for them. A selector
 * stays on its list until it has had nothing queued for {@link #LINGER} looks, so that under load the writes
 * find it there and never wake the thread; with nothing queued anywhere it sleeps without a timeout, and an
 * idle process pays nothing.
 */
final class SendFlusher {
    private static final long PERIOD = TimeUnit.MILLISECONDS.toNanos(1);
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

    /** {@code selector} has sends queued (any thread). */
    static void pending(UringSelector selector) {
        if (PENDING.add(selector) && sleeping) {
            LockSupport.unpark(THREAD);
        }
    }

    private static void run() {
        int idleLooks = 0;
        while (true) {
            if (PENDING.isEmpty()) {
                sleeping = true;
                if (PENDING.isEmpty()) {
                    LockSupport.park();
                }
                sleeping = false;
                idleLooks = 0;
                continue;
            }
            LockSupport.parkNanos(PERIOD);
            boolean busy = false;
            for (UringSelector selector : PENDING) {
                boolean done;
                try {
                    done = selector.flushIfStale();
                } catch (RuntimeException e) {
                    done = true;                        // closed meanwhile: nothing left to flush
                }
                if (!selector.isOpen()) {
                    PENDING.remove(selector);
                }
                busy |= !done;
            }
            idleLooks = busy ? 0 : idleLooks + 1;
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
}
