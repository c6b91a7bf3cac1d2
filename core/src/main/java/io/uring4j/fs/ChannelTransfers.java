package io.uring4j.fs;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * {@link UringFileChannel#transferTo} and {@link UringFileChannel#transferFrom}: file to file by splice(2) through a
 * pipe where both ends allow it; to a channel of the JDK's own (a socket, say) through the JDK's channel on the same
 * file, which sends in the kernel; else a copy through one native buffer — with {@code FileChannelImpl}'s argument
 * checks and its rule that an interrupt closes both channels.
 */
final class ChannelTransfers {
    /** {@link #splice}: splice was refused before anything moved. */
    private static final long SPLICE_REFUSED = -1;
    /** A pipe's default capacity: what one splice into it moves at most. */
    private static final int PIPE_CHUNK = 64 * 1024;

    private ChannelTransfers() {
    }

    /** {@link UringFileChannel#transferTo} of {@code self}. */
    static long transferTo(UringFileChannel self, long position, long count, WritableByteChannel target)
            throws IOException {
        self.ensureOpen();
        if (!target.isOpen()) {
            throw new ClosedChannelException();
        }
        if (!self.readable) {
            throw new NonReadableChannelException();
        }
        if (target instanceof UringFileChannel u && !u.writable) {
            throw new NonWritableChannelException();
        }
        if (position < 0 || count < 0) {
            throw new IllegalArgumentException();
        }
        if (ofTheJdk(target) && !self.file.isUninterruptible()) {
            return self.transferToViaJdk(position, count, target);
        }
        try {
            long size = self.size();
            if (position > size) {
                return 0;
            }
            // files such as those in /proc report 0 and are read to their end
            long todo = size > 0 ? Math.min(count, size - position) : count;
            if (target instanceof UringFileChannel u && self.spliceable() && u.spliceable()) {
                long n = u.atOwnPosition(at -> splice(self, self.file, position, u, at, todo));
                if (n != SPLICE_REFUSED) {
                    return n;
                }
            }
            return copy(self, self, position, target, -1, todo);
        } catch (ClosedChannelException e) {
            throw transferFailed(self, e, target);
        }
    }

    /**
     * A channel of the JDK's own (its socket, pipe or file channels): the JDK's FileChannel moves bytes to these in
     * the kernel ({@code sendfile}, {@code copy_file_range}), with no copy through user memory.
     */
    private static boolean ofTheJdk(WritableByteChannel target) {
        return target.getClass().getName().startsWith("sun.nio.ch.");
    }

    /** {@link UringFileChannel#transferFrom} of {@code self}. */
    static long transferFrom(UringFileChannel self, ReadableByteChannel src, long position, long count)
            throws IOException {
        self.ensureOpen();
        if (!src.isOpen()) {
            throw new ClosedChannelException();
        }
        if (src instanceof UringFileChannel u && !u.readable) {
            throw new NonReadableChannelException();
        }
        if (!self.writable) {
            throw new NonWritableChannelException();
        }
        if (position < 0 || count < 0) {
            throw new IllegalArgumentException();
        }
        try {
            if (src instanceof UringFileChannel u && self.spliceable() && u.spliceable()) {
                long n = u.atOwnPosition(at -> splice(self, u.file, at, self, position, count));
                if (n != SPLICE_REFUSED) {
                    return n;
                }
            }
            return copy(self, src, -1, self, position, count);
        } catch (ClosedChannelException e) {
            throw transferFailed(self, e, src);
        }
    }

    /**
     * File to file without copying through user memory: splice(2) through a pipe, file → pipe, then pipe →
     * {@code to} until the pipe is drained, a pipe-full at a time. {@link #SPLICE_REFUSED} if the pipe or the
     * first splice fails before anything moved (a kernel or engine without SPLICE, a file that refuses it): the
     * caller copies instead. A failure later ends the transfer with the bytes written so far.
     */
    private static long splice(UringFileChannel self, AsyncFile from, long fromAt, UringFileChannel to, long toAt,
                              long count) throws IOException {
        int[] pipe = new int[2];
        if (LibC.pipe2(pipe, LibC.O_CLOEXEC) < 0) {
            return SPLICE_REFUSED;
        }
        try {
            return self.readOrWrite(() -> {
                long moved = 0;
                try {
                    while (moved < count) {
                        int chunk = (int) Math.min(count - moved, PIPE_CHUNK);
                        int n = from.call(FileOps.splice(from.fd(), fromAt + moved, pipe[1], -1, chunk));
                        if (n == 0) {
                            break;
                        }
                        for (int drained = 0; drained < n; ) {
                            drained += to.file.call(FileOps.splice(pipe[0], -1, to.file.fd(),
                                    toAt + moved + drained, n - drained));
                        }
                        moved += n;
                    }
                    return moved;
                } catch (ErrnoException e) {
                    if (moved > 0) {
                        return moved;
                    }
                    throw e;
                }
            });
        } catch (IOException e) {
            if (e.getCause() instanceof ErrnoException ee && refusesSplice(ee.errno())) {
                return SPLICE_REFUSED;
            }
            throw e;
        } finally {
            LibC.close(pipe[0]);
            LibC.close(pipe[1]);
        }
    }

    /** The errors of a splice that was never possible here: copy instead. */
    private static boolean refusesSplice(int errno) {
        return errno == Errno.EINVAL || errno == Errno.EOPNOTSUPP || errno == Errno.ENOSYS || errno == Errno.ESPIPE;
    }

    /**
     * Copies up to {@code count} bytes through one native buffer, reading {@code from} at {@code fromPosition}
     * (or at its own position when -1) and writing {@code to} at {@code toPosition} (likewise). Stops at end of
     * input or on a short write; a failure after some bytes were copied ends the transfer with that count, as
     * the JDK's read/write fallback does.
     */
    private static long copy(UringFileChannel self, ReadableByteChannel from, long fromPosition, WritableByteChannel to,
                             long toPosition, long count) throws IOException {
        TempBuffers.Lease lease = TempBuffers.lease(TempBuffers.POOLED, Math.max(self.shadowAlignment(), 4096));
        ByteBuffer bb = lease.segment().asByteBuffer();
        long done = 0;
        Throwable failure = null;
        try {
            while (done < count) {
                bb.clear().limit((int) Math.min(count - done, bb.capacity()));
                int nr = fromPosition < 0 ? from.read(bb) : ((FileChannel) from).read(bb, fromPosition + done);
                if (nr <= 0) {
                    break;
                }
                bb.flip();
                int nw = toPosition < 0 ? to.write(bb) : ((FileChannel) to).write(bb, toPosition + done);
                done += nw;
                if (nw != nr) {
                    break;
                }
            }
            return done;
        } catch (IOException e) {
            failure = e;
            if (done > 0) {
                return done;
            }
            throw e;
        } catch (RuntimeException | Error e) {
            failure = e;
            throw e;
        } finally {
            lease.releaseAfter(failure);
        }
    }

    /** As {@code FileChannelImpl.transferFailed}: an interrupt closes both channels. */
    private static AsynchronousCloseException transferFailed(UringFileChannel self, ClosedChannelException cce,
                                                             Channel other) {
        ClosedByInterruptException cbie = null;
        if (cce instanceof ClosedByInterruptException e) {
            cbie = e;
        } else if (Thread.currentThread().isInterrupted()) {
            cbie = new ClosedByInterruptException();
        }
        if (cbie != null) {
            for (Channel c : new Channel[] {self, other}) {
                try {
                    c.close();
                } catch (IOException ioe) {
                    cbie.addSuppressed(ioe);
                }
            }
            return cbie;
        }
        if (cce instanceof AsynchronousCloseException ace) {
            return ace;
        }
        AsynchronousCloseException ace = new AsynchronousCloseException();
        ace.addSuppressed(cce);
        return ace;
    }
}
