package io.uring4j.fs;

import java.io.IOException;
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
 */
final class JdkDelegate<C extends Channel> {
    /** Opens the JDK channel with the access modes of the uring4j one. */
    interface Opener<C> {
        C open(Set<OpenOption> options) throws IOException;
    }

    private final AsyncFile file;
    private final boolean readable;
    private final boolean writable;
    private C delegate;
    /**
     * Set by {@link #closeWithFile} under the lock: the file is not closing until just after, and a delegate opened
     * in between would never be closed, its locks held in the JDK's JVM-wide table.
     */
    private boolean closed;

    JdkDelegate(AsyncFile file, boolean readable, boolean writable) {
        this.file = file;
        this.readable = readable;
        this.writable = writable;
    }

    /** The delegate; none is opened once {@link #closeWithFile()} has begun (it takes the same lock). */
    synchronized C get(Opener<C> opener) throws IOException {
        if (closed || !file.isOpen()) {
            throw new ClosedChannelException();
        }
        if (delegate == null) {
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
            delegate = opener.open(options);
        }
        return delegate;
    }

    /**
     * Closes the delegate, then the file (which cancels its requests in flight and closes the fd once the kernel
     * is done with them). Both are attempted; the file's failure wins, the delegate's is suppressed into it.
     */
    void closeWithFile() throws IOException {
        IOException failure = null;
        synchronized (this) {
            closed = true;
            if (delegate != null) {
                try {
                    delegate.close();
                } catch (IOException e) {
                    failure = e;
                }
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
