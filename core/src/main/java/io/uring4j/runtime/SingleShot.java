package io.uring4j.runtime;

import io.uring4j.ring.Sqe;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;

/**
 * The future and blocking styles report one result, so they take single-shot requests only. A multishot request
 * (accept, recv, poll, a periodic timer...) posts a CQE with F_MORE per event until it ends: each carries a result
 * of its own (an accepted fd, a picked buffer) that one answer cannot hold, and one that went unreported would leak.
 * Such a request is refused as it is prepared, before it reaches the kernel; multishot requests are for
 * {@link EventLoop#submit(Op, CompletionHandler)}, whose handler sees every CQE.
 */
final class SingleShot {
    private SingleShot() {
    }

    /** Loop thread, after {@code op} wrote {@code sqe}: throws if the request is a multishot one. */
    static void require(Sqe sqe) {
        if (multishot(sqe)) {
            throw new IllegalArgumentException(Opcode.name(sqe.opcode()) + " is multishot: futures and blocking calls"
                    + " report one result; submit it with a CompletionHandler, which sees each CQE");
        }
    }

    /** Whether the request in {@code sqe} posts CQEs with F_MORE until it ends (zero-copy sends aside). */
    static boolean multishot(Sqe sqe) {
        return switch (sqe.opcode()) {
            case Opcode.ACCEPT -> (sqe.ioprio() & OpFlags.Accept.MULTISHOT) != 0;
            case Opcode.RECV, Opcode.RECVMSG -> (sqe.ioprio() & OpFlags.SendRecv.RECV_MULTISHOT) != 0;
            case Opcode.POLL_ADD -> (sqe.len() & OpFlags.Poll.ADD_MULTI) != 0;
            case Opcode.TIMEOUT -> (sqe.opFlags() & OpFlags.Timeout.MULTISHOT) != 0;
            case Opcode.READ_MULTISHOT -> true;
            default -> false;
        };
    }
}
