package io.uring4j.fs;

import java.util.Arrays;

/**
 * The file systems, by device, that refused a virtual thread's RWF_NOWAIT write with EOPNOTSUPP (ext4 refuses every
 * buffered one): their other files' writes are plain pwrites from the first, instead of each file learning it again
 * at the cost of two failed system calls. Few devices, rarely added to: a copied array, read without a lock.
 *
 * <p>A file whose device is not known (one its open created, one a platform thread opened) is taken for refused while
 * every file system that answered refused, as on a machine of one ext4 file system: wrongly so, its writes are plain
 * pwrites on the carrier, as the JDK's are. Once any file system took such a write, those files learn for themselves.
 */
final class NoWaitWrites {
    /** A file whose device is not known ({@link AsyncFile#onDevice}). */
    static final long UNKNOWN = -1;
    private static volatile long[] refused = {};
    /** Some file system refused an RWF_NOWAIT write: a file's of a device not known, too. */
    private static volatile boolean anyRefused;
    /** Some file system took an RWF_NOWAIT write. */
    private static volatile boolean taken;

    private NoWaitWrites() {
    }

    /** Whether {@code device}'s file system refused an RWF_NOWAIT write, or for an unknown one, every one did. */
    static boolean refused(long device) {
        if (device == UNKNOWN) {
            return anyRefused && !taken;
        }
        for (long d : refused) {
            if (d == device) {
                return true;
            }
        }
        return false;
    }

    /** Whether some file system took an RWF_NOWAIT write (or refused one only for the moment: EAGAIN). */
    static boolean anyTaken() {
        return taken;
    }

    /** Remembers that a file system took an RWF_NOWAIT write. */
    static void took() {
        if (!taken) {
            taken = true;
        }
    }

    /** Remembers that {@code device}'s file system refused an RWF_NOWAIT write. */
    static synchronized void refuse(long device) {
        anyRefused = true;
        if (device != UNKNOWN && !refused(device)) {
            long[] more = Arrays.copyOf(refused, refused.length + 1);
            more[more.length - 1] = device;
            refused = more;
        }
    }
}
