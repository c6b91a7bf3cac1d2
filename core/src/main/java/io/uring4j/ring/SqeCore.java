package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;

import java.lang.foreign.MemorySegment;

import static io.uring4j.ring.abi.SqeLayout.*;

/**
 * Raw field access to one SQE slot and the one prep core every typed {@code prepXxx} builds on.
 *
 * <p>An SQE object is a view of a fixed slot of the mmap'd SQE array, created once per slot at setup, so
 * handing one out allocates nothing. It is the caller's between {@link SubmissionQueue#next()} and the next
 * submit; after that the kernel owns the slot, and writing to it is a bug (liburing issue #514).
 * Every setter returns the SQE so calls chain: {@code sq.next().prepNop().userData(7)}.
 */
abstract sealed class SqeCore permits SqeFilePrep {
    final MemorySegment slot;
    private final int index;
    /** A 128-byte entry (SQE128 rings). */
    private final boolean big;

    SqeCore(MemorySegment slot, int index) {
        this.slot = slot;
        this.index = index;
        this.big = slot.byteSize() > SIZE;
    }

    private Sqe self() {
        return (Sqe) this;
    }

    /** This SQE's index in the SQE array. */
    public final int index() {
        return index;
    }

    /**
     * liburing's {@code io_uring_prep_rw}, the prep core every typed prep starts with: writes every field but
     * user_data — opcode, fd, addr, len and off, and zero for the flags, ioprio, op flags, buffer index,
     * personality, file index, addr3 and the pad (and the second half of a 128-byte entry) — so nothing of the
     * slot's earlier request survives ({@link SubmissionQueue#next()} does not zero it). Eight-byte stores, each
     * field pair in one: a third of the stores that zeroing the slot first and then setting fields took.
     */
    public final Sqe prepRw(byte opcode, int fd, long addr, int len, long off) {
        final MemorySegment s = slot;
        s.set(U64, OPCODE, opcodeAndFd(opcode, fd));
        s.set(U64, OFF, off);
        s.set(U64, ADDR, addr);
        s.set(U64, LEN, lenAndNoOpFlags(len));
        s.set(U64, BUF_INDEX, 0L);      // buf_index, personality, file_index
        s.set(U64, ADDR3, 0L);
        s.set(U64, PAD2, 0L);
        if (big) {
            for (long off128 = SIZE; off128 < 2 * SIZE; off128 += 8) {
                s.set(U64, off128, 0L);
            }
        }
        return self();
    }

    /** Bytes 0–7 as one word: opcode, flags 0, ioprio 0, fd. */
    private static long opcodeAndFd(byte opcode, int fd) {
        return LITTLE_ENDIAN ? (opcode & 0xffL) | ((long) fd << 32) : ((long) opcode << 56) | (fd & 0xffff_ffffL);
    }

    /** Bytes 24–31 as one word: len, op flags 0. */
    private static long lenAndNoOpFlags(int len) {
        return LITTLE_ENDIAN ? len & 0xffff_ffffL : (long) len << 32;
    }

    /** The address of native memory handed to the kernel; heap memory is refused, its address is not stable. */
    static long address(MemorySegment segment) {
        if (!segment.isNative()) {
            throw new IllegalArgumentException(
                    "heap memory cannot be handed to the kernel: use a native segment (Arena.allocate) or a direct buffer");
        }
        return segment.address();
    }

    /** {@code byteSize} as an SQE length: io_uring lengths are 32-bit. */
    static int length(MemorySegment segment) {
        long size = segment.byteSize();
        if (size > 0xffff_ffffL) {
            throw new IllegalArgumentException("buffer of " + size + " bytes exceeds io_uring's 32-bit length");
        }
        return (int) size;
    }

    // ---- raw fields -------------------------------------------------------------------------------------

    public final Sqe opcode(byte opcode) {
        slot.set(U8, OPCODE, opcode);
        return self();
    }

    public final byte opcode() {
        return slot.get(U8, OPCODE);
    }

    /** Replaces the IOSQE_* flags. */
    public final Sqe flags(int sqeFlags) {
        slot.set(U8, FLAGS, (byte) sqeFlags);
        return self();
    }

    /** Adds IOSQE_* flags to those already set. */
    public final Sqe addFlags(int sqeFlags) {
        slot.set(U8, FLAGS, (byte) (slot.get(U8, FLAGS) | sqeFlags));
        return self();
    }

    public final int flags() {
        return slot.get(U8, FLAGS) & 0xff;
    }

    /** Links the next SQE to this one ({@link SqeFlags#IO_LINK}). */
    public final Sqe link() {
        return addFlags(SqeFlags.IO_LINK);
    }

    /** Hard-links the next SQE to this one ({@link SqeFlags#IO_HARDLINK}). */
    public final Sqe hardLink() {
        return addFlags(SqeFlags.IO_HARDLINK);
    }

    public final Sqe ioprio(int ioprio) {
        slot.set(U16, IOPRIO, (short) ioprio);
        return self();
    }

    final Sqe addIoprio(int bits) {
        slot.set(U16, IOPRIO, (short) (slot.get(U16, IOPRIO) | bits));
        return self();
    }

    public final int ioprio() {
        return slot.get(U16, IOPRIO) & 0xffff;
    }

    public final Sqe fd(int fd) {
        slot.set(U32, FD, fd);
        return self();
    }

    public final int fd() {
        return slot.get(U32, FD);
    }

    /** {@code off} / {@code addr2}. */
    public final Sqe off(long off) {
        slot.set(U64, OFF, off);
        return self();
    }

    public final long off() {
        return slot.get(U64, OFF);
    }

    public final Sqe addr(long addr) {
        slot.set(U64, ADDR, addr);
        return self();
    }

    public final long addr() {
        return slot.get(U64, ADDR);
    }

    public final Sqe len(int len) {
        slot.set(U32, LEN, len);
        return self();
    }

    public final int len() {
        return slot.get(U32, LEN);
    }

    /** The per-opcode flags union at offset 28 ({@code rw_flags}, {@code timeout_flags}, {@code msg_flags}, ...). */
    public final Sqe opFlags(int opFlags) {
        slot.set(U32, OP_FLAGS, opFlags);
        return self();
    }

    public final int opFlags() {
        return slot.get(U32, OP_FLAGS);
    }

    public final Sqe userData(long userData) {
        slot.set(U64, USER_DATA, userData);
        return self();
    }

    public final long userData() {
        return slot.get(U64, USER_DATA);
    }

    /** Registered-buffer index (for *_FIXED opcodes). */
    public final Sqe bufIndex(int bufIndex) {
        slot.set(U16, BUF_INDEX, (short) bufIndex);
        return self();
    }

    /** Provided-buffer group (with {@link SqeFlags#BUFFER_SELECT}); shares the field with {@code buf_index}. */
    public final Sqe bufGroup(int bufGroup) {
        return bufIndex(bufGroup);
    }

    /** Selects a buffer from a provided-buffer group: sets BUFFER_SELECT and the group. */
    public final Sqe bufferSelect(int bufGroup) {
        return bufIndex(bufGroup).addFlags(SqeFlags.BUFFER_SELECT);
    }

    public final Sqe personality(int personality) {
        slot.set(U16, PERSONALITY, (short) personality);
        return self();
    }

    /** {@code file_index} / {@code splice_fd_in}: the raw value, written as is. */
    public final Sqe fileIndex(int fileIndex) {
        slot.set(U32, FILE_INDEX, fileIndex);
        return self();
    }

    public final int fileIndex() {
        return slot.get(U32, FILE_INDEX);
    }

    /**
     * Targets a direct descriptor: slot {@code slot} of the registered file table, or
     * {@link OpFlags.FileIndex#ALLOC} to let the kernel pick one. The SQE field holds {@code slot + 1}.
     */
    public final Sqe directSlot(int slot) {
        return fileIndex(slot == OpFlags.FileIndex.ALLOC ? OpFlags.FileIndex.ALLOC : slot + 1);
    }

    public final Sqe addr3(long addr3) {
        slot.set(U64, ADDR3, addr3);
        return self();
    }

    /**
     * The URING_CMD passthrough payload (16 bytes, or 80 on an SQE128 ring), to be written in place before
     * submit.
     */
    public final MemorySegment cmd() {
        return slot.asSlice(CMD);
    }

    /** The whole entry, for fields this API does not name. */
    public final MemorySegment raw() {
        return slot;
    }

    @Override
    public String toString() {
        return "Sqe[" + index + " " + Opcode.name(opcode()) + " fd=" + fd() + " flags=" + SqeFlags.toString(flags())
                + " user_data=" + userData() + "]";
    }
}
