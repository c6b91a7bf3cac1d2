package io.uring4j.net;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Writes back whatever arrives; records the largest pending output it saw and how the connection ended. */
class EchoHandler implements ConnectionHandler {
    final AtomicLong maxPending = new AtomicLong();
    final AtomicReference<IOException> closeCause = new AtomicReference<>();
    volatile boolean closed;
    volatile Connection last;

    @Override
    public void onData(Connection connection, MemorySegment data, long offset, int length) {
        last = connection;
        connection.write(data, offset, length);
        long pending = connection.pendingBytes();
        if (pending > maxPending.get()) {
            maxPending.set(pending);
        }
    }

    @Override
    public void onClose(Connection connection, IOException cause) {
        closeCause.set(cause);
        closed = true;
    }
}
