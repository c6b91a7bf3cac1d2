package io.uring4j.fs;

import io.uring4j.sys.SyscallCost;

import java.util.function.LongSupplier;

/**
 * Whether virtual threads' blocking reads are batched on their carriers ({@link InlineReads}):
 * {@code -During4j.fs.batchedReads=auto} (the default; any other value than true or false counts as auto),
 * {@code true} or {@code false}.
 *
 * <p>An O_DIRECT read is batched unless {@code false}: its alternative is a hand-over to an event loop and back.
 * A page-cache read has a cheaper one, a {@code preadv2(RWF_NOWAIT)} of its own. Batching saves that system call
 * and costs the reader a park and an unpark (freezing and thawing its stack), so under {@code auto} page-cache
 * reads are batched only where a system call costs more than {@link #BATCH_FROM_NANOS} ({@link SyscallCost}): on
 * a VM that traps system calls batching wins, where system calls are cheap a preadv2 each does.
 */
public final class ReadBatching {
    /** Above where batching breaks even on cheap system calls, below the microseconds of VMs that trap them. */
    public static final long BATCH_FROM_NANOS = 500;

    private static final String SETTING = System.getProperty("uring4j.fs.batchedReads", "auto");
    /** O_DIRECT reads of virtual threads. */
    static final boolean DIRECT = !"false".equalsIgnoreCase(SETTING);

    private ReadBatching() {
    }

    /** Page-cache reads of virtual threads; the first call measures what a system call costs (once). */
    public static boolean cached() {
        return Cached.BATCHED;
    }

    private static final class Cached {
        static final boolean BATCHED = batchCached(SETTING, SyscallCost::nanos);
    }

    /** The decision for page-cache reads under {@code setting}; {@code syscallNanos} is asked only for auto. */
    static boolean batchCached(String setting, LongSupplier syscallNanos) {
        if ("true".equalsIgnoreCase(setting) || "false".equalsIgnoreCase(setting)) {
            return Boolean.parseBoolean(setting);       // case-insensitive itself
        }
        return syscallNanos.getAsLong() >= BATCH_FROM_NANOS;
    }
}
