package io.uring4j.ring.abi;

/** Per-opcode flag spaces of the SQE, grouped by the opcode family that reads them. */
public final class OpFlags {
    private OpFlags() {
    }

    /** {@code nop_flags}. */
    public static final class Nop {
        /** Post {@code len} as the CQE result. */
        public static final int INJECT_RESULT = 1;
        public static final int FILE = 1 << 1;
        public static final int FIXED_FILE = 1 << 2;
        public static final int FIXED_BUFFER = 1 << 3;
        /** Complete through task_work. */
        public static final int TW = 1 << 4;
        public static final int CQE32 = 1 << 5;

        private Nop() {
        }
    }

    /** {@code fsync_flags}. */
    public static final class Fsync {
        public static final int DATASYNC = 1;

        private Fsync() {
        }
    }

    /** {@code timeout_flags}. */
    public static final class Timeout {
        public static final int ABS = 1;
        public static final int UPDATE = 1 << 1;
        public static final int BOOTTIME = 1 << 2;
        public static final int REALTIME = 1 << 3;
        public static final int LINK_TIMEOUT_UPDATE = 1 << 4;
        /** An expiry still posts -ETIME, but no longer breaks the link. */
        public static final int ETIME_SUCCESS = 1 << 5;
        public static final int MULTISHOT = 1 << 6;
        /** {@code addr} holds the timeout in nanoseconds instead of a timespec pointer (newer than 6.18). */
        public static final int IMMEDIATE_ARG = 1 << 7;

        private Timeout() {
        }
    }

    /** Poll command flags ({@code sqe->len} of POLL_ADD / POLL_REMOVE). */
    public static final class Poll {
        public static final int ADD_MULTI = 1;
        public static final int UPDATE_EVENTS = 1 << 1;
        public static final int UPDATE_USER_DATA = 1 << 2;
        public static final int ADD_LEVEL = 1 << 3;

        /** Poll event bits ({@code poll32_events}). */
        public static final int POLLIN = 0x001;
        public static final int POLLPRI = 0x002;
        public static final int POLLOUT = 0x004;
        public static final int POLLERR = 0x008;
        public static final int POLLHUP = 0x010;
        public static final int POLLRDHUP = 0x2000;

        private Poll() {
        }
    }

    /** {@code cancel_flags} of ASYNC_CANCEL and sync cancel. */
    public static final class Cancel {
        /** Cancel every match, not just the first; the result is the count. */
        public static final int ALL = 1;
        /** Match by fd instead of user_data. */
        public static final int FD = 1 << 1;
        /** Match any request. */
        public static final int ANY = 1 << 2;
        /** The fd is a registered file index. */
        public static final int FD_FIXED = 1 << 3;
        /** Match by user_data (explicit, for combining with FD/OP). */
        public static final int USERDATA = 1 << 4;
        /** Match by opcode. */
        public static final int OP = 1 << 5;

        private Cancel() {
        }
    }

    /** send/recv flags carried in {@code sqe->ioprio}. */
    public static final class SendRecv {
        public static final int POLL_FIRST = 1;
        public static final int RECV_MULTISHOT = 1 << 1;
        public static final int FIXED_BUF = 1 << 2;
        public static final int ZC_REPORT_USAGE = 1 << 3;
        public static final int BUNDLE = 1 << 4;
        /** SEND / SEND_ZC take an iovec array in addr, its length in len (6.17). */
        public static final int VECTORIZED = 1 << 5;

        private SendRecv() {
        }
    }

    /** accept flags carried in {@code sqe->ioprio}. */
    public static final class Accept {
        public static final int MULTISHOT = 1;
        public static final int DONTWAIT = 1 << 1;
        public static final int POLL_FIRST = 1 << 2;

        private Accept() {
        }
    }

    /** MSG_RING command (in {@code addr}) and {@code msg_ring_flags}. */
    public static final class MsgRing {
        public static final int DATA = 0;
        public static final int SEND_FD = 1;
        public static final int CQE_SKIP = 1;
        public static final int FLAGS_PASS = 1 << 1;

        private MsgRing() {
        }
    }

    /** Direct-descriptor constants. */
    public static final class FileIndex {
        /** Let the kernel pick a free slot in the registered file table (the CQE result is the slot). */
        public static final int ALLOC = -1;
        /** {@code install_fd_flags}: do not set O_CLOEXEC on the installed fd. */
        public static final int INSTALL_NO_CLOEXEC = 1;
        /** In a files update: leave this slot as it is. */
        public static final int SKIP = -2;

        private FileIndex() {
        }
    }

    /** {@code SOCKET_URING_OP_*}: the command of a socket URING_CMD ({@code cmd_op}). */
    public static final class SocketCmd {
        public static final int SIOCINQ = 0;
        public static final int SIOCOUTQ = 1;
        public static final int GETSOCKOPT = 2;
        public static final int SETSOCKOPT = 3;
        public static final int TX_TIMESTAMP = 4;
        /** Newer than 6.18 (which answers EOPNOTSUPP or EINVAL). */
        public static final int GETSOCKNAME = 5;

        private SocketCmd() {
        }
    }

    /**
     * futex2 flags (FUTEX_WAIT/WAKE's fd field and {@code struct futex_waitv}'s flags), from the Linux uapi
     * {@code futex.h}, and the bitset mask that matches every waiter.
     */
    public static final class Futex {
        /** A 32-bit futex word ({@code FUTEX2_SIZE_U32}, older headers' {@code FUTEX_32}). */
        public static final int SIZE_U32 = 0x02;
        /** Process-private: no lookup through shared mappings ({@code FUTEX2_PRIVATE}). */
        public static final int PRIVATE = 128;
        /** {@code FUTEX_BITSET_MATCH_ANY}: the mask of a plain wait or wake. */
        public static final long MATCH_ANY = 0xffff_ffffL;
        /** {@code sizeof(struct futex_waitv)}: val u64, uaddr u64, flags u32, reserved u32. */
        public static final long WAITV_SIZE = 24;

        private Futex() {
        }
    }

    /** Block device URING_CMD commands ({@code <linux/blkdev.h>}, 6.12). */
    public static final class BlockCmd {
        /** {@code BLOCK_URING_CMD_DISCARD}: {@code _IO(0x12, 0)}, discard a byte range. */
        public static final int DISCARD = 0x1200;

        private BlockCmd() {
        }
    }
}
