package io.uring4j.runtime;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.Opcode;

/**
 * When the future and blocking styles report a zero-copy send (SEND_ZC, SENDMSG_ZC). Its first CQE carries the
 * byte count and F_MORE, but the kernel may still read the buffer until a second CQE, with F_NOTIF, says it is
 * done. Reporting at the first would let the caller reuse a buffer that is still being sent from, so the count
 * is held and reported at the notification. A send refused before it started has one CQE, without F_MORE, and
 * reports at once.
 */
final class ZeroCopy {
    private ZeroCopy() {
    }

    /** Whether a CQE of {@code opcode} is a zero-copy result whose report waits for the notification. */
    static boolean awaitsNotification(byte opcode, int flags) {
        return (flags & CqeFlags.F_MORE) != 0 && (opcode == Opcode.SEND_ZC || opcode == Opcode.SENDMSG_ZC);
    }

    /** The result to report at a final CQE: the held count at a notification, else the CQE's own result. */
    static int reported(int res, int flags, int held) {
        return (flags & CqeFlags.F_NOTIF) != 0 ? held : res;
    }
}
