package io.uring4j.ring.abi;

/** {@code IORING_OP_*}: the request opcodes ({@code sqe->opcode}), numbered as in the uapi header. */
public final class Opcode {
    public static final byte NOP = 0;
    public static final byte READV = 1;
    public static final byte WRITEV = 2;
    public static final byte FSYNC = 3;
    public static final byte READ_FIXED = 4;
    public static final byte WRITE_FIXED = 5;
    public static final byte POLL_ADD = 6;
    public static final byte POLL_REMOVE = 7;
    public static final byte SYNC_FILE_RANGE = 8;
    public static final byte SENDMSG = 9;
    public static final byte RECVMSG = 10;
    public static final byte TIMEOUT = 11;
    public static final byte TIMEOUT_REMOVE = 12;
    public static final byte ACCEPT = 13;
    public static final byte ASYNC_CANCEL = 14;
    public static final byte LINK_TIMEOUT = 15;
    public static final byte CONNECT = 16;
    public static final byte FALLOCATE = 17;
    public static final byte OPENAT = 18;
    public static final byte CLOSE = 19;
    public static final byte FILES_UPDATE = 20;
    public static final byte STATX = 21;
    public static final byte READ = 22;
    public static final byte WRITE = 23;
    public static final byte FADVISE = 24;
    public static final byte MADVISE = 25;
    public static final byte SEND = 26;
    public static final byte RECV = 27;
    public static final byte OPENAT2 = 28;
    public static final byte EPOLL_CTL = 29;
    public static final byte SPLICE = 30;
    public static final byte PROVIDE_BUFFERS = 31;
    public static final byte REMOVE_BUFFERS = 32;
    public static final byte TEE = 33;
    public static final byte SHUTDOWN = 34;
    public static final byte RENAMEAT = 35;
    public static final byte UNLINKAT = 36;
    public static final byte MKDIRAT = 37;
    public static final byte SYMLINKAT = 38;
    public static final byte LINKAT = 39;
    public static final byte MSG_RING = 40;
    public static final byte FSETXATTR = 41;
    public static final byte SETXATTR = 42;
    public static final byte FGETXATTR = 43;
    public static final byte GETXATTR = 44;
    public static final byte SOCKET = 45;
    public static final byte URING_CMD = 46;
    public static final byte SEND_ZC = 47;
    public static final byte SENDMSG_ZC = 48;
    public static final byte READ_MULTISHOT = 49;
    public static final byte WAITID = 50;
    public static final byte FUTEX_WAIT = 51;
    public static final byte FUTEX_WAKE = 52;
    public static final byte FUTEX_WAITV = 53;
    public static final byte FIXED_FD_INSTALL = 54;
    public static final byte FTRUNCATE = 55;
    public static final byte BIND = 56;
    public static final byte LISTEN = 57;
    public static final byte RECV_ZC = 58;
    public static final byte EPOLL_WAIT = 59;
    public static final byte READV_FIXED = 60;
    public static final byte WRITEV_FIXED = 61;
    public static final byte PIPE = 62;

    private static final String[] NAMES = {"NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED",
        "POLL_ADD", "POLL_REMOVE", "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG", "TIMEOUT", "TIMEOUT_REMOVE", "ACCEPT",
        "ASYNC_CANCEL", "LINK_TIMEOUT", "CONNECT", "FALLOCATE", "OPENAT", "CLOSE", "FILES_UPDATE", "STATX", "READ",
        "WRITE", "FADVISE", "MADVISE", "SEND", "RECV", "OPENAT2", "EPOLL_CTL", "SPLICE", "PROVIDE_BUFFERS",
        "REMOVE_BUFFERS", "TEE", "SHUTDOWN", "RENAMEAT", "UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT", "MSG_RING",
        "FSETXATTR", "SETXATTR", "FGETXATTR", "GETXATTR", "SOCKET", "URING_CMD", "SEND_ZC", "SENDMSG_ZC",
        "READ_MULTISHOT", "WAITID", "FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_WAITV", "FIXED_FD_INSTALL", "FTRUNCATE",
        "BIND", "LISTEN", "RECV_ZC", "EPOLL_WAIT", "READV_FIXED", "WRITEV_FIXED", "PIPE"};

    /** Number of opcodes this library names (the highest known opcode + 1). */
    public static final int KNOWN = NAMES.length;

    private Opcode() {
    }

    /** {@code READ_FIXED} for 4; {@code OP_200} for an opcode this library does not know. */
    public static String name(int opcode) {
        int op = opcode & 0xff;
        return op < NAMES.length ? NAMES[op] : "OP_" + op;
    }
}
