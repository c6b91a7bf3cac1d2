package io.uring4j.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * {@link UringServerSocketChannel#socket()}: a {@link ServerSocket} whose every method is the channel's, as the
 * JDK's adaptor, SO_TIMEOUT bounding a blocking accept. TCP only, as the JDK's.
 */
final class ServerSocketAdaptor extends ServerSocket {
    private final UringServerSocketChannel channel;
    private volatile int timeout;

    private ServerSocketAdaptor(UringServerSocketChannel channel) {
        super(AdaptorSupport.deadImpl());
        this.channel = channel;
    }

    static ServerSocket of(UringServerSocketChannel channel) {
        if (channel.unixDomain()) {
            throw new UnsupportedOperationException("Not supported");     // as the JDK's for Unix-domain channels
        }
        return new ServerSocketAdaptor(channel);
    }

    @Override
    public void bind(SocketAddress local) throws IOException {
        bind(local, 50);
    }

    @Override
    public void bind(SocketAddress local, int backlog) throws IOException {
        try {
            channel.bind(local == null ? new InetSocketAddress(0) : local, backlog);
        } catch (Exception e) {
            throw AdaptorSupport.ioException(e);
        }
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress local = AdaptorSupport.local(channel);
        return local == null ? null : local.getAddress();
    }

    @Override
    public int getLocalPort() {
        InetSocketAddress local = AdaptorSupport.local(channel);
        return local == null ? -1 : local.getPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return AdaptorSupport.local(channel);
    }

    /** As the JDK's: in non-blocking mode a connection that is waiting, else IllegalBlockingModeException. */
    @Override
    public Socket accept() throws IOException {
        SocketChannel accepted;
        try {
            accepted = channel.accept(timeout);
            if (accepted == null) {
                throw new IllegalBlockingModeException();
            }
        } catch (Exception e) {
            throw AdaptorSupport.ioException(e);
        }
        return accepted.socket();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public ServerSocketChannel getChannel() {
        return channel;
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
    public void setSoTimeout(int timeout) throws SocketException {
        this.timeout = AdaptorSupport.checkedTimeout(channel, timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        AdaptorSupport.checkOpen(channel);
        return timeout;
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        AdaptorSupport.set(channel, StandardSocketOptions.SO_REUSEADDR, on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return AdaptorSupport.get(channel, StandardSocketOptions.SO_REUSEADDR);
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("size cannot be 0 or negative");
        }
        AdaptorSupport.set(channel, StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return AdaptorSupport.get(channel, StandardSocketOptions.SO_RCVBUF);
    }

    @Override
    public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException {
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
        return isBound() ? "ServerSocket[addr=" + getInetAddress() + ",localport=" + getLocalPort() + "]"
                : "ServerSocket[unbound]";
    }
}
