package io.uring4j.fs;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The virtual threads in a sync, of any file ({@link AsyncFile#sync}): the one alone syncs in place, holding its
 * carrier; while another is syncing, a sync goes through the ring. Counted across files, not per file: held carriers
 * would let only as many syncs run at once as there are carriers.
 */
final class VirtualSyncs {
    private static final AtomicInteger SYNCING = new AtomicInteger();

    private VirtualSyncs() {
    }

    /** A virtual thread starts a sync; true if no other is syncing. Always paired with {@link #end}. */
    static boolean begin() {
        return SYNCING.getAndIncrement() == 0;
    }

    static void end() {
        SYNCING.decrementAndGet();
    }
}
