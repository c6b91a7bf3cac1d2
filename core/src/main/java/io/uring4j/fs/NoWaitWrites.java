package io.uring4j.fs;

import java.util.Arrays;

/**
 * The file systems, by device, that refused a virtual thread's RWF_NOWAIT write with EOPNOTSUPP (ext4 refuses every
 * buffered one): their other files' writes are plain pwrites from the first, instead of each file learning it again
 * at the cost of two failed system calls. Few devices, rarely added to: a copied array, read without a lock.
 */
final class NoWaitWrites {
    /** A file whose device is not known: it learns for itself ({@link AsyncFile#writeInPlace}). */
    static final long UNKNOWN = -1;
    private static volatile long[] refused = {};

    private NoWaitWrites() {
    }

    /** Whether {@code device}'s file system refused an RWF_NOWAIT write. */
    static boolean refused(long device) {
        if (device == UNKNOWN) {
            return false;
        }
        for (long d : refused) {
            if (d == device) {
                return true;
            }
        }
        return false;
    }

    /** Remembers that {@code device}'s file system refused an RWF_NOWAIT write. */
    static synchronized void refuse(long device) {
        if (device != UNKNOWN && !refused(device)) {
            long[] more = Arrays.copyOf(refused, refused.length + 1);
            more[more.length - 1] = device;
            refused = more;
        }
    }
}
