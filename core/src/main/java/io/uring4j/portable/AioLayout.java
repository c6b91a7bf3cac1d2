package io.uring4j.portable;

/**
 * Linux native AIO's ABI ({@code linux/aio_abi.h}) as little-endian 64-bit machines lay it out: {@code struct
 * iocb}, {@code struct io_event}, the opcodes. On big-endian machines aio_key and aio_rw_flags trade places; we do
 * not run there ({@link Aio} answers ENOSYS).
 */
final class AioLayout {
    // struct iocb, 64 bytes. aio_key (u32 @8, written by the kernel at submission), aio_reqprio (s16 @18) and
    // aio_reserved2 (u64 @48, must be zero) are never set by us: the memory starts zeroed.
    static final long IOCB_SIZE = 64;
    static final long IOCB_DATA = 0;
    static final long IOCB_RW_FLAGS = 12;
    static final long IOCB_OPCODE = 16;
    static final long IOCB_FILDES = 20;
    static final long IOCB_BUF = 24;
    static final long IOCB_NBYTES = 32;
    static final long IOCB_OFFSET = 40;
    static final long IOCB_FLAGS = 56;
    static final long IOCB_RESFD = 60;

    // struct io_event, 32 bytes: data (the iocb's aio_data) @0, obj (the iocb's address) @8, res @16, res2 @24.
    static final long EVENT_SIZE = 32;
    static final long EVENT_DATA = 0;
    static final long EVENT_RES = 16;

    // struct aio_ring, the completion ring the kernel maps at the context's address (aio_context_t is that
    // address): its header, then nr io_events. The kernel writes events and then tail; whoever reaps reads them
    // and writes head, which the kernel reads back to free slots (user_refill_reqs_available).
    static final long RING_NR = 4;
    static final long RING_HEAD = 8;
    static final long RING_TAIL = 12;
    static final long RING_MAGIC = 16;
    static final long RING_INCOMPAT_FEATURES = 24;
    static final long RING_HEADER_LENGTH = 28;
    static final long RING_EVENTS = 32;
    /** AIO_RING_MAGIC: a ring whose layout user space may read (incompat_features 0). */
    static final int RING_MAGIC_VALUE = 0xa10a10a1;

    // aio_lio_opcode
    static final short CMD_PREAD = 0;
    static final short CMD_PWRITE = 1;
    static final short CMD_FSYNC = 2;
    static final short CMD_FDSYNC = 3;
    static final short CMD_PREADV = 7;
    static final short CMD_PWRITEV = 8;

    /** aio_flags: signal aio_resfd (an eventfd) when the iocb completes. */
    static final int IOCB_FLAG_RESFD = 1;

    private AioLayout() {
    }
}
