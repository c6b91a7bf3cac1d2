package io.uring4j.fs;

/**
 * How fast a file's device answers direct reads waited for on a carrier ({@link InlineReads#readDirect}). A
 * device that answers at once — a preallocated or sparse extent, a RAM disk, a fast SSD — is read inline, the
 * way the JDK's FileChannel reads (holding the thread for the device's time) but batched; a device slow enough
 * to hold a carrier for long is read through the event loop instead, where no carrier waits. Batches that
 * waited longer than {@link #SLOW_NANOS} (plus a little per read) several times in a row mark the device slow;
 * one read in {@link #PROBE_EVERY} then tries inline again, so a device that turns fast is noticed. A lone read in
 * place is timed once in {@link #TIME_EVERY}: the clock, read twice, is a measurable part of a read the page
 * cache or a RAM disk answers, and a slow device is still noticed within a few dozen reads.
 *
 * <p>The counts are plain fields: a lost update between racing readers only delays a switch by a batch.
 */
final class DirectDevice {
    /** A batch's wait beyond this, plus {@link #NANOS_PER_READ} per read, holds its carrier too long. */
    static final long SLOW_NANOS = 100_000;
    static final long NANOS_PER_READ = 5_000;
    /** Slow batches in a row before the device's reads go to the event loop: one preemption is not a device. */
    static final int SLOW_LIMIT = 8;
    static final int PROBE_EVERY = 4096;
    static final int TIME_EVERY = 8;

    private int slowBatches;
    private int untilProbe;
    private int untilTimed;

    /** Whether the next direct read should wait inline. */
    boolean inline() {
        if (slowBatches < SLOW_LIMIT) {
            return true;
        }
        if (--untilProbe > 0) {
            return false;
        }
        untilProbe = PROBE_EVERY;
        slowBatches = SLOW_LIMIT - 1;       // one slow probe turns it back; a fast one clears the count
        return true;
    }

    /** Whether the next lone read in place is one to time and report ({@link #waited}): one in {@link #TIME_EVERY}. */
    boolean timeThisRead() {
        if (--untilTimed > 0) {
            return false;
        }
        untilTimed = TIME_EVERY;
        return true;
    }

    /** A batch of {@code reads} reads, some of them on this device, waited {@code nanos} for the kernel. */
    void waited(long nanos, int reads) {
        if (nanos > SLOW_NANOS + reads * NANOS_PER_READ) {
            if (++slowBatches == SLOW_LIMIT) {
                untilProbe = PROBE_EVERY;
            }
        } else {
            slowBatches = 0;
        }
    }
}
