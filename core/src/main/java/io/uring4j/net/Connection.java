package io.uring4j.net;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * One TCP connection of the loop style, owned by one event loop: every method must be called on that loop's
 * thread (from a {@link ConnectionHandler} callback, or a task given to {@link #loop()}).
 *
 * <h2>Reading</h2>
 * One multishot RECV stays armed with the loop's provided-buffer group; each CQE is handed to
 * {@link ConnectionHandler#onData} and its buffer released when the handler returns ({@link RecvBuffers}). When
 * the request ends without being asked to (ENOBUFS, or a final data CQE without F_MORE) it is re-armed; the data
 * it did not take is still in the socket, so nothing is lost.
 *
 * <h2>Writing</h2>
 * {@link #write} copies into the connection's {@link OutboundBuffer}; after each callback the pending bytes go
 * out in one SEND, and at most one SEND is in flight: what is written meanwhile is batched into the next one.
 * When more than the high-water mark is pending (the peer reads slowly), the receive is cancelled — reading
 * stops — until the output has drained. What the receive had delivered before its cancel took effect is kept
 * aside ({@link InputBacklog}) and handed to the handler once the output has drained, a buffer's worth at a time
 * and pausing again as needed: so a connection holds at most the high-water mark plus the answers to one buffer
 * of input, however much a peer that never reads sends. The output buffer goes back to the loop once drained
 * ({@link OutputSlabs}): an idle connection holds none.
 *
 * <h2>Closing</h2>
 * {@link #close()} sends what is pending, then shuts the socket down and closes it; errors close at once. The
 * socket is shut down before {@link ConnectionHandler#onClose}; its descriptor is closed, and the memory the kernel
 * may still touch (the output buffer of a send) freed, only once no request of the connection names it. A send
 * prepared but not yet submitted names the descriptor by number: closed under it, the number could go to the next
 * socket (an accept submitted just before it in the same enter) and the bytes with it.
 *
 * <p>Everything per connection — its ops and completion handlers — is allocated once, at open: the steady
 * state allocates nothing.
 */
public final class Connection {
    /** One SEND's maximum: an io_uring length is 32-bit. */
    private static final int MAX_SEND = 1 << 30;

    private final LoopNet net;
    private final int fd;
    private final ConnectionHandler handler;
    private final OutboundBuffer out;
    private Object attachment;

    private boolean recvArmed;
    private boolean recvCancelling;
    private long recvUserData;
    private boolean paused;
    /** Input delivered while paused, handed on in order before the receive is armed again; null when none. */
    private InputBacklog backlog;
    /** The peer's EOF came behind a backlog: the handler hears of it once the backlog is handed on. */
    private boolean eofBehindBacklog;
    private boolean inputClosed;
    private boolean closeRequested;
    private boolean outputShutdownRequested;
    private boolean outputShut;
    private boolean closed;
    private boolean released;
    private int callbackDepth;

    private final Op recvOp = (sqe, scratch) -> {
        sqe.prepRecvMultishot(fd(), 0).bufferSelect(net().buffers().group());
        recvUserData = sqe.userData();
    };
    private final Op sendOp = (sqe, scratch) ->
            NetOps.prepSend(sqe, fd(), out().beginSend(), (int) Math.min(out().pending(), MAX_SEND));
    private final CompletionHandler recvHandler = new CompletionHandler() {
        @Override
        public void complete(int result, int flags) {
            onRecv(result, flags);
        }

        @Override
        public void failed(Throwable cause) {
            onRecv(-Errno.ECANCELED, 0);
        }
    };
    private final CompletionHandler sendHandler = new CompletionHandler() {
        @Override
        public void complete(int result, int flags) {
            onSend(result);
        }

        @Override
        public void failed(Throwable cause) {
            onSend(-Errno.ECANCELED);
        }
    };

    Connection(LoopNet net, int fd, ConnectionHandler handler) {
        this.net = net;
        this.fd = fd;
        this.handler = handler;
        this.out = new OutboundBuffer(net.outputs());
    }

    // ---- for handlers ------------------------------------------------------------------------------------

    /** Queues {@code data[offset, offset + length)} for sending; it goes out after the current callback. */
    public void write(MemorySegment data, long offset, long length) {
        checkWritable();
        out.append(data, offset, length);
        flushIfIdle();
    }

    public void write(MemorySegment data) {
        write(data, 0, data.byteSize());
    }

    public void write(byte[] data) {
        checkWritable();
        out.append(data, 0, data.length);
        flushIfIdle();
    }

    /** Bytes written and not yet taken by the kernel. */
    public long pendingBytes() {
        return out.pending();
    }

    /** Whether reading is paused because too much output is pending. */
    public boolean isReadPaused() {
        return paused;
    }

    /** Sends what is pending, then closes. Idempotent. */
    public void close() {
        checkLoop();
        if (closed || closeRequested) {
            return;
        }
        closeRequested = true;
        cancelRecv();
        if (callbackDepth == 0) {
            afterCallback();
        }
    }

    /** Half-close: once the pending output is sent, the peer reads end of stream; reading goes on. */
    public void shutdownOutput() {
        checkLoop();
        outputShutdownRequested = true;
        flushIfIdle();
    }

    public boolean isOpen() {
        return !closed;
    }

    public EventLoop loop() {
        return net.loop();
    }

    public int fd() {
        return fd;
    }

    public InetSocketAddress remoteAddress() throws IOException {
        return TcpSocket.name(fd, false);
    }

    public InetSocketAddress localAddress() throws IOException {
        return TcpSocket.name(fd, true);
    }

    /** Per-connection state for handlers shared between connections. */
    public Object attachment() {
        return attachment;
    }

    public void attach(Object attachment) {
        this.attachment = attachment;
    }

    // ---- the state machine (loop thread) -----------------------------------------------------------------

    LoopNet net() {
        return net;
    }

    OutboundBuffer out() {
        return out;
    }

    void open() {
        callbackDepth++;
        try {
            handler.onOpen(this);
        } catch (Throwable t) {
            abort(failure("onOpen", t));
        } finally {
            callbackDepth--;
        }
        afterCallback();
    }

    private void onRecv(int result, int flags) {
        if ((flags & CqeFlags.F_MORE) == 0) {
            recvArmed = false;
        }
        callbackDepth++;
        try {
            if (result > 0) {
                RecvBuffers buffers = net.buffers();
                try {
                    if (closed || closeRequested) {
                        // dropped: the connection is going away
                    } else if (paused || backlog != null) {
                        keepForLater(buffers.buffer(flags), buffers.offset(flags), result);
                    } else {
                        handler.onData(this, buffers.buffer(flags), buffers.offset(flags), result);
                    }
                } finally {
                    buffers.release(flags, result);
                }
            } else if (result == 0) {
                if (!inputClosed && !closed) {
                    inputClosed = true;
                    if (backlog != null) {
                        eofBehindBacklog = true;
                    } else {
                        handler.onInputClosed(this);
                    }
                }
            } else if (result == -Errno.ENOBUFS) {
                net.enobufs++;                       // re-armed below: the data waits in the socket
            } else if (result == -Errno.ECANCELED && recvCancelling) {
                recvCancelling = false;              // we asked: paused or closing
            } else if (!closed) {
                abort(result == -Errno.ECANCELED ? NetErrors.closed() : NetErrors.of("recv", result));
            }
        } catch (Throwable t) {
            abort(failure("onData", t));
        } finally {
            callbackDepth--;
        }
        if (!recvArmed) {
            recvCancelling = false;
        }
        afterCallback();
    }

    private void onSend(int result) {
        if (out.sending()) {
            out.sent(Math.max(result, 0));
        }
        if (result < 0) {
            if (!closed) {
                abort(result == -Errno.ECANCELED ? NetErrors.closed() : NetErrors.of("send", result));
            }
            afterCallback();
            return;
        }
        if (paused && out.pending() == 0 && !closed) {
            paused = false;
            callbackDepth++;
            try {
                handler.onWritable(this);
            } catch (Throwable t) {
                abort(failure("onWritable", t));
            } finally {
                callbackDepth--;
            }
            replayBacklog();
        }
        afterCallback();
    }

    private void keepForLater(MemorySegment data, long offset, int length) {
        if (backlog == null) {
            backlog = new InputBacklog(net.config().recvBufferSize());
        }
        backlog.append(data, offset, length);
    }

    /** Hands the kept input on, a receive buffer's worth at a time, until it is gone or output piles up again. */
    private void replayBacklog() {
        while (backlog != null && !closed && !closeRequested) {
            if (out.pending() > net.config().writeHighWater()) {
                paused = true;                  // no receive is armed while a backlog is left: nothing to cancel
                net.backPressurePauses++;
                return;
            }
            MemorySegment chunk = backlog.front(net.config().recvBufferSize());
            callbackDepth++;
            try {
                handler.onData(this, chunk, 0, (int) chunk.byteSize());
            } catch (Throwable t) {
                abort(failure("onData", t));
            } finally {
                callbackDepth--;
            }
            if (backlog != null && backlog.consume(chunk.byteSize())) {
                backlog = null;
            }
        }
        if (backlog == null && eofBehindBacklog && !closed) {
            eofBehindBacklog = false;
            callbackDepth++;
            try {
                handler.onInputClosed(this);
            } catch (Throwable t) {
                abort(failure("onInputClosed", t));
            } finally {
                callbackDepth--;
            }
        }
    }

    /** After every callback: send what was written, re-arm the receive, finish a close, free what is done. */
    private void afterCallback() {
        if (!closed) {
            flush();
            boolean drained = out.pending() == 0 && !out.sending();
            if (drained && outputShutdownRequested && !outputShut) {
                outputShut = true;
                Sockets.shutdown(fd, Sockets.SHUT_WR);
            }
            if (closeRequested && drained) {
                finishClose(null);
            } else {
                armRecv();
            }
        }
        if (closed && !released && !recvArmed && !out.sending()) {
            released = true;
            LibC.close(fd);
            out.free();
            if (backlog != null) {
                backlog.free();
                backlog = null;
            }
            net.released(this);
        }
    }

    private void armRecv() {
        if (!recvArmed && !paused && backlog == null && !inputClosed && !closeRequested && !closed) {
            recvArmed = true;
            net.loop().submitStanding(recvOp, recvHandler);
        }
    }

    private void cancelRecv() {
        if (recvArmed && !recvCancelling) {
            recvCancelling = true;
            net.loop().cancel(recvUserData);
        }
    }

    private void flush() {
        if (!out.sending() && out.pending() > 0) {
            net.loop().submit(sendOp, sendHandler);
        }
        if (!paused && out.pending() > net.config().writeHighWater()) {
            paused = true;
            net.backPressurePauses++;
            cancelRecv();
        }
    }

    private void flushIfIdle() {
        if (callbackDepth == 0) {
            afterCallback();
        }
    }

    /** The {@link Tcp} is closing: close now, dropping pending output. */
    void abortForShutdown() {
        abort(NetErrors.closed());
        afterCallback();
    }

    /** Closes now, dropping pending output. */
    private void abort(IOException cause) {
        if (!closed) {
            finishClose(cause);
        }
    }

    private void finishClose(IOException cause) {
        closed = true;
        cancelRecv();
        // shutdown ends a send blocked on a full socket buffer (EPIPE) and a receive (EOF) at once; the
        // requests hold their own reference to the socket, so close alone would leave them running.
        Sockets.shutdown(fd, Sockets.SHUT_RDWR);
        net.closed(this);
        try {
            handler.onClose(this, cause);
        } catch (Throwable t) {
            net.log("onClose failed", t);
        }
    }

    private static IOException failure(String callback, Throwable t) {
        return t instanceof IOException io ? io : new IOException("handler " + callback + " failed: " + t, t);
    }

    private void checkWritable() {
        checkLoop();
        if (closed || closeRequested || outputShutdownRequested) {
            throw new IllegalStateException("connection is closed for writing");
        }
    }

    private void checkLoop() {
        if (!net.loop().inLoop()) {
            throw new IllegalStateException("a Connection is used on its event loop's thread only: use loop().execute");
        }
    }

    @Override
    public String toString() {
        return "Connection[fd " + fd + (closed ? ", closed" : "") + (paused ? ", paused" : "")
                + (recvArmed ? ", receiving" : "") + (recvCancelling ? ", cancelling" : "")
                + (out.sending() ? ", sending" : "") + ", pending " + out.pending() + "]";
    }
}
