package io.uring4j.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.DatagramSocketImpl;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.IllegalBlockingModeException;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * {@link UringDatagramChannel#socket()}: a {@link DatagramSocket} whose every method is the channel's, as the
 * JDK's adaptor — binding, connecting, addresses, options (what Netty's NIO datagram transport asks of it), send,
 * receive and close. Not a {@code MulticastSocket}, as the JDK's is not: groups are joined through the channel.
 *
 * <p>A receive takes up to the packet's buffer length, as the JDK's, and sets its length to what it kept. Outside
 * java.base a packet's length can only be set together with its buffer length, so {@link ShrunkPackets} remembers
 * the buffer length of a packet a receive shortened: the next receive into it takes as much as the JDK's would.
 */
final class DatagramSocketAdaptor extends DatagramSocket {
    private final UringDatagramChannel channel;
    private volatile int timeout;

    private DatagramSocketAdaptor(UringDatagramChannel channel) {
        super(new DeadImpl());
        this.channel = channel;
    }

    static DatagramSocket of(UringDatagramChannel channel) {
        return new DatagramSocketAdaptor(channel);
    }

    @Override
    public void bind(SocketAddress local) throws SocketException {
        try {
            channel.bind(local != null ? local : new InetSocketAddress(0));
        } catch (Exception e) {
            throw AdaptorSupport.socketException(e);
        }
    }

    @Override
    public void connect(InetAddress address, int port) {
        if (address == null) {
            throw new IllegalArgumentException("Address can't be null");
        }
        try {
            connectChannel(new InetSocketAddress(address, port));
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void connect(SocketAddress remote) throws SocketException {
        if (remote == null) {
            throw new IllegalArgumentException("Address can't be null");
        }
        connectChannel(remote);
    }

    /** As the JDK's: a closed channel is ignored, a connected one is connected again. */
    private void connectChannel(SocketAddress remote) throws SocketException {
        try {
            if (channel.isConnected()) {
                channel.disconnect();
            }
            channel.connect(remote);
        } catch (ClosedChannelException ignored) {
            // as the JDK's adaptor
        } catch (Exception e) {
            throw AdaptorSupport.socketException(e);
        }
    }

    @Override
    public void disconnect() {
        try {
            channel.disconnect();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public boolean isBound() {
        return AdaptorSupport.local(channel) != null;
    }

    @Override
    public boolean isConnected() {
        return remote() != null;
    }

    private InetSocketAddress remote() {
        try {
            return (InetSocketAddress) channel.getRemoteAddress();
        } catch (IOException closed) {
            return null;
        }
    }

    @Override
    public InetAddress getInetAddress() {
        InetSocketAddress remote = remote();
        return remote != null ? remote.getAddress() : null;
    }

    @Override
    public int getPort() {
        InetSocketAddress remote = remote();
        return remote != null ? remote.getPort() : -1;
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
    public InetAddress getLocalAddress() {
        if (isClosed()) {
            return null;
        }
        InetSocketAddress local = AdaptorSupport.local(channel);
        return (local != null ? local : new InetSocketAddress(0)).getAddress();
    }

    @Override
    public int getLocalPort() {
        if (isClosed()) {
            return -1;
        }
        InetSocketAddress local = AdaptorSupport.local(channel);
        return local != null ? local.getPort() : 0;
    }

    /**
     * As the JDK's: a closed socket first, then blocking mode only; a packet without an address goes to the
     * connected peer, whose address and port it then carries; one addressed elsewhere than the connected peer is
     * an IllegalArgumentException.
     */
    @Override
    public void send(DatagramPacket p) throws IOException {
        synchronized (p) {
            if (!channel.isOpen()) {
                throw new SocketException("Socket closed");
            }
            if (!channel.isBlocking()) {
                throw new IllegalBlockingModeException();
            }
            if (p.getAddress() == null) {
                InetSocketAddress remote = remote();
                if (remote == null) {
                    throw new IllegalArgumentException("Address not set");
                }
                p.setAddress(remote.getAddress());
                p.setPort(remote.getPort());
            }
            try {
                channel.send(ByteBuffer.wrap(p.getData(), p.getOffset(), p.getLength()), p.getSocketAddress());
            } catch (AlreadyConnectedException e) {
                throw new IllegalArgumentException("Connected and packet address differ");
            } catch (ClosedChannelException e) {
                throw new SocketException("Socket closed", e);
            }
        }
    }

    /**
     * As the JDK's: a closed socket, then blocking mode only; the datagram goes to the packet's data at its offset,
     * what does not fit its buffer length dropped; the packet's length and sender are set; SO_TIMEOUT bounds the
     * wait (SocketTimeoutException). A close meanwhile is a SocketException, an interrupt closes the socket.
     */
    @Override
    public void receive(DatagramPacket p) throws IOException {
        synchronized (p) {
            int capacity = ShrunkPackets.bufferLength(p);
            ByteBuffer into = ByteBuffer.wrap(p.getData(), p.getOffset(), capacity);
            InetSocketAddress sender;
            try {
                sender = channel.receive(into, timeout);
            } catch (ClosedByInterruptException e) {
                throw e;
            } catch (ClosedChannelException e) {
                throw new SocketException("Socket closed", e);
            }
            int length = into.position() - p.getOffset();
            p.setLength(length);         // the buffer length too: ShrunkPackets keeps the real one
            ShrunkPackets.shrunk(p, capacity);
            p.setSocketAddress(sender);
        }
    }

    /**
     * A packet's buffer length, which a receive must not shrink: the JDK's adaptor sets the length alone
     * (through java.base's access to the field), {@link DatagramPacket#setLength} sets both. A packet whose length
     * a receive set below its buffer length is remembered with that buffer length, weakly, until the packet is
     * changed (its data, offset or length no longer what the receive left) or collected.
     */
    static final class ShrunkPackets {
        private static final Map<DatagramPacket, Shape> SHRUNK = new WeakHashMap<>();

        /** What a receive left: the packet's data, offset and length, and the buffer length before it. */
        private record Shape(byte[] data, int offset, int length, int bufferLength) {
        }

        private ShrunkPackets() {
        }

        /** The length the JDK's receive would take into {@code p} (whose lock the caller holds). */
        static int bufferLength(DatagramPacket p) {
            Shape shape;
            synchronized (SHRUNK) {
                shape = SHRUNK.isEmpty() ? null : SHRUNK.get(p);
            }
            boolean unchanged = shape != null && shape.data == p.getData() && shape.offset == p.getOffset()
                    && shape.length == p.getLength();
            return unchanged ? shape.bufferLength : p.getLength();
        }

        /** After a receive set {@code p}'s length: remembers {@code bufferLength} if that is longer. */
        static void shrunk(DatagramPacket p, int bufferLength) {
            synchronized (SHRUNK) {
                if (p.getLength() < bufferLength) {
                    SHRUNK.put(p, new Shape(p.getData(), p.getOffset(), p.getLength(), bufferLength));
                } else if (!SHRUNK.isEmpty()) {
                    SHRUNK.remove(p);
                }
            }
        }
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
        AdaptorSupport.set(channel, StandardSocketOptions.SO_SNDBUF, size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return AdaptorSupport.get(channel, StandardSocketOptions.SO_SNDBUF);
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("Invalid receive size");
        }
        AdaptorSupport.set(channel, StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return AdaptorSupport.get(channel, StandardSocketOptions.SO_RCVBUF);
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
    public void setBroadcast(boolean on) throws SocketException {
        AdaptorSupport.set(channel, StandardSocketOptions.SO_BROADCAST, on);
    }

    @Override
    public boolean getBroadcast() throws SocketException {
        return AdaptorSupport.get(channel, StandardSocketOptions.SO_BROADCAST);
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        AdaptorSupport.set(channel, StandardSocketOptions.IP_TOS, tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return AdaptorSupport.get(channel, StandardSocketOptions.IP_TOS);
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public boolean isClosed() {
        return !channel.isOpen();
    }

    @Override
    public DatagramChannel getChannel() {
        return channel;
    }

    @Override
    public <T> DatagramSocket setOption(SocketOption<T> name, T value) throws IOException {
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
        return "DatagramSocketAdaptor[" + channel + "]";
    }

    /** The impl DatagramSocket's constructor wants: never used (every public method is the channel's). */
    private static final class DeadImpl extends DatagramSocketImpl {
        @Override
        protected void create() {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void bind(int lport, InetAddress laddr) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void send(DatagramPacket p) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected int peek(InetAddress i) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected int peekData(DatagramPacket p) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void receive(DatagramPacket p) {
            throw new UnsupportedOperationException();
        }

        @Override
        @SuppressWarnings("deprecation")
        protected void setTTL(byte ttl) {
            throw new UnsupportedOperationException();
        }

        @Override
        @SuppressWarnings("deprecation")
        protected byte getTTL() {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void setTimeToLive(int ttl) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected int getTimeToLive() {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void join(InetAddress inetaddr) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void leave(InetAddress inetaddr) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void joinGroup(SocketAddress mcastaddr, NetworkInterface netIf) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void leaveGroup(SocketAddress mcastaddr, NetworkInterface netIf) {
            throw new UnsupportedOperationException();
        }

        @Override
        protected void close() {
        }

        @Override
        public void setOption(int optID, Object value) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object getOption(int optID) {
            throw new UnsupportedOperationException();
        }
    }
}
