package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a pipe's two channels share ({@link UringPipe}): one fd of a pipe on a loop, and the calls on it. In
 * blocking mode a read or write is a READ or WRITE request (a virtual thread parks, the kernel polls the pipe);
 * in non-blocking mode the fd has O_NONBLOCK and a call is a plain read or write system call that says "not
 * ready" to the selectors ({@link NonBlockingCalls}). Heap buffers go through native staging, a chunk a call.
 */
final class PipeEnd {
    private final EventLoop loop;
    private final FdGuard guard;
    final SelectorLink link;
    /** One read (or write) at a time, as the JDK's: the staging memory is the lock holder's. */
    final ReentrantLock lock = new ReentrantLock();
    private final HeapStaging staging = new HeapStaging();

    PipeEnd(SelectableChannel channel, EventLoop loop, int fd) {
        this.loop = loop;
        this.guard = new FdGuard(loop, fd);
        this.link = new SelectorLink(channel, guard);
    }

    /** One read into {@code dst}: bytes read, 0 when a non-blocking pipe has none, -1 once the write end is closed. */
    int read(InterruptibleIo.Interruptible channel, boolean blocking, ByteBuffer dst) throws IOException {
        if (!dst.hasRemaining()) {
            return 0;
        }
        MemorySegment into = dst.isDirect() ? MemorySegment.ofBuffer(dst) : staging.forRead(dst.remaining());
        int n = read(channel, blocking, into);
        if (n > 0) {
            if (dst.isDirect()) {
                dst.position(dst.position() + n);
            } else {
                dst.put(into.asSlice(0, n).asByteBuffer());
            }
        }
        return n;
    }

    /** As the JDK's readv: what one read gives, up to a staging chunk, spread over the buffers in order. */
    long read(InterruptibleIo.Interruptible channel, boolean blocking, ByteBuffer[] dsts, int offset, int length)
            throws IOException {
        long room = 0;
        for (int i = offset; i < offset + length; i++) {
            room += dsts[i].remaining();
        }
        if (room == 0) {
            return 0;
        }
        MemorySegment into = staging.forRead(room);
        int n = read(channel, blocking, into);
        if (n > 0) {
            HeapStaging.scatter(into, n, dsts, offset);
        }
        return n;
    }

    private int read(InterruptibleIo.Interruptible channel, boolean blocking, MemorySegment into) throws IOException {
        int n;
        if (blocking) {
            n = (int) InterruptibleIo.call(channel, () -> loop.call(read(guard.fd(), into), guard, false),
                    e -> failure("read", e));
        } else {
            n = NonBlockingCalls.read(link, into);
            if (n == NonBlockingCalls.WOULD_BLOCK) {
                return 0;
            }
            if (n < 0) {
                throw failure("read", new ErrnoException("read", n));
            }
        }
        return n == 0 ? -1 : n;
    }

    /**
     * Writes {@code src}: all of it in blocking mode, what the pipe takes now in non-blocking mode (0 when it is
     * full). Returns the bytes written.
     */
    int write(InterruptibleIo.Interruptible channel, boolean blocking, ByteBuffer src) throws IOException {
        int total = src.remaining();
        while (src.hasRemaining()) {
            MemorySegment from = src.isDirect() ? MemorySegment.ofBuffer(src) : staging.forWrite(src);
            int n = write(channel, blocking, from);
            src.position(src.position() + n);
            if (n < from.byteSize()) {
                break;                                      // non-blocking: the pipe is full
            }
        }
        return total - src.remaining();
    }

    /** As the JDK's writev: the buffers' bytes in order, gathered a staging chunk at a time. */
    long write(InterruptibleIo.Interruptible channel, boolean blocking, ByteBuffer[] srcs, int offset, int length)
            throws IOException {
        long total = 0;
        while (true) {
            ByteBuffer chunk = staging.gather(srcs, offset, length);
            if (!chunk.hasRemaining()) {
                return total;
            }
            int n = write(channel, blocking, MemorySegment.ofBuffer(chunk));
            HeapStaging.advance(srcs, offset, n);
            total += n;
            if (n < chunk.limit()) {
                return total;                               // non-blocking: what the pipe took
            }
        }
    }

    /** All of {@code from} in blocking mode (a WRITE to a pipe may complete short); what fits now otherwise. */
    private int write(InterruptibleIo.Interruptible channel, boolean blocking, MemorySegment from)
            throws IOException {
        if (blocking) {
            long done = 0;
            while (done < from.byteSize()) {
                MemorySegment rest = from.asSlice(done);
                done += InterruptibleIo.call(channel, () -> loop.call(write(guard.fd(), rest), guard, false),
                        e -> failure("write", e));
            }
            return (int) done;
        }
        int n = NonBlockingCalls.write(link, from);
        if (n == NonBlockingCalls.WOULD_BLOCK) {
            return 0;
        }
        if (n < 0) {
            throw failure("write", new ErrnoException("write", n));
        }
        return n;
    }

    /** Closes the fd once no request or selector uses it (waits for that unless a selector holds it). */
    void close() throws IOException {
        link.close(loop, false);
    }

    /** Sets O_NONBLOCK for non-blocking mode, once a call in progress has ended. */
    void configureBlocking(boolean block) throws IOException {
        lock.lock();
        try {
            link.blocking(block);
        } finally {
            lock.unlock();
        }
    }

    /** A READ at the pipe's current position (-1: a pipe has no offset). */
    private static Op read(int fd, MemorySegment into) {
        return (sqe, scratch) -> sqe.prepRead(fd, into, -1);
    }

    private static Op write(int fd, MemorySegment from) {
        return (sqe, scratch) -> sqe.prepWrite(fd, from, -1);
    }

    /** As the JDK's: an IOException with the strerror text ("Broken pipe"), the errno and call as its cause. */
    private static IOException failure(String what, ErrnoException e) {
        return NetErrors.transfer(what, e);
    }
}
