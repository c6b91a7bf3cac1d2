package io.uring4j.fs;

import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedChannelException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;

/**
 * The JDK channel that uring4j's file channels hand {@code map}, {@code lock} and transfers to the JDK's own
 * channels to: opened on first use on the same open file ({@code /proc/self/fd/N}), so locks are this file's locks
 * and the JDK's JVM-wide lock table sees overlaps with every other channel; closed together with the uring4j file.
 *
 * <p>An open may wait: reopening a FIFO for one end waits for a peer at the other, which the JDK's channel, using
 * its own fd, never does. So a FIFO's peer is opened for the moment of the reopen ({@link #open}), and no open runs
 * under the lock that {@link #closeWithFile} takes: one that waits anyway (a device's, say) holds up neither close
 * nor, for longer than it lasts, the other callers, whom close ends.
 */
final class JdkDelegate<C extends Channel> {
    /** Opens the JDK channel with the access modes of the uring4j one. */
    interface Opener<C> {
        C open(Set<OpenOption> options) throws IOException;
    }

    private final AsyncFile file;
    private final boolean readable;
    private final boolean writable;
    /** Guarded by this, as are the fields below. */
    private C delegate;
    /** A caller is opening the delegate, outside the lock; the others wait for it. */
    private boolean opening;
    /**
     * Set by {@link #closeWithFile} before the file closes: a delegate opened after would never be closed, its locks
     * held in the JDK's JVM-wide table, so its opener closes it instead.
     */
    private boolean closed;

    JdkDelegate(AsyncFile file, boolean readable, boolean writable) {
        this.file = file;
        this.readable = readable;
        this.writable = writable;
    }

    /**
     * The delegate, opened by the first caller; none is opened once {@link #closeWithFile()} has begun. A caller
     * that waited for another's open and saw the close meanwhile gets {@link AsynchronousCloseException}, as does
     * the opener, who closes what it opened.
     */
    C get(Opener<C> opener) throws IOException {
        synchronized (this) {
            for (boolean waited = false; ; waited = true) {
                if (closed || !file.isOpen()) {
                    throw waited ? new AsynchronousCloseException() : new ClosedChannelException();
                }
                if (delegate != null) {
                    return delegate;
                }
                if (!opening) {
                    opening = true;
                    break;
                }
                awaitOpener();
            }
        }
        C opened = null;
        boolean installed = false;
        try {
            opened = open(opener);
        } finally {
            synchronized (this) {
                opening = false;
                notifyAll();
                if (opened != null && !closed) {
                    delegate = opened;
                    installed = true;
                }
            }
        }
        if (!installed) {
            AsynchronousCloseException e = new AsynchronousCloseException();
            try {
                opened.close();
            } catch (IOException ce) {
                e.addSuppressed(ce);
            }
            throw e;
        }
        return opened;
    }

    /**
     * Waits (called holding this) for the opener to finish or the close to begin. Not interruptibly (the status is
     * kept): the opener's open may not end on an interrupt either, and the call that waits is no blocking call of
     * the JDK's; close ends it.
     */
    private void awaitOpener() {
        boolean interrupted = false;
        while (true) {
            try {
                wait();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private C open(Opener<C> opener) throws IOException {
        Set<OpenOption> options = new HashSet<>();
        if (readable) {
            options.add(StandardOpenOption.READ);
        }
        if (writable) {
            options.add(StandardOpenOption.WRITE);
        }
        if (file.isDirect() && OpenOptions.JDK_DIRECT != null) {
            options.add(OpenOptions.JDK_DIRECT);        // the same file's I/O: its writes bypass the cache too
        }
        if ((readable && writable) || !file.isOther()) {
            return opener.open(options);                // O_RDWR opens a FIFO without waiting for a peer
        }
        return file.withFd(fd -> LibC.fileType(fd) == LibC.S_IFIFO
                ? openWithPeer(opener, options) : opener.open(options));
    }

    /**
     * Opens a FIFO's one end while holding its other end for the moment, non-blocking, so the open does not wait
     * for a peer that may never come. This channel's own fd is an open at our end, so the peer's open succeeds (a
     * writer's needs a reader) unless it is not permitted: an error then, not a wait. For that moment a process
     * waiting in its own open of the FIFO's other end may get through, as it would for any peer.
     */
    private C openWithPeer(Opener<C> opener, Set<OpenOption> options) throws IOException {
        Path path = file.reopenPath();
        int peer = LibC.open(path.toString(), (readable ? LibC.O_WRONLY : LibC.O_RDONLY) | LibC.O_NONBLOCK
                | LibC.O_CLOEXEC, 0);
        if (peer < 0) {
            throw FileErrors.translate(new ErrnoException("open", peer), path, null);
        }
        try {
            return opener.open(options);
        } finally {
            LibC.close(peer);
        }
    }

    /**
     * Closes the delegate, then the file (which cancels its requests in flight and closes the fd once the kernel
     * is done with them). Both are attempted; the file's failure wins, the delegate's is suppressed into it.
     */
    void closeWithFile() throws IOException {
        C opened;
        synchronized (this) {
            closed = true;
            opened = delegate;
            notifyAll();                    // the callers waiting for an opener
        }
        IOException failure = null;
        if (opened != null) {
            try {
                opened.close();
            } catch (IOException e) {
                failure = e;
            }
        }
        try {
            file.close();
        } catch (IOException e) {
            if (failure != null) {
                e.addSuppressed(failure);
            }
            failure = e;
        }
        if (failure != null) {
            throw failure;
        }
    }
}
