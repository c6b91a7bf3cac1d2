package io.uring4j.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A channel's native staging memory for heap buffers (the kernel needs a stable address), one chunk for reads
 * and one for writes, each used under its side's lock. GC-managed on purpose: a request cancelled by close may
 * complete after close returns, and the request keeps its op — and so this memory — reachable until then.
 */
final class HeapStaging {
    static final int CHUNK = 64 * 1024;

    private final Arena arena = Arena.ofAuto();
    private MemorySegment read;
    private MemorySegment write;

    /** Memory of the same lifetime, for what a request names besides data (a connect's sockaddr). */
    MemorySegment allocate(long bytes) {
        return arena.allocate(bytes, 8);
    }

    /** The first {@code wanted} bytes of the read chunk (at most all of it). */
    MemorySegment forRead(long wanted) {
        if (read == null) {
            read = arena.allocate(CHUNK);
        }
        return read.asSlice(0, Math.min(wanted, CHUNK));
    }

    /** Up to a chunk of {@code src}'s remaining bytes, copied into the write chunk ({@code src}'s position stays). */
    MemorySegment forWrite(ByteBuffer src) {
        int chunk = Math.min(src.remaining(), CHUNK);
        MemorySegment from = writeChunk().asSlice(0, chunk);
        MemorySegment.copy(MemorySegment.ofBuffer(src), 0, from, 0, chunk);
        return from;
    }

    /** Up to a chunk of the buffers' remaining bytes, copied in order into the write chunk (positions stay). */
    ByteBuffer gather(ByteBuffer[] srcs, int offset, int length) {
        MemorySegment chunk = writeChunk();
        return chunk.asByteBuffer().limit(gather(srcs, offset, length, chunk));
    }

    /**
     * Copies the buffers' remaining bytes in order to the start of {@code into}, as many as it holds (positions
     * stay); returns how many.
     */
    static int gather(ByteBuffer[] srcs, int offset, int length, MemorySegment into) {
        long at = 0;
        for (int i = offset; i < offset + length && at < into.byteSize(); i++) {
            int part = (int) Math.min(srcs[i].remaining(), into.byteSize() - at);
            MemorySegment.copy(MemorySegment.ofBuffer(srcs[i]), 0, into, at, part);
            at += part;
        }
        return (int) at;
    }

    /** Moves the buffers' positions past {@code n} bytes written from them, in order. */
    static void advance(ByteBuffer[] srcs, int offset, long n) {
        for (int i = offset; n > 0; i++) {
            int part = (int) Math.min(srcs[i].remaining(), n);
            srcs[i].position(srcs[i].position() + part);
            n -= part;
        }
    }

    /** Spreads {@code n} bytes read into {@code from} over the buffers from {@code offset} on, in order. */
    static void scatter(MemorySegment from, int n, ByteBuffer[] dsts, int offset) {
        ByteBuffer read = from.asSlice(0, n).asByteBuffer();
        for (int i = offset; read.hasRemaining(); i++) {
            int part = Math.min(dsts[i].remaining(), read.remaining());
            dsts[i].put(read.slice(read.position(), part));
            read.position(read.position() + part);
        }
    }

    private MemorySegment writeChunk() {
        if (write == null) {
            write = arena.allocate(CHUNK);
        }
        return write;
    }
}
