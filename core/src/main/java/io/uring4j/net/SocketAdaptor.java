package io.uring4j.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.Set;

/**
 * {@link UringSocketChannel#socket()}: a {@link Socket} whose every method is the channel's, as the JDK's
 * adaptor — options, addresses, close, timed connects, and streams for blocking mode whose reads SO_TIMEOUT bounds
 * (each a request with a linked timeout). TCP only, as the JDK's. Not supported: urgent data.
 */
final class SocketAdaptor extends Socket {
    private final UringSocketChannel channel;
    private volatile int timeout;

    private SocketAdaptor(UringSocketChannel channel) throws SocketException {
        super(AdaptorSupport.deadImpl());
        this.channel = channel;
    }

    static Socket of(UringSocketChannel channel) {
        if (channel.unixDomain()) {
            throw new UnsupportedOperationException("Not supported");     // as the JDK's for Unix-domain channels
        }
        try {
            return new SocketAdaptor(channel);
        } catch (SocketException e) {
            throw new IllegalStateException(e);
        }
    }

    private InetSocketAddress remote() {
        try {
            return channel.isConnected() ? (InetSocketAddress) channel.getRemoteAddress() : null;
        } catch (IOException closed) {
            return null;
        }
    }

    @Override
    public void connect(SocketAddress remote) throws IOException {
        connect(remote, 0);
    }

    @Override
    public void connect(SocketAddress remote, int timeout) throws IOException {
        if (remote == null) {
            throw new IllegalArgumentException("connect: The address can't be null");
        }
        if (remote instanceof InetSocketAddress isa && isa.isUnresolved()) {
            AdaptorSupport.checkOpen(channel);
            if (channel.isConnected()) {
                throw new SocketException("Already connected");
            }
            close();
            throw new UnknownHostException(remote.toString());
        }
        if (timeout < 0) {
            throw new IllegalArgumentException("connect: timeout can't be negative");
        }
        try {
            if (!channel.isBlocking()) {
                throw new IllegalBlockingModeException();
            }
            channel.connect(remote, timeout);
        } catch (Exception e) {
            throw AdaptorSupport.ioException(e);
        }
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        try {
            channel.bind(local);
        } catch (Exception e) {
            throw AdaptorSupport.ioException(e);
        }
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress remote = remote();
        return remote == null ? null : remote.getAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        InetSocketAddress local = AdaptorSupport.local(channel);
        return local != null ? local.getAddress() : new InetSocketAddress(0).getAddress();
    }

    @Override
    public int getPort() {
        InetSocketAddress remote = remote();
        return remote == null ? 0 : remote.getPort();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress local = AdaptorSupport.local(channel);
        return local == null ? -1 : local.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return remote();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return AdaptorSupport.local(channel);
    }

    @Override
    public SocketChannel getChannel() {
        return channel;
    }

    @Override
    public InputStream getInputStream() throws IOException {
        streamable(isInputShutdown(), "Socket input is shutdown");
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) > 0 ? one[0] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                blockingOnly();
                return len == 0 ? 0 : channel.read(ByteBuffer.wrap(b, off, len), timeout);
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        streamable(isOutputShutdown(), "Socket output is shutdown");
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                blockingOnly();
                channel.write(ByteBuffer.wrap(b, off, len));        // a blocking write writes everything
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }

    private void streamable(boolean shut, String shutMessage) throws SocketException {
        AdaptorSupport.checkOpen(channel);
        if (!channel.isConnected()) {
            throw new SocketException("Socket is not connected");
        }
        if (shut) {
            throw new SocketException(shutMessage);
        }
    }

    private void blockingOnly() {
        if (!channel.isBlocking()) {
            throw new IllegalBlockingModeException();
        }
    }

    private <T> void set(SocketOption<T> name, T value) throws SocketException {
        AdaptorSupport.set(channel, name, value);
    }

    private <T> T get(SocketOption<T> name) throws SocketException {
        return AdaptorSupport.get(channel, name);
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        set(StandardSocketOptions.TCP_NODELAY, on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return get(StandardSocketOptions.TCP_NODELAY);
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        set(StandardSocketOptions.SO_LINGER, on ? linger : -1);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return get(StandardSocketOptions.SO_LINGER);
    }

    @Override
    public void sendUrgentData(int data) {
        throw new UnsupportedOperationException("uring4j's socket adaptor does not send urgent data");
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        this.timeout = AdaptorSupport.checkedTimeout(channel, timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        AdaptorSupport.checkOpen(channel);
        return timeout;
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("Invalid send size");
        }
        set(StandardSocketOptions.SO_SNDBUF, size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return get(StandardSocketOptions.SO_SNDBUF);
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("Invalid receive size");
        }
        set(StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return get(StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        set(StandardSocketOptions.SO_KEEPALIVE, on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return get(StandardSocketOptions.SO_KEEPALIVE);
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        set(StandardSocketOptions.IP_TOS, tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return get(StandardSocketOptions.IP_TOS);
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        set(StandardSocketOptions.SO_REUSEADDR, on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return get(StandardSocketOptions.SO_REUSEADDR);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public void shutdownInput() throws IOException {
        try {
            channel.shutdownInput();
        } catch (Exception e) {
            throw AdaptorSupport.ioException(e);
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        try {
            channel.shutdownOutput();
        } catch (Exception e) {
            throw AdaptorSupport.ioException(e);
        }
    }

    @Override
    public boolean isConnected() {
        return channel.isConnected();
    }

    @Override
    public boolean isBound() {
        return AdaptorSupport.local(channel) != null;
    }

    @Override
    public boolean isClosed() {
        return !channel.isOpen();
    }

    @Override
    public boolean isInputShutdown() {
        return channel.inputShut();
    }

    @Override
    public boolean isOutputShutdown() {
        return channel.outputShut();
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        channel.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return channel.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return channel.supportedOptions();
    }

    @Override
    public String toString() {
        return channel.isConnected() ? "Socket[addr=" + getInetAddress() + ",port=" + getPort() + ",localport="
                + getLocalPort() + "]" : "Socket[unconnected]";
    }
}
