package io.uring4j.fs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;

/**
 * One blocking read or write of a {@link ByteBuffer}'s remaining bytes on an {@link AsyncFile}, for the channels, after
 * their checks: a direct buffer goes to the kernel as it is, a heap buffer through a native stand-in
 * ({@link TempBuffers}) that is given back only once the kernel is done with it. The buffer's position moves by the
 * bytes moved; a read answers -1 at end of file.
 */
final class BufferCalls {
    private BufferCalls() {
    }

    /** {@code shadowAlignment}: of a heap buffer's stand-in (an O_DIRECT file's memory alignment, else 8). */
    static int read(AsyncFile file, ByteBuffer dst, long at, long shadowAlignment) throws IOException {
        int n;
        if (dst.isDirect()) {
            try {
                n = file.readBlocking(unscoped(dst), at);
            } finally {
                Reference.reachabilityFence(dst);
            }
        } else {
            TempBuffers.Lease lease = TempBuffers.lease(dst.remaining(), shadowAlignment);
            Throwable failure = null;
            try {
                n = file.readBlocking(lease.segment(), at);
                copyOut(lease.segment(), dst, n);
            } catch (Throwable t) {
                failure = t;
                throw t;
            } finally {
                lease.releaseAfter(failure);
            }
        }
        if (n == 0) {
            return -1;
        }
        dst.position(dst.position() + n);
        return n;
    }

    static int write(AsyncFile file, ByteBuffer src, long at, long shadowAlignment) throws IOException {
        int n;
        if (src.isDirect()) {
            n = file.write(MemorySegment.ofBuffer(src), at);
        } else {
            TempBuffers.Lease lease = TempBuffers.lease(src.remaining(), shadowAlignment);
            Throwable failure = null;
            try {
                copyIn(src, lease.segment());
                n = file.write(lease.segment(), at);
            } catch (Throwable t) {
                failure = t;
                throw t;
            } finally {
                lease.releaseAfter(failure);
            }
        }
        src.position(src.position() + n);
        return n;
    }

    /**
     * The first {@code n} bytes of {@code from} into heap buffer {@code dst} at its position: straight into its array
     * (a read-only buffer never gets here), where a segment over the buffer is two objects per call unless C2
     * scalar-replaces them.
     */
    private static void copyOut(MemorySegment from, ByteBuffer dst, int n) {
        MemorySegment.copy(from, ValueLayout.JAVA_BYTE, 0, dst.array(), dst.arrayOffset() + dst.position(), n);
    }

    /** Heap buffer {@code src}'s remaining bytes to the start of {@code to}: from its array when it has one. */
    private static void copyIn(ByteBuffer src, MemorySegment to) {
        if (src.hasArray()) {
            MemorySegment.copy(src.array(), src.arrayOffset() + src.position(), to, ValueLayout.JAVA_BYTE, 0,
                    src.remaining());
        } else {
            to.copyFrom(MemorySegment.ofBuffer(src));       // read-only: no array to reach
        }
    }

    /**
     * {@code buffer}'s bytes from position to limit, for a call that returns only after the kernel is done with
     * them, while the caller keeps the buffer reachable: {@code ofBuffer}'s own segment holds a session that
     * keeps it alive, two objects per call that escape into the request.
     */
    private static MemorySegment unscoped(ByteBuffer buffer) {
        return MemorySegment.ofAddress(MemorySegment.ofBuffer(buffer).address()).reinterpret(buffer.remaining());
    }
}
