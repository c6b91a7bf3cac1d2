package io.uring4j.fs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The buffers of one scattering read or gathering write, as the JDK's {@code IOUtil} picks them: from the
 * array slice, at most {@link FileOps#IOV_MAX} buffers that have bytes remaining (and, for writes, at most
 * {@code Integer.MAX_VALUE} bytes in all). Direct buffers are handed over as they are; heap buffers are
 * shadowed by slices of one native lease, filled before a write and copied back after a read.
 */
final class ScatterGather {
    private static final long WRITEV_MAX = Integer.MAX_VALUE;

    private final boolean read;
    private final ByteBuffer[] buffers;
    private final int[] lengths;
    private final MemorySegment[] segments;
    private final TempBuffers.Lease lease;

    private ScatterGather(boolean read, ByteBuffer[] buffers, int[] lengths, MemorySegment[] segments,
                          TempBuffers.Lease lease) {
        this.read = read;
        this.buffers = buffers;
        this.lengths = lengths;
        this.segments = segments;
        this.lease = lease;
    }

    /** Checks and picks the buffers of {@code all[offset, offset + length)}; {@code alignment} > 0 for O_DIRECT. */
    static ScatterGather of(ByteBuffer[] all, int offset, int length, boolean read, int alignment) throws IOException {
        ByteBuffer[] picked = new ByteBuffer[Math.min(length, FileOps.IOV_MAX)];
        int[] lengths = new int[picked.length];
        int count = 0;
        long total = 0;
        long heap = 0;
        for (int i = offset; i < offset + length && count < FileOps.IOV_MAX && (read || total < WRITEV_MAX); i++) {
            ByteBuffer b = all[i];
            if (read && b.isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer");
            }
            int rem = b.remaining();
            DirectAlignment.checkRemaining(rem, alignment);
            if (rem > 0) {
                if (!read) {
                    rem = (int) Math.min(rem, WRITEV_MAX - total);
                }
                picked[count] = b;
                lengths[count++] = rem;
                total += rem;
                if (!b.isDirect()) {
                    heap += rem;
                }
            }
        }
        TempBuffers.Lease lease = heap == 0 ? null : TempBuffers.lease(heap, Math.max(alignment, 8));
        MemorySegment[] segments = new MemorySegment[count];
        long shadow = 0;
        for (int i = 0; i < count; i++) {
            MemorySegment own = MemorySegment.ofBuffer(picked[i]).asSlice(0, lengths[i]);
            if (picked[i].isDirect()) {
                segments[i] = own;
            } else {
                segments[i] = lease.segment().asSlice(shadow, lengths[i]);
                shadow += lengths[i];
                if (!read) {
                    segments[i].copyFrom(own);
                }
            }
        }
        return new ScatterGather(read, picked, lengths, segments, lease);
    }

    boolean isEmpty() {
        return segments.length == 0;
    }

    /** The native memory for the iovecs. */
    MemorySegment[] segments() {
        return segments;
    }

    /** Accounts {@code n} bytes read or written to the buffers in order (copying reads into heap buffers). */
    long complete(long n) {
        long left = n;
        for (int i = 0; i < segments.length && left > 0; i++) {
            int k = (int) Math.min(lengths[i], left);
            ByteBuffer b = buffers[i];
            if (read && !b.isDirect()) {
                MemorySegment.copy(segments[i], 0, MemorySegment.ofBuffer(b), 0, k);
            }
            b.position(b.position() + k);
            left -= k;
        }
        return n;
    }

    /** Returns the shadow memory once the request is over ({@link TempBuffers.Lease#releaseAfter}). */
    void release(Throwable failure) {
        if (lease != null) {
            lease.releaseAfter(failure);
        }
    }
}
