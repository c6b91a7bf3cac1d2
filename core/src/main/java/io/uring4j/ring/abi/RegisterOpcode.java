package io.uring4j.ring.abi;

/** {@code IORING_REGISTER_*}: the {@code io_uring_register} opcodes, numbered as in the uapi header. */
public final class RegisterOpcode {
    public static final int REGISTER_BUFFERS = 0;
    public static final int UNREGISTER_BUFFERS = 1;
    public static final int REGISTER_FILES = 2;
    public static final int UNREGISTER_FILES = 3;
    public static final int REGISTER_EVENTFD = 4;
    public static final int UNREGISTER_EVENTFD = 5;
    public static final int REGISTER_FILES_UPDATE = 6;
    public static final int REGISTER_EVENTFD_ASYNC = 7;
    public static final int REGISTER_PROBE = 8;
    public static final int REGISTER_PERSONALITY = 9;
    public static final int UNREGISTER_PERSONALITY = 10;
    public static final int REGISTER_RESTRICTIONS = 11;
    public static final int REGISTER_ENABLE_RINGS = 12;
    public static final int REGISTER_FILES2 = 13;
    public static final int REGISTER_FILES_UPDATE2 = 14;
    public static final int REGISTER_BUFFERS2 = 15;
    public static final int REGISTER_BUFFERS_UPDATE = 16;
    public static final int REGISTER_IOWQ_AFF = 17;
    public static final int UNREGISTER_IOWQ_AFF = 18;
    public static final int REGISTER_IOWQ_MAX_WORKERS = 19;
    public static final int REGISTER_RING_FDS = 20;
    public static final int UNREGISTER_RING_FDS = 21;
    public static final int REGISTER_PBUF_RING = 22;
    public static final int UNREGISTER_PBUF_RING = 23;
    public static final int REGISTER_SYNC_CANCEL = 24;
    public static final int REGISTER_FILE_ALLOC_RANGE = 25;
    public static final int REGISTER_PBUF_STATUS = 26;
    public static final int REGISTER_NAPI = 27;
    public static final int UNREGISTER_NAPI = 28;
    /** The clock of wait timeouts (6.12). */
    public static final int REGISTER_CLOCK = 29;
    /** Copies another ring's registered buffers (6.12). */
    public static final int REGISTER_CLONE_BUFFERS = 30;
    /** MSG_RING without a source ring, fd -1 (6.13). */
    public static final int REGISTER_SEND_MSG_RING = 31;
    /** A zero-copy receive interface queue (6.15). */
    public static final int REGISTER_ZCRX_IFQ = 32;
    public static final int REGISTER_RESIZE_RINGS = 33;
    /** A memory region, such as registered wait arguments (6.13). */
    public static final int REGISTER_MEM_REGION = 34;
    /** What the kernel supports, without a ring (fd -1); 6.18. */
    public static final int REGISTER_QUERY = 35;
    /** OR'ed into the opcode: the fd argument is a registered ring index. */
    public static final int USE_REGISTERED_RING = 1 << 31;

    private static final String[] NAMES = {"REGISTER_BUFFERS", "UNREGISTER_BUFFERS", "REGISTER_FILES",
        "UNREGISTER_FILES", "REGISTER_EVENTFD", "UNREGISTER_EVENTFD", "REGISTER_FILES_UPDATE",
        "REGISTER_EVENTFD_ASYNC", "REGISTER_PROBE", "REGISTER_PERSONALITY", "UNREGISTER_PERSONALITY",
        "REGISTER_RESTRICTIONS", "REGISTER_ENABLE_RINGS", "REGISTER_FILES2", "REGISTER_FILES_UPDATE2",
        "REGISTER_BUFFERS2", "REGISTER_BUFFERS_UPDATE", "REGISTER_IOWQ_AFF", "UNREGISTER_IOWQ_AFF",
        "REGISTER_IOWQ_MAX_WORKERS", "REGISTER_RING_FDS", "UNREGISTER_RING_FDS", "REGISTER_PBUF_RING",
        "UNREGISTER_PBUF_RING", "REGISTER_SYNC_CANCEL", "REGISTER_FILE_ALLOC_RANGE", "REGISTER_PBUF_STATUS",
        "REGISTER_NAPI", "UNREGISTER_NAPI", "REGISTER_CLOCK", "REGISTER_CLONE_BUFFERS", "REGISTER_SEND_MSG_RING",
        "REGISTER_ZCRX_IFQ", "REGISTER_RESIZE_RINGS", "REGISTER_MEM_REGION", "REGISTER_QUERY"};

    /** Number of register opcodes this library names (the highest known + 1). */
    public static final int KNOWN = NAMES.length;

    private RegisterOpcode() {
    }

    /** The name of a register opcode; {@code REGISTER_OP_99} for one this library does not know. */
    public static String name(int opcode) {
        int op = opcode & ~USE_REGISTERED_RING;
        return op < NAMES.length ? NAMES[op] : "REGISTER_OP_" + op;
    }
}
