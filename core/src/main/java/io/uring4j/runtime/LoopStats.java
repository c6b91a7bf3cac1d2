package io.uring4j.runtime;

/**
 * A snapshot of one event loop's counters, read without ordering: for monitoring, not synchronisation.
 *
 * @param submitted       requests whose SQE was written
 * @param completed       CQEs delivered to handlers (multishot requests count each)
 * @param enters          io_uring_enter calls
 * @param sqesPerEnter    submitted / enters
 * @param sqFull          times the SQ was full and had to be flushed mid-batch
 * @param tableFull       submissions deferred because every request slot was in flight
 * @param stale           CQEs whose request slot had moved on (dropped, never delivered)
 * @param handlerFailures completion handlers and handed-over tasks that threw (the loop goes on)
 * @param inFlight        requests between submit and final CQE
 * @param cqOverflow      iterations that found completions waiting in the kernel's overflow list
 * @param cqEntries       the CQ's size now: a loop whose CQ overflows doubles it (DEFER_TASKRUN rings, Linux 6.13)
 * @param cqDropped       CQEs the kernel dropped (only under memory pressure with FEAT_NODROP)
 * @param batchWaits      sleeps that waited for a batch of completions ({@link UringBuilder#batchWait})
 * @param nativeBytes     native bytes uring4j holds, all loops and runtimes together ({@link NativeMemory})
 */
public record LoopStats(long submitted, long completed, long enters, double sqesPerEnter, long sqFull,
                        long tableFull, long stale, long handlerFailures, int inFlight, long cqOverflow,
                        int cqEntries, int cqDropped, long batchWaits, long nativeBytes) {
}
