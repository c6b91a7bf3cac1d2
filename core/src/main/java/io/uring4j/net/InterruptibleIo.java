package io.uring4j.net;

import io.uring4j.runtime.InterruptedCalls;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.RejectedExecutionException;

/**
 * A blocking call of a drop-in channel between the JDK's {@code begin()} and {@code end()}, so that a close from
 * another thread ends it with {@link AsynchronousCloseException} and an interrupt closes the channel and ends it
 * with {@link java.nio.channels.ClosedByInterruptException}, as the JDK's channels do. For the channels that are
 * not public API (datagram channels, pipes), which lend their protected {@code begin}/{@code end} through
 * {@link Interruptible}.
 */
final class InterruptibleIo {
    private InterruptibleIo() {
    }

    /** What a channel lends of {@code AbstractInterruptibleChannel}'s protected methods. */
    interface Interruptible extends Channel {
        /** {@code begin()}. */
        void enter();

        /** {@code end(completed)}. */
        void exit(boolean completed) throws AsynchronousCloseException;
    }

    /** The call: typically one request on the channel's loop, whose {@code -errno} comes as ErrnoException. */
    @FunctionalInterface
    interface Body {
        long run() throws IOException;
    }

    /**
     * Runs {@code body} inside begin/end. A failure that came from the channel being closed under the call (its
     * request cancelled, its fd gone) becomes end's exception; any other errno is {@code errors}'s to name.
     */
    static long call(Interruptible channel, Body body, Errors errors) throws IOException {
        boolean completed = false;
        boolean interrupted = false;
        try {
            channel.enter();
            if (!channel.isOpen()) {
                return 0;                               // exit(false) throws AsynchronousCloseException
            }
            long n = body.run();
            completed = true;
            return n;
        } catch (ErrnoException e) {
            if ((e.errno() == Errno.ECANCELED || e.errno() == Errno.EBADF) && !channel.isOpen()) {
                throw e;                                // replaced by exit(false)'s exception
            }
            completed = true;
            throw errors.of(e);
        } catch (RejectedExecutionException runtimeClosed) {
            completed = true;
            throw (ClosedChannelException) new ClosedChannelException().initCause(runtimeClosed);
        } catch (InterruptedIOException e) {
            interrupted = true;
            throw e;
        } finally {
            channel.exit(completed);
            if (interrupted) {
                throw InterruptedCalls.closeOnInterrupt(channel);
            }
        }
    }

    /** How a channel names a failed call's errno. */
    @FunctionalInterface
    interface Errors {
        IOException of(ErrnoException e);
    }
}
