package io.uring4j.fs;

import java.io.IOException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;

/**
 * A lock taken through the JDK channel a uring4j channel delegates locking to, presented as a lock of the uring4j
 * channel ({@link #acquiredBy()} is that channel). Closing the channel closes the delegate, which releases and
 * invalidates its locks.
 */
final class UringFileLock extends FileLock {
    private final FileLock lock;

    UringFileLock(FileChannel channel, FileLock lock) {
        super(channel, lock.position(), lock.size(), lock.isShared());
        this.lock = lock;
    }

    UringFileLock(AsynchronousFileChannel channel, FileLock lock) {
        super(channel, lock.position(), lock.size(), lock.isShared());
        this.lock = lock;
    }

    @Override
    public boolean isValid() {
        return lock.isValid();
    }

    @Override
    public void release() throws IOException {
        if (!acquiredBy().isOpen()) {
            throw new ClosedChannelException();
        }
        lock.release();
    }
}
