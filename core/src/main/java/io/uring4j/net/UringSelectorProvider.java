package io.uring4j.net;

import io.uring4j.ring.Engine;
import io.uring4j.runtime.Uring;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.Channel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;

/**
 * The JDK's selectors and socket channels on io_uring, for applications that do not know about uring4j: run them
 * with {@code -Djava.nio.channels.spi.SelectorProvider=io.uring4j.net.UringSelectorProvider}, and
 * {@code Selector.open()}, {@code SocketChannel.open()}, {@code ServerSocketChannel.open()},
 * {@code DatagramChannel.open()} and {@code Pipe.open()} return {@code UringSelector}, {@link UringSocketChannel},
 * {@link UringServerSocketChannel}, {@code UringDatagramChannel} and {@code UringPipe}. The channels run on the
 * shared runtime ({@link Uring#shared()}), or on the runtime given to {@link #UringSelectorProvider(Uring)}; the
 * selectors' rings come from that runtime's engine.
 *
 * <p>Deliberately not a service ({@code provides} or {@code META-INF/services}): that would make it the default
 * of every application with uring4j on its path.
 */
public class UringSelectorProvider extends SelectorProvider {
    /** The provider of the channels opened on a runtime of the caller's ({@link UringSocketChannel#open}). */
    static final UringSelectorProvider DEFAULT = new UringSelectorProvider();

    /** The runtime given, or null for the shared one (started on first use, not when the JDK loads this class). */
    private final Uring uring;

    /** As the JDK instantiates a provider named by the system property: on {@link Uring#shared()}. */
    public UringSelectorProvider() {
        this.uring = null;
    }

    /** A provider whose channels run on {@code uring} (which must outlive them), and its selectors on its engine. */
    public UringSelectorProvider(Uring uring) {
        this.uring = Objects.requireNonNull(uring, "uring");
    }

    private Uring runtime() throws IOException {
        return uring != null ? uring : Uring.shared();
    }

    @Override
    public AbstractSelector openSelector() throws IOException {
        return new UringSelector(this, uring != null ? uring.engine() : Engine.configured());
    }

    @Override
    public SocketChannel openSocketChannel() throws IOException {
        return openSocketChannel(ChannelSockets.IP);
    }

    /** As the JDK's: INET6 gives a dual-stack TCP socket, INET an IPv4 one, UNIX a Unix-domain one. */
    @Override
    public SocketChannel openSocketChannel(ProtocolFamily family) throws IOException {
        return UringSocketChannel.open(this, runtime(), checked(family));
    }

    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        return openServerSocketChannel(ChannelSockets.IP);
    }

    @Override
    public ServerSocketChannel openServerSocketChannel(ProtocolFamily family) throws IOException {
        return UringServerSocketChannel.open(this, runtime(), checked(family));
    }

    /** A dual-stack UDP channel (IPv4 where IPv6 is not available), as the JDK's. */
    @Override
    public DatagramChannel openDatagramChannel() throws IOException {
        return openDatagramChannel(ChannelSockets.IP);
    }

    /** INET6 (dual-stack) or INET; UNIX is UnsupportedOperationException, as with the JDK's. */
    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) throws IOException {
        return UringDatagramChannel.open(this, runtime(), family);
    }

    @Override
    public Pipe openPipe() throws IOException {
        return new UringPipe(this, runtime());
    }

    /**
     * As the JDK's: the socket the process was started with on standard input, as a channel of this provider
     * ({@link InheritedChannels}), or null; what {@link System#inheritedChannel()} returns under the flag.
     */
    @Override
    public Channel inheritedChannel() throws IOException {
        return InheritedChannels.get(this);
    }

    /** As the JDK's: a null family is a NullPointerException, an unknown one UnsupportedOperationException. */
    private static ProtocolFamily checked(ProtocolFamily family) {
        if (family != StandardProtocolFamily.INET && family != StandardProtocolFamily.INET6
                && family != StandardProtocolFamily.UNIX) {
            throw new UnsupportedOperationException("Protocol family not supported: " + family.name());
        }
        return family;
    }
}
