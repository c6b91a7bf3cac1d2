package io.uring4j.net;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps a blocked handler from stalling its group: one daemon thread looks at every group's {@link AsyncRing} each
 * {@link #PERIOD_MILLIS} ms, and a poller found in the same handler as at the previous look is deposed — another
 * task of the group's executor takes over the ring. A handler is never interrupted; its thread just stops
 * polling when it returns.
 *
 * <p>Idle, it costs nothing: after a look that found no handler running it parks until a poller begins one
 * ({@link #busy()}: a volatile read per handler, an unpark only when the watchdog sleeps).
 */
final class AsyncWatchdog {
    /** How long a handler may run before the other channels get another poller: two looks apart at most. */
    static final long PERIOD_MILLIS = Long.getLong("uring4j.async.handlerStallMillis", 10);

    /** Each ring watched, with the handler count seen at the last look (-1: none running then). */
    private static final Map<AsyncRing, long[]> RINGS = new ConcurrentHashMap<>();
    private static final AtomicBoolean PARKED = new AtomicBoolean();
    private static volatile Thread thread;

    private AsyncWatchdog() {
    }

    static void watch(AsyncRing ring) {
        RINGS.put(ring, new long[] {-1});
        synchronized (AsyncWatchdog.class) {
            if (thread == null) {
                thread = Thread.ofPlatform().daemon(true).name("uring4j-async-watchdog").start(AsyncWatchdog::run);
            }
        }
    }

    static void unwatch(AsyncRing ring) {
        RINGS.remove(ring);
    }

    /** A poller begins a handler: wakes the watchdog if it sleeps. */
    static void busy() {
        if (PARKED.get() && PARKED.compareAndSet(true, false)) {
            LockSupport.unpark(thread);
        }
    }

    private static void run() {
        while (true) {
            boolean anyRunning = false;
            for (Map.Entry<AsyncRing, long[]> e : RINGS.entrySet()) {
                anyRunning |= look(e.getKey(), e.getValue());
            }
            if (anyRunning) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS));
            } else {
                PARKED.set(true);
                // A handler begun before PARKED was set is seen by this second look; one begun after unparks us.
                boolean running = false;
                for (Map.Entry<AsyncRing, long[]> e : RINGS.entrySet()) {
                    running |= look(e.getKey(), e.getValue());
                }
                if (running) {
                    PARKED.set(false);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS));
                } else {
                    while (PARKED.get()) {
                        LockSupport.park();
                    }
                }
            }
        }
    }

    /** One look at {@code ring}: deposes a poller stuck in one handler since the last look; true if one runs. */
    private static boolean look(AsyncRing ring, long[] seen) {
        Thread running = ring.inHandler;
        long begun = ring.handlersBegun;
        if (running == null) {
            seen[0] = -1;
            return false;
        }
        if (seen[0] == begun && running == ring.poller() && ring.inHandler == running) {
            ring.depose(running);
            seen[0] = -1;
            return true;
        }
        seen[0] = begun;
        return true;
    }
}
