package io.uring4j.runtime;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The loops' part in the process's end. HotSpot ends a process by waiting, at its last safepoint and in steps of 10
 * ms, up to 300 ms for the threads still in native code to come back; a loop asleep in {@code io_uring_enter} is
 * one. The JDK's file channels leave no thread in native code, so every program the file-system provider serves
 * would end 0.3 s later than without it.
 *
 * <p>A shutdown hook, registered with the first loop, tells the loops that the process is ending: from then on a loop
 * with nothing in the kernel waits parked in Java (a hand-over unparks it), where the safepoint does not wait for
 * it, and one with requests in flight sleeps in the kernel at most {@link #SLEEP_NANOS}, so that it is back within
 * one of those steps. It goes on serving what the other shutdown hooks read and write meanwhile; nothing is closed
 * here.
 */
final class VmExit {
    /** How long a loop sleeps (or stays parked) at most once the process is ending: half of HotSpot's step. */
    static final long SLEEP_NANOS = 5_000_000L;

    private static final Set<EventLoop> LOOPS = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOKED = new AtomicBoolean();
    private static volatile boolean ending;

    private VmExit() {
    }

    /** Whether the process is ending: a loop's sleeps are then bounded. */
    static boolean ending() {
        return ending;
    }

    /** {@code loop} runs (its waker is open): the hook wakes it when the process ends. */
    static void running(EventLoop loop) {
        if (HOOKED.compareAndSet(false, true)) {
            try {
                Runtime.getRuntime().addShutdownHook(
                        Thread.ofPlatform().name("uring4j-exit").unstarted(VmExit::processEnding));
            } catch (IllegalStateException alreadyEnding) {
                ending = true;
            }
        }
        LOOPS.add(loop);
    }

    /** {@code loop} has stopped. */
    static void stopped(EventLoop loop) {
        LOOPS.remove(loop);
    }

    /**
     * The hook: every loop's next sleep is bounded, and a loop asleep now is woken to take that up (a loop about to
     * sleep reads the flag first, or its sleep ends with this wake-up).
     */
    private static void processEnding() {
        ending = true;
        for (EventLoop loop : LOOPS) {
            loop.wakeForExit();
        }
    }
}
