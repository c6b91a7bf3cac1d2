package io.uring4j.runtime;

import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

/**
 * How a loop creates its ring: with the preferred setup flags — SINGLE_ISSUER + DEFER_TASKRUN (the owner completes
 * its own work, no wake-ups, no locks), TASKRUN_FLAG, COOP_TASKRUN and SUBMIT_ALL (NO_SQARRAY is tried by the
 * builder itself) — dropping a flag only when the kernel refuses it (EINVAL), newest first, so an older kernel
 * keeps all it has.
 */
final class RingSetup {
    /** Tried in this order: each step drops one more flag. */
    private static final int[] DROP_ORDER = {
        SetupFlags.DEFER_TASKRUN, SetupFlags.TASKRUN_FLAG, SetupFlags.COOP_TASKRUN, SetupFlags.SINGLE_ISSUER,
        SetupFlags.SUBMIT_ALL};
    static final int PREFERRED = SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN | SetupFlags.TASKRUN_FLAG
            | SetupFlags.COOP_TASKRUN | SetupFlags.SUBMIT_ALL;

    private RingSetup() {
    }

    /** Creates a ring on the calling thread (which becomes its single issuer). */
    static IoUring create(Engine engine, int entries, int cqEntries) throws ErrnoException {
        int flags = PREFERRED;
        for (int step = 0; ; step++) {
            try {
                return IoUring.builder().engine(engine).entries(entries).cqEntries(cqEntries).flags(flags).build();
            } catch (ErrnoException e) {
                if (e.errno() != Errno.EINVAL || step == DROP_ORDER.length) {
                    throw e;
                }
                flags &= ~DROP_ORDER[step];
            }
        }
    }
}
