package io.uring4j.net;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * What a connection does with its events, called on its event loop's thread — never concurrently, never from
 * two threads. Handlers must not block: everything else on the loop waits for them.
 *
 * <p>A handler may keep per-connection state in its own fields (one handler per connection, from the factory
 * given to {@link Tcp#listen}) and use {@link Connection#write} freely: writes are batched and sent once the
 * callback returns.
 */
public interface ConnectionHandler {
    /** The connection is established; the first read is armed after this returns. */
    default void onOpen(Connection connection) {
    }

    /**
     * Bytes arrived: {@code data[offset, offset + length)}. {@code data} is a provided buffer of the loop's buffer
     * ring, whole, not a slice, so delivering it allocates nothing. The kernel may already be receiving other
     * connections' bytes behind these (rings consumed incrementally), and the buffer is handed back to it when this
     * returns: copy what must outlive the call, and read nothing outside the range.
     */
    void onData(Connection connection, MemorySegment data, long offset, int length);

    /** The peer shut down its output (EOF). By default the connection closes once pending writes are sent. */
    default void onInputClosed(Connection connection) {
        connection.close();
    }

    /** Pending output drained after reads were paused for back-pressure; reads resume after this returns. */
    default void onWritable(Connection connection) {
    }

    /**
     * The connection is closed and its descriptor released: called exactly once. {@code cause} is null for a
     * close this side asked for, else the error (a reset, a broken pipe, the runtime closing).
     */
    default void onClose(Connection connection, IOException cause) {
    }
}
