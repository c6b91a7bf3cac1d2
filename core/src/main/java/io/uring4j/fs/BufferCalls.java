package io.uring4j.fs;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
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
                MemorySegment.copy(lease.segment(), 0, MemorySegment.ofBuffer(dst), 0, n);
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
                lease.segment().copyFrom(MemorySegment.ofBuffer(src));
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
     * {@code buffer}'s bytes from position to limit, for a call that returns only after the kernel is done with
     * them, while the caller keeps the buffer reachable: {@code ofBuffer}'s own segment holds a session that
     * keeps it alive, two objects per call that escape into the request.
     */
    private static MemorySegment unscoped(ByteBuffer buffer) {
        return MemorySegment.ofAddress(MemorySegment.ofBuffer(buffer).address()).reinterpret(buffer.remaining());
    }
}
