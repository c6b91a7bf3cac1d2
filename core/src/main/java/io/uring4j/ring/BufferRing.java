package io.uring4j.ring;

import io.uring4j.ring.abi.BufRingLayout;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A ring of provided buffers ({@code IORING_REGISTER_PBUF_RING}, 5.19): the kernel takes a buffer from it for
 * each request with BUFFER_SELECT on its group and reports the buffer id in the CQE.
 *
 * <p>The ring is an array of {@code struct io_uring_buf} (addr u64, len u32, bid u16, resv u16); the shared
 * u16 tail overlays {@code bufs[0].resv} at byte 14, which is why entries are written field by field and never
 * as a whole. The tail is published with a release store, so buffer entries are visible before it.
 *
 * <p>Buffers handed to the ring stay owned by the caller, who keeps them alive while the ring may pick them.
 * Not thread-safe: the ring's reaping thread refills it.
 */
public final class BufferRing implements AutoCloseable {
    private final IoUring ring;
    private final Arena arena;
    private final MemorySegment bufs;
    private final int groupId;
    private final int entries;
    private final int mask;
    private final int flags;
    private int tail;
    private boolean closed;

    BufferRing(IoUring ring, Arena arena, MemorySegment bufs, int groupId, int entries, int flags) {
        this.ring = ring;
        this.arena = arena;
        this.bufs = bufs;
        this.groupId = groupId;
        this.entries = entries;
        this.mask = entries - 1;
        this.flags = flags;
    }

    /**
     * Writes a buffer into the slot {@code offset} places past the tail (liburing's
     * {@code io_uring_buf_ring_add}); it becomes visible at the next {@link #advance}.
     */
    public void add(MemorySegment buffer, int bufferId, int offset) {
        add(SqeCore.address(buffer), SqeCore.length(buffer), bufferId, offset);
    }

    /** {@link #add(MemorySegment, int, int)} with a raw address and length. */
    public void add(long address, int length, int bufferId, int offset) {
        long entry = ((tail + offset) & mask) * BufRingLayout.BUF_SIZE;
        bufs.set(JAVA_LONG, entry + BufRingLayout.BUF_ADDR, address);
        bufs.set(JAVA_INT, entry + BufRingLayout.BUF_LEN, length);
        bufs.set(JAVA_SHORT, entry + BufRingLayout.BUF_BID, (short) bufferId);
    }

    /** Publishes {@code count} added buffers to the kernel. */
    public void advance(int count) {
        tail += count;
        Barriers.setShortRelease(bufs, BufRingLayout.TAIL, (short) tail);
    }

    /** Publishes {@code count} buffers and consumes {@code cqes} CQEs in one go (liburing's buf_ring_cq_advance). */
    public void cqAdvance(int count, int cqes) {
        advance(count);
        ring.cq().advance(cqes);
    }

    /** The kernel's head (IORING_REGISTER_PBUF_STATUS, 6.8): the next buffer it will take. */
    public int head() throws ErrnoException {
        return ring.register().bufferRingHead(groupId);
    }

    /** Buffers published and not yet taken by the kernel. */
    public int available() throws ErrnoException {
        return (short) (tail - head()) & 0xffff;
    }

    public int groupId() {
        return groupId;
    }

    public int entries() {
        return entries;
    }

    /**
     * Whether buffers are consumed incrementally ({@link BufRingLayout#PBUF_RING_INC}): a CQE with
     * {@code F_BUF_MORE} leaves its buffer in the ring, and the next one continues behind its bytes.
     */
    public boolean incremental() {
        return (flags & BufRingLayout.PBUF_RING_INC) != 0;
    }

    /** Unregisters the group and frees the ring memory. The buffers themselves stay the caller's. */
    @Override
    public void close() throws ErrnoException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (ring.isOpen()) {
                try {
                    ring.register().unregisterBufferRing(groupId);
                } catch (ErrnoException e) {
                    if (e.errno() != io.uring4j.sys.Errno.ENOENT && e.errno() != io.uring4j.sys.Errno.EINVAL) {
                        throw e;    // ENOENT/EINVAL: already unregistered by hand, nothing left to undo
                    }
                }
            }
        } finally {
            arena.close();
        }
    }
}
