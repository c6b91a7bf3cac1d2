package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.Pipe;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;

/**
 * {@code Pipe.open()} under {@link UringSelectorProvider}: a pipe2 pipe whose two ends are selectable channels on
 * the runtime's loop — blocking reads and writes are READ and WRITE requests (a virtual thread parks), non-blocking
 * ones system calls, and either end registers with a {@code UringSelector}. As the JDK's: a read returns -1 once
 * the sink is closed, a write once the source is closed fails with "Broken pipe", a blocking write writes
 * everything, and a close from another thread or an interrupt ends a blocked call.
 */
final class UringPipe extends Pipe {
    private final Source source;
    private final Sink sink;

    UringPipe(SelectorProvider provider, Uring uring) throws IOException {
        int[] fds = new int[2];
        int ret = LibC.pipe2(fds, LibC.O_CLOEXEC);
        if (ret < 0) {
            throw NetErrors.of("pipe2", ret);
        }
        EventLoop loop = uring.loop();
        this.source = new Source(provider, loop, fds[0]);
        this.sink = new Sink(provider, loop, fds[1]);
    }

    @Override
    public SourceChannel source() {
        return source;
    }

    @Override
    public SinkChannel sink() {
        return sink;
    }

    /** The read end. */
    static final class Source extends SourceChannel implements InterruptibleIo.Interruptible {
        private final PipeEnd end;

        private Source(SelectorProvider provider, EventLoop loop, int fd) {
            super(provider);
            this.end = new PipeEnd(this, loop, fd);
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            Objects.requireNonNull(dst);
            if (dst.isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer");
            }
            end.lock.lock();
            try {
                ensureOpen(this);
                return end.read(this, isBlocking(), dst);
            } finally {
                end.lock.unlock();
            }
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, dsts.length);
            for (int i = offset; i < offset + length; i++) {
                if (dsts[i].isReadOnly()) {
                    throw new IllegalArgumentException("Read-only buffer");
                }
            }
            end.lock.lock();
            try {
                ensureOpen(this);
                return end.read(this, isBlocking(), dsts, offset, length);
            } finally {
                end.lock.unlock();
            }
        }

        @Override
        public long read(ByteBuffer[] dsts) throws IOException {
            return read(dsts, 0, dsts.length);
        }

        @Override
        protected void implCloseSelectableChannel() throws IOException {
            end.close();
        }

        @Override
        protected void implConfigureBlocking(boolean block) throws IOException {
            end.configureBlocking(block);
        }

        @Override
        public void enter() {
            begin();
        }

        @Override
        public void exit(boolean completed) throws AsynchronousCloseException {
            end(completed);
        }

        SelectorLink link() {
            return end.link;
        }
    }

    /** The write end. */
    static final class Sink extends SinkChannel implements InterruptibleIo.Interruptible {
        private final PipeEnd end;

        private Sink(SelectorProvider provider, EventLoop loop, int fd) {
            super(provider);
            this.end = new PipeEnd(this, loop, fd);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            Objects.requireNonNull(src);
            end.lock.lock();
            try {
                ensureOpen(this);
                return end.write(this, isBlocking(), src);
            } finally {
                end.lock.unlock();
            }
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, srcs.length);
            end.lock.lock();
            try {
                ensureOpen(this);
                return end.write(this, isBlocking(), srcs, offset, length);
            } finally {
                end.lock.unlock();
            }
        }

        @Override
        public long write(ByteBuffer[] srcs) throws IOException {
            return write(srcs, 0, srcs.length);
        }

        @Override
        protected void implCloseSelectableChannel() throws IOException {
            end.close();
        }

        @Override
        protected void implConfigureBlocking(boolean block) throws IOException {
            end.configureBlocking(block);
        }

        @Override
        public void enter() {
            begin();
        }

        @Override
        public void exit(boolean completed) throws AsynchronousCloseException {
            end(completed);
        }

        SelectorLink link() {
            return end.link;
        }
    }

    private static void ensureOpen(java.nio.channels.Channel channel) throws ClosedChannelException {
        ChannelSockets.ensureOpen(channel);
    }
}
