package io.uring4j.fs;

/**
 * Whether a buffered file's reads keep finding their pages in the page cache. A virtual thread's read of such a
 * file asks with {@code preadv2(RWF_NOWAIT)}, which never waits for the device but costs the kernel an iovec to
 * copy in. After {@link #RUN} whole hits in a row, reads are plain preads, the JDK's call, and one in
 * {@link #PROBE_EVERY} asks with RWF_NOWAIT again: a probe that misses ends the run. So once the cache stops
 * holding the file, a carrier waits for the device only in the plain reads before a probe misses — the JDK's
 * FileChannel waits in every read — and a file whose pages come and go is asked with RWF_NOWAIT throughout.
 *
 * <p>The counts are plain fields: a lost update between racing readers only moves a switch by a read.
 */
final class CacheHits {
    static final int RUN = 8;
    static final int PROBE_EVERY = 8;

    private int hits;
    private int untilProbe;

    /** Whether the next read is a plain pread; else an RWF_NOWAIT attempt, whose outcome {@link #attempted} takes. */
    boolean plain() {
        if (hits < RUN) {
            return false;
        }
        if (--untilProbe > 0) {
            return true;
        }
        untilProbe = PROBE_EVERY;
        return false;
    }

    /** An RWF_NOWAIT attempt got every byte it asked for (or end of file), or did not. */
    void attempted(boolean hit) {
        if (!hit) {
            hits = 0;
        } else if (hits < RUN && ++hits == RUN) {
            untilProbe = PROBE_EVERY;
        }
    }
}
