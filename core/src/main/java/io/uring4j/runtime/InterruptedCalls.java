package io.uring4j.runtime;

import java.io.IOException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedByInterruptException;

/**
 * For the drop-in channels: a blocking call that ended in {@link java.io.InterruptedIOException} between
 * {@code begin()} and {@code end()}. {@link Thread#interrupt} sets the interrupt status — which ends the call's
 * wait — before it looks for the channel's interruptor; {@code end()} may unregister the interruptor first, and
 * then no one closes the channel. The channel must then do what its interruptor would have done.
 */
public final class InterruptedCalls {
    private InterruptedCalls() {
    }

    /** Closes {@code channel} and returns the exception to throw after {@code end()}. */
    public static ClosedByInterruptException closeOnInterrupt(Channel channel) throws IOException {
        channel.close();
        return new ClosedByInterruptException();
    }
}
