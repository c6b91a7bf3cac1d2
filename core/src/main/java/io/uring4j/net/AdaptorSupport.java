package io.uring4j.net;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.SocketImpl;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NetworkChannel;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;

/** What the socket adaptors share: the JDK's exception translation, addresses that never throw, a dead SocketImpl. */
final class AdaptorSupport {
    private AdaptorSupport() {
    }

    /**
     * As the JDK's Net.translateToSocketException: a channel's exception as java.net reports it; a runtime exception
     * it has no message for is thrown as it is.
     */
    static SocketException socketException(Exception x) {
        if (x instanceof SocketException se) {
            return se;
        }
        String message = switch (x) {
            case ClosedChannelException c -> "Socket is closed";
            case NotYetConnectedException n -> "Socket is not connected";
            case AlreadyBoundException a -> "Already bound";
            case AlreadyConnectedException a -> "Already connected";
            case NotYetBoundException n -> "Socket is not bound yet";
            case UnsupportedAddressTypeException u -> "Unsupported address type";
            case UnresolvedAddressException u -> "Unresolved address";
            default -> null;
        };
        if (message == null) {
            if (x instanceof RuntimeException other) {
                throw other;            // as the JDK's: IllegalBlockingModeException and the like go through
            }
            message = x.getMessage();
        }
        SocketException e = new SocketException(message);
        e.initCause(x);
        return e;
    }

    /** As the JDK's Net.translateException: IOExceptions stay as they are, the rest become SocketExceptions. */
    static IOException ioException(Exception x) {
        return x instanceof IOException io ? io : socketException(x);
    }

    /** {@code channel.setOption}, failing as the JDK's adaptors do: a SocketException. */
    static <T> void set(NetworkChannel channel, SocketOption<T> name, T value) throws SocketException {
        try {
            channel.setOption(name, value);
        } catch (IOException e) {
            throw socketException(e);
        }
    }

    /** {@code channel.getOption}, failing as the JDK's adaptors do: a SocketException. */
    static <T> T get(NetworkChannel channel, SocketOption<T> name) throws SocketException {
        try {
            return channel.getOption(name);
        } catch (IOException e) {
            throw socketException(e);
        }
    }

    /** SO_TIMEOUT's checks, the JDK's: a closed socket first, then a negative timeout. Returns the timeout. */
    static int checkedTimeout(Channel channel, int timeout) throws SocketException {
        checkOpen(channel);
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        return timeout;
    }

    /** A closed adaptor's SocketException, as the JDK words it. */
    static void checkOpen(Channel channel) throws SocketException {
        if (!channel.isOpen()) {
            throw new SocketException("Socket is closed");
        }
    }

    /** The channel's local address, or null when unbound or closed (the adaptors' getters never throw). */
    static InetSocketAddress local(NetworkChannel channel) {
        try {
            return (InetSocketAddress) channel.getLocalAddress();
        } catch (IOException closed) {
            return null;
        }
    }

    /** The impl the adaptors hand to Socket's and ServerSocket's constructors: never used, every method refuses. */
    static SocketImpl deadImpl() {
        return new SocketImpl() {
            @Override
            protected void create(boolean stream) {
                throw new UnsupportedOperationException();
            }

            @Override
            protected void connect(String host, int port) {
                throw new UnsupportedOperationException();
            }

            @Override
            protected void connect(InetAddress address, int port) {
                throw new UnsupportedOperationException();
            }

            @Override
            protected void connect(SocketAddress address, int timeout) {
                throw new UnsupportedOperationException();
            }

            @Override
            protected void bind(InetAddress host, int port) {
                throw new UnsupportedOperationException();
            }

            @Override
            protected void listen(int backlog) {
                throw new UnsupportedOperationException();
            }

            @Override
            protected void accept(SocketImpl s) {
                throw new UnsupportedOperationException();
            }

            @Override
            protected InputStream getInputStream() {
                throw new UnsupportedOperationException();
            }

            @Override
            protected OutputStream getOutputStream() {
                throw new UnsupportedOperationException();
            }

            @Override
            protected int available() {
                throw new UnsupportedOperationException();
            }

            @Override
            protected void close() {
            }

            @Override
            protected void sendUrgentData(int data) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void setOption(int optID, Object value) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Object getOption(int optID) {
                throw new UnsupportedOperationException();
            }

            @Override
            protected FileDescriptor getFileDescriptor() {
                return null;
            }
        };
    }
}
