package io.uring4j.fs;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A platform thread that frees the readers of a combiner stuck in its yield ({@link InlineReads}). A combiner yields
 * holding its slot's lock, so its carrier's other readers queue behind it and park. A reader that cannot unmount (a
 * native frame or a class initializer pins it) parks holding its carrier; when every carrier is so held, the
 * combiner has none to resume on, and without a thread outside the scheduler nobody would ever run again. Rescuing
 * from here keeps the readers' parks untimed: a timed park costs a virtual thread a timer for every read.
 *
 * <p>The watch samples each slot's yield count every {@link #PERIOD_NANOS}: a count that is odd (mid-yield) and
 * unchanged since the last sample has been stalled a whole period, and its readers are told to read in place. It
 * sleeps untimed once no slot has yielded for {@link #IDLE_SAMPLES} samples (none is out), and a combiner's next
 * yield wakes it.
 */
final class StallWatch {
    static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final int IDLE_SAMPLES = 100;

    /** A slot as the watch sees it. */
    interface Watched {
        /** Incremented before and after a combiner's yield: odd while one is out. */
        long yields();

        /** Tells every reader waiting on this slot to take its read back, and wakes it. */
        void rescue();
    }

    private final Supplier<Watched[]> slots;
    private final Thread thread;
    private volatile boolean sleeping;
    private volatile boolean closed;

    StallWatch(Supplier<Watched[]> slots) {
        this.slots = slots;
        this.thread = Thread.ofPlatform().daemon().name("uring4j-inline-read-watch").unstarted(this::run);
        thread.start();
    }

    /** Called by a combiner after counting its yield: wakes the watch if it sleeps. */
    void yielding() {
        if (sleeping) {
            sleeping = false;
            LockSupport.unpark(thread);
        }
    }

    void close() {
        closed = true;
        LockSupport.unpark(thread);
    }

    private void run() {
        long[] seen = new long[0];
        int idle = IDLE_SAMPLES;                    // asleep until a combiner first yields
        while (!closed) {
            Watched[] all = slots.get();
            if (seen.length != all.length) {
                seen = Arrays.copyOf(seen, all.length);
            }
            boolean active = false;
            for (int i = 0; i < all.length; i++) {
                long yields = all[i].yields();
                if ((yields & 1) == 1 && yields == seen[i]) {
                    all[i].rescue();
                }
                active |= yields != seen[i] || (yields & 1) == 1;
                seen[i] = yields;
            }
            idle = active ? 0 : idle + 1;
            if (idle < IDLE_SAMPLES) {
                LockSupport.parkNanos(this, PERIOD_NANOS);
            } else {
                sleeping = true;                    // then look again: a yield counted before this store is seen
                if (!yieldedSince(seen, slots.get())) {
                    LockSupport.park(this);
                }
                sleeping = false;
                idle = 0;
            }
        }
    }

    private static boolean yieldedSince(long[] seen, Watched[] all) {
        for (int i = 0; i < all.length; i++) {
            if (i >= seen.length || all[i].yields() != seen[i]) {
                return true;
            }
        }
        return false;
    }
}
