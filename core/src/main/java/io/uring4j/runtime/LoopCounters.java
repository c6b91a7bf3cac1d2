package io.uring4j.runtime;

/**
 * The counters behind {@link LoopStats}. Written only by the loop thread with plain stores (no cost on its path), read by
 * others as an unordered snapshot — good for monitoring, not for synchronisation.
 */
final class LoopCounters {
    long submitted;
    long completed;
    long reaped;
    long enters;
    long sqFull;
    long tableFull;
    long stale;
    long handlerFailures;
    long cqOverflow;
    long batchWaits;

    LoopStats snapshot(int inFlight, int cqEntries, int cqDropped) {
        long e = enters;
        long s = submitted;
        return new LoopStats(s, completed, e, e == 0 ? 0 : (double) s / e, sqFull, tableFull, stale,
                handlerFailures, inFlight, cqOverflow, cqEntries, cqDropped, batchWaits, NativeMemory.inUse());
    }
}
