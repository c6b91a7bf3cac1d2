package io.uring4j.runtime;

/**
 * Counters of one event loop. Written only by the loop thread with plain stores (no cost on its path), read by
 * others as an unordered snapshot — good for monitoring, not for synchronisation.
 */
final class LoopStats {
    long submitted;
    long completed;
    long reaped;
    long enters;
    long sqFull;
    long tableFull;
    long stale;
    long handlerFailures;
    long cqOverflow;

    /**
     * @param submitted       requests whose SQE was written
     * @param completed       CQEs delivered to handlers (multishot requests count each)
     * @param enters          io_uring_enter calls
     * @param sqesPerEnter    submitted / enters
     * @param sqFull          times the SQ was full and had to be flushed mid-batch
     * @param tableFull       submissions deferred because every request slot was in flight
     * @param stale           CQEs whose request slot had moved on (dropped, never delivered)
     * @param handlerFailures completion handlers that threw
     * @param inFlight        requests between submit and final CQE
     * @param cqOverflow      iterations that found completions waiting in the kernel's overflow list
     * @param cqDropped       CQEs the kernel dropped (only under memory pressure with FEAT_NODROP)
     */
    public record Snapshot(long submitted, long completed, long enters, double sqesPerEnter, long sqFull,
                           long tableFull, long stale, long handlerFailures, int inFlight, long cqOverflow,
                           int cqDropped) {
    }

    Snapshot snapshot(int inFlight, int cqDropped) {
        long e = enters;
        long s = submitted;
        return new Snapshot(s, completed, e, e == 0 ? 0 : (double) s / e, sqFull, tableFull, stale,
                handlerFailures, inFlight, cqOverflow, cqDropped);
    }
}
