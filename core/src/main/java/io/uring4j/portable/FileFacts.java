package io.uring4j.portable;

/**
 * What the thread consuming an SQ batch learnt last about one fd: its F_GETFL flags and its kind, asked once per
 * run of requests on the same fd (64 reads of one file cost one fcntl, not 64) — as current as the kernel's own
 * fd lookup at submission, since the batch is consumed in one go. Outside a batch, or on another thread, every
 * question is a system call: an fd number says nothing lasting about its file (it may be closed and reused).
 */
final class FileFacts {
    /** O_DIRECT, as open(2) and F_GETFL have it. */
    static final int O_DIRECT = 0x4000;
    private static final int UNKNOWN_FLAGS = Integer.MIN_VALUE;
    private static final long UNKNOWN_KIND = Long.MIN_VALUE;

    private Thread batchThread;
    private int batchFd = -1;
    private int batchFlags;
    private long batchKind;

    /** F_GETFL of {@code fd}, or -errno. */
    int flags(int fd) {
        boolean batch = batchHolds(fd);
        if (batch && batchFlags != UNKNOWN_FLAGS) {
            return batchFlags;
        }
        int flags = Sys.fcntl(fd, Sys.F_GETFL, 0);
        if (batch) {
            batchFlags = flags;
        }
        return flags;
    }

    /** {@link Sys#fileKind} of {@code fd}. */
    long kind(int fd) {
        boolean batch = batchHolds(fd);
        long kind = batch && batchKind != UNKNOWN_KIND ? batchKind : Sys.fileKind(fd);
        if (batch) {
            batchKind = kind;
        }
        return kind;
    }

    /** Whether the per-batch cache may answer for {@code fd} on this thread; it switches to {@code fd} if so. */
    private boolean batchHolds(int fd) {
        if (Thread.currentThread() != batchThread) {
            return false;
        }
        if (fd != batchFd) {
            batchFd = fd;
            batchFlags = UNKNOWN_FLAGS;
            batchKind = UNKNOWN_KIND;
        }
        return true;
    }

    /** The calling thread starts consuming an SQ batch: answers may be remembered until {@link #endBatch}. */
    void beginBatch() {
        batchFd = -1;
        batchThread = Thread.currentThread();
    }

    void endBatch() {
        batchThread = null;
        batchFd = -1;
    }
}
