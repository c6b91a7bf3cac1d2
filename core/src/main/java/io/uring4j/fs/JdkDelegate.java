package io.uring4j.fs;

import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedChannelException;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;

/**
 * The JDK channel that uring4j's file channels hand {@code map}, {@code lock} and transfers to the JDK's own
 * channels to: opened on first use on the same open file ({@code /proc/self/fd/N}), so locks are this file's locks
 * and the JDK's JVM-wide lock table sees overlaps with every other channel; closed together with the uring4j file.
 *
 * <p>An open may wait (reopening a FIFO for one end waits for a peer at the other; a device's open may wait too),
 * so no open runs under the lock that {@link #closeWithFile} takes: one that waits holds up neither close nor, for
 * longer than it lasts, the other callers, whom close ends.
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
        return opener.open(options);
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
