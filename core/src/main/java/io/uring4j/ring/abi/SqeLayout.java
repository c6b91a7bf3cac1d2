package io.uring4j.ring.abi;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Byte offsets of {@code struct io_uring_sqe} (64 bytes; 128 with SQE128). The unions are written through
 * their widest member; the names say which alternatives share an offset.
 */
public final class SqeLayout {
    public static final long SIZE = 64;
    public static final long OPCODE = 0;          // u8
    public static final long FLAGS = 1;           // u8  IOSQE_*
    public static final long IOPRIO = 2;          // u16 ioprio | send/recv/accept flags
    public static final long FD = 4;              // s32
    public static final long OFF = 8;             // u64 off | addr2 | cmd_op(u32)
    public static final long ADDR = 16;           // u64 addr | splice_off_in | level(u32)+optname(u32 @20)
    public static final long LEN = 24;            // u32
    public static final long OP_FLAGS = 28;       // u32 rw_flags | fsync_flags | poll32_events | timeout_flags | ...
    public static final long USER_DATA = 32;      // u64
    public static final long BUF_INDEX = 40;      // u16 buf_index | buf_group
    public static final long PERSONALITY = 42;    // u16
    public static final long FILE_INDEX = 44;     // u32 splice_fd_in | file_index | optlen | addr_len(u16)
    public static final long ADDR3 = 48;          // u64 addr3 | optval | cmd[] start
    public static final long PAD2 = 56;           // u64 __pad2[0] | attr_type_mask
    public static final long OPTNAME = 20;        // u32, socket URING_CMD
    public static final long CMD = 48;            // passthrough payload: 16 bytes, 80 with SQE128

    /*
     * Field access layouts. The SQE array is page-aligned and every field is naturally aligned, so the
     * unaligned layouts change nothing in memory; they spare the JIT an alignment check on every access.
     */
    public static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;

    /** Byte order of the fields (the kernel's, the CPU's): which end of a word two packed fields take. */
    public static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private SqeLayout() {
    }
}
