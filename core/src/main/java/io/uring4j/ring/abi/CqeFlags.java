package io.uring4j.ring.abi;

/** {@code IORING_CQE_F_*}: flags in a CQE, and the decoders for the values packed into them. */
public final class CqeFlags {
    /** A provided buffer was used; its id is {@link #bufferId(int)}. */
    public static final int F_BUFFER = 1;
    /** More CQEs will follow for the same request (multishot; SEND_ZC before its notification). */
    public static final int F_MORE = 1 << 1;
    /** The socket still had data after this recv/accept. */
    public static final int F_SOCK_NONEMPTY = 1 << 2;
    /** A zero-copy send's notification: the buffer may now be reused. */
    public static final int F_NOTIF = 1 << 3;
    /** An incrementally consumed buffer is not used up; later CQEs use the same buffer id. */
    public static final int F_BUF_MORE = 1 << 4;
    /** A padding CQE (CQE_MIXED rings): skip it. */
    public static final int F_SKIP = 1 << 5;
    /** This CQE is 32 bytes (CQE_MIXED rings). */
    public static final int F_32 = 1 << 15;
    public static final int BUFFER_SHIFT = 16;

    private static final String[] NAMES = {"F_BUFFER", "F_MORE", "F_SOCK_NONEMPTY", "F_NOTIF", "F_BUF_MORE",
        "F_SKIP", null, null, null, null, null, null, null, null, null, "F_32"};

    private CqeFlags() {
    }

    public static boolean hasMore(int flags) {
        return (flags & F_MORE) != 0;
    }

    public static boolean hasBuffer(int flags) {
        return (flags & F_BUFFER) != 0;
    }

    public static boolean isNotification(int flags) {
        return (flags & F_NOTIF) != 0;
    }

    public static boolean isSocketNonEmpty(int flags) {
        return (flags & F_SOCK_NONEMPTY) != 0;
    }

    /** The provided-buffer id of a CQE with {@link #F_BUFFER}. */
    public static int bufferId(int flags) {
        return flags >>> BUFFER_SHIFT;
    }

    /** Flag names; the buffer id bits are shown as {@code bid=N}. */
    public static String toString(int flags) {
        String names = BitNames.of(flags & 0xffff, NAMES);
        return hasBuffer(flags) ? names + " bid=" + bufferId(flags) : names;
    }
}
