package io.uring4j.ring.abi;

/** {@code IOSQE_*}: per-SQE flags ({@code sqe->flags}, a byte). */
public final class SqeFlags {
    /** {@code fd} is an index into the registered file table. */
    public static final byte FIXED_FILE = 1;
    /** Start only after every earlier SQE has completed. */
    public static final byte IO_DRAIN = 1 << 1;
    /** Link to the next SQE: it starts when this one succeeds; a failure cancels it with ECANCELED. */
    public static final byte IO_LINK = 1 << 2;
    /** Like IO_LINK, but the chain survives this request's completion error. */
    public static final byte IO_HARDLINK = 1 << 3;
    /** Always issue from io-wq, skipping the non-blocking attempt. */
    public static final byte ASYNC = 1 << 4;
    /** Pick a buffer from the SQE's buffer group; the CQE carries F_BUFFER and the buffer id. */
    public static final byte BUFFER_SELECT = 1 << 5;
    /** Post no CQE when the request succeeds. */
    public static final byte CQE_SKIP_SUCCESS = 1 << 6;

    private static final String[] NAMES = {"FIXED_FILE", "IO_DRAIN", "IO_LINK", "IO_HARDLINK", "ASYNC",
        "BUFFER_SELECT", "CQE_SKIP_SUCCESS"};

    private SqeFlags() {
    }

    public static String toString(int flags) {
        return BitNames.of(flags & 0xff, NAMES);
    }
}
