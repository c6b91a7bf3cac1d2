package io.uring4j.net;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The DatagramChannel contract, run against the JDK's provider ({@link JdkDatagramChannelTest}) and uring4j's
 * ({@link UringDatagramChannelTest}) with the same code. Waits are bounded by generous timeouts only.
 */
abstract class DatagramChannelContract extends ClosesAfterEach {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    abstract SelectorProvider provider();

    abstract SelectorProvider otherProvider();

    DatagramChannel channel() throws IOException {
        return closing(provider().openDatagramChannel());
    }

    DatagramChannel bound() throws IOException {
        return channel().bind(LOOPBACK);
    }

    private static ByteBuffer text(String s, boolean direct) {
        byte[] bytes = s.getBytes();
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(bytes.length) : ByteBuffer.allocate(bytes.length);
        return b.put(bytes).flip();
    }

    private static String text(ByteBuffer b) {
        b.flip();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new String(bytes);
    }

    @Test
    void aDatagramGoesFromOneChannelToAnotherWithItsSender() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel b = bound();
        for (boolean direct : new boolean[] {false, true}) {
            String message = "hello " + direct;
            assertThat(b.send(text(message, direct), a.getLocalAddress())).isEqualTo(message.length());
            ByteBuffer into = direct ? ByteBuffer.allocateDirect(64) : ByteBuffer.allocate(64);
            SocketAddress sender = a.receive(into);
            assertThat(sender).isEqualTo(b.getLocalAddress());
            assertThat(text(into)).isEqualTo(message);
        }
    }

    @Test
    void aReceiveIntoASmallBufferKeepsWhatFitsAndDropsTheRest() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel b = bound();
        b.send(text("0123456789abcdef", false), a.getLocalAddress());
        b.send(text("second", false), a.getLocalAddress());
        ByteBuffer small = ByteBuffer.allocate(4);
        a.receive(small);
        assertThat(text(small)).isEqualTo("0123");
        ByteBuffer next = ByteBuffer.allocate(64);
        a.receive(next);
        assertThat(text(next)).isEqualTo("second");
    }

    @Test
    void nonBlockingReceiveWithNothingThereIsNullAndAnUnboundChannelIsBoundByIt() throws Exception {
        DatagramChannel c = channel();
        c.configureBlocking(false);
        assertThat(c.getLocalAddress()).isNull();
        assertThat(c.receive(ByteBuffer.allocate(8))).isNull();
        assertThat(((InetSocketAddress) c.getLocalAddress()).getPort()).isNotZero();
    }

    @Test
    void aSendFromAnUnboundChannelBindsIt() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel c = channel();
        c.send(text("x", false), a.getLocalAddress());
        int port = ((InetSocketAddress) c.getLocalAddress()).getPort();
        assertThat(port).isNotZero();
        assertThat(((InetSocketAddress) a.receive(ByteBuffer.allocate(8))).getPort()).isEqualTo(port);
    }

    @Test
    void aConnectedChannelReadsAndWritesItsPeerOnly() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel c = bound();
        DatagramChannel stranger = bound();
        assertThatThrownBy(() -> c.read(ByteBuffer.allocate(8))).isInstanceOf(NotYetConnectedException.class);
        assertThatThrownBy(() -> c.write(text("x", false))).isInstanceOf(NotYetConnectedException.class);
        c.connect(a.getLocalAddress());
        assertThat(c.isConnected()).isTrue();
        assertThat(c.getRemoteAddress()).isEqualTo(a.getLocalAddress());
        stranger.send(text("not for you", false), c.getLocalAddress());
        a.send(text("for you", true), c.getLocalAddress());
        ByteBuffer into = ByteBuffer.allocate(64);
        assertThat(c.read(into)).isEqualTo(7);
        assertThat(text(into)).isEqualTo("for you");
        assertThat(c.write(text("back", false))).isEqualTo(4);
        ByteBuffer back = ByteBuffer.allocate(64);
        assertThat(a.receive(back)).isEqualTo(c.getLocalAddress());
        assertThat(text(back)).isEqualTo("back");
    }

    @Test
    void aConnectedChannelSendsToItsPeerOnlyAndConnectsOnce() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel other = bound();
        DatagramChannel c = bound();
        c.connect(a.getLocalAddress());
        assertThat(c.send(text("ok", false), a.getLocalAddress())).isEqualTo(2);
        assertThatThrownBy(() -> c.send(text("no", false), other.getLocalAddress()))
                .isInstanceOf(AlreadyConnectedException.class);
        assertThatThrownBy(() -> c.connect(other.getLocalAddress())).isInstanceOf(AlreadyConnectedException.class);
    }

    @Test
    void disconnectEndsTheAssociationAndKeepsThePort() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel c = bound();
        SocketAddress local = c.getLocalAddress();
        c.connect(a.getLocalAddress());
        c.disconnect();
        assertThat(c.isConnected()).isFalse();
        assertThat(c.getRemoteAddress()).isNull();
        assertThat(c.getLocalAddress()).isEqualTo(local);
        DatagramChannel b = bound();
        b.send(text("after", false), c.getLocalAddress());
        ByteBuffer into = ByteBuffer.allocate(16);
        assertThat(c.receive(into)).isEqualTo(b.getLocalAddress());
        c.disconnect();                                  // not connected: nothing happens
    }

    @Test
    void aConnectedChannelHearsThatItsPeerHasNoSocket() throws Exception {
        DatagramChannel gone = bound();
        SocketAddress nobody = gone.getLocalAddress();
        gone.close();
        DatagramChannel c = bound();
        c.connect(nobody);
        c.configureBlocking(false);
        c.write(text("anyone?", false));
        awaitCondition(() -> {
            try {
                return c.read(ByteBuffer.allocate(8)) < 0;
            } catch (PortUnreachableException expected) {
                return true;
            } catch (IOException other) {
                throw new AssertionError(other);
            }
        });
    }

    @Test
    void scatteringReadsAndGatheringWritesMoveOneDatagram() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel c = bound();
        c.connect(a.getLocalAddress());
        a.connect(c.getLocalAddress());
        ByteBuffer[] srcs = {text("abc", false), text("defg", true), text("hi", false)};
        assertThat(c.write(srcs, 0, 3)).isEqualTo(9);
        assertThat(Arrays.stream(srcs).noneMatch(ByteBuffer::hasRemaining)).isTrue();
        ByteBuffer[] dsts = {ByteBuffer.allocate(2), ByteBuffer.allocateDirect(5), ByteBuffer.allocate(8)};
        assertThat(a.read(dsts)).isEqualTo(9);
        assertThat(text(dsts[0]) + text(dsts[1]) + text(dsts[2])).isEqualTo("abcdefghi");
    }

    @Test
    void aDualStackChannelReportsAnIpv4SenderAsIpv4() throws Exception {
        DatagramChannel a = channel().bind(new InetSocketAddress(0));
        int port = ((InetSocketAddress) a.getLocalAddress()).getPort();
        DatagramChannel v4 = closing(provider().openDatagramChannel(StandardProtocolFamily.INET));
        v4.send(text("v4", false), new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
        InetSocketAddress from = (InetSocketAddress) a.receive(ByteBuffer.allocate(8));
        assertThat(from.getAddress()).isInstanceOf(Inet4Address.class);
        assertThat(from.getPort()).isEqualTo(((InetSocketAddress) v4.getLocalAddress()).getPort());
    }

    /** A datagram larger than UDP carries is refused whole ("Message too long"), sent buffers untouched. */
    @Test
    void aDatagramLargerThanUdpCarriesIsRefusedAndNothingIsSent() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel c = bound();
        c.connect(a.getLocalAddress());
        ByteBuffer huge = ByteBuffer.allocate(70_000);
        assertThatThrownBy(() -> c.send(huge, a.getLocalAddress())).isInstanceOf(IOException.class)
                .hasMessageContaining("Message too long");
        ByteBuffer[] parts = {ByteBuffer.allocate(40_000), ByteBuffer.allocateDirect(30_000)};
        assertThatThrownBy(() -> c.write(parts)).isInstanceOf(IOException.class)
                .hasMessageContaining("Message too long");
        assertThat(huge.position()).isZero();
        assertThat(parts[0].position() + parts[1].position()).isZero();
        a.configureBlocking(false);
        assertThat(a.receive(ByteBuffer.allocate(8))).isNull();
        assertThat(c.write(text("fine", false))).isEqualTo(4);      // the channel still works
    }

    @Test
    void bindingTwiceAndCallsAfterCloseFailAsTheJdksDo() throws Exception {
        DatagramChannel c = bound();
        assertThatThrownBy(() -> c.bind(LOOPBACK)).isInstanceOf(AlreadyBoundException.class);
        c.close();
        assertThatThrownBy(() -> c.receive(ByteBuffer.allocate(8))).isInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(() -> c.send(text("x", false), LOOPBACK)).isInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(() -> c.bind(LOOPBACK)).isInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(() -> c.getLocalAddress()).isInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(() -> c.receive(ByteBuffer.allocate(8).asReadOnlyBuffer()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void optionsAreSetReadAndRefusedAsTheJdksAre() throws Exception {
        DatagramChannel c = bound();
        c.setOption(StandardSocketOptions.SO_BROADCAST, true);
        assertThat(c.getOption(StandardSocketOptions.SO_BROADCAST)).isTrue();
        c.setOption(StandardSocketOptions.IP_TOS, 0x10);
        assertThat(c.getOption(StandardSocketOptions.IP_TOS)).isEqualTo(0x10);
        c.setOption(StandardSocketOptions.SO_RCVBUF, 65_536);
        assertThat(c.getOption(StandardSocketOptions.SO_RCVBUF)).isGreaterThanOrEqualTo(65_536);
        c.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 3);
        assertThat(c.getOption(StandardSocketOptions.IP_MULTICAST_TTL)).isEqualTo(3);
        c.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, false);
        assertThat(c.getOption(StandardSocketOptions.IP_MULTICAST_LOOP)).isFalse();
        assertThatThrownBy(() -> c.setOption(StandardSocketOptions.IP_TOS, 256))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> c.setOption(StandardSocketOptions.TCP_NODELAY, true))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> c.getOption(StandardSocketOptions.SO_KEEPALIVE))
                .isInstanceOf(UnsupportedOperationException.class);
        c.close();
        assertThatThrownBy(() -> c.getOption(StandardSocketOptions.SO_BROADCAST))
                .isInstanceOf(ClosedChannelException.class);
    }

    @Test
    void theSocketAdaptorBindsConnectsAndReportsAddressesAsTheJdks() throws Exception {
        DatagramChannel c = channel();
        DatagramChannel peer = bound();
        DatagramSocket s = c.socket();
        assertThat(c.socket()).isSameAs(s);
        assertThat(s.getChannel()).isSameAs(c);
        assertThat(s.isBound()).isFalse();
        assertThat(s.getLocalPort()).isZero();
        assertThat(s.getLocalAddress()).isEqualTo(new InetSocketAddress(0).getAddress());
        assertThat(s.getLocalSocketAddress()).isNull();
        s.bind(null);
        assertThat(s.isBound()).isTrue();
        assertThat(s.getLocalPort()).isPositive().isEqualTo(((InetSocketAddress) c.getLocalAddress()).getPort());
        assertThat(s.getLocalSocketAddress()).isEqualTo(c.getLocalAddress());
        assertThatThrownBy(() -> s.bind(null)).isInstanceOf(SocketException.class).hasMessage("Already bound");
        assertThat(s.isConnected()).isFalse();
        assertThat(s.getPort()).isEqualTo(-1);
        assertThat(s.getInetAddress()).isNull();
        s.connect(peer.getLocalAddress());
        assertThat(s.isConnected()).isTrue();
        assertThat(c.isConnected()).isTrue();
        assertThat(s.getRemoteSocketAddress()).isEqualTo(peer.getLocalAddress());
        assertThat(s.getPort()).isEqualTo(((InetSocketAddress) peer.getLocalAddress()).getPort());
        assertThat(s.getInetAddress()).isEqualTo(((InetSocketAddress) peer.getLocalAddress()).getAddress());
        s.connect(peer.getLocalAddress());                      // again: no AlreadyConnectedException
        assertThatThrownBy(() -> s.connect((SocketAddress) null)).isInstanceOf(IllegalArgumentException.class);
        s.disconnect();
        assertThat(s.isConnected()).isFalse();
        assertThat(s.getRemoteSocketAddress()).isNull();
        s.close();
        assertThat(s.isClosed()).isTrue();
        assertThat(c.isOpen()).isFalse();
        assertThat(s.getLocalPort()).isEqualTo(-1);
        assertThat(s.getLocalAddress()).isNull();
        assertThat(s.getLocalSocketAddress()).isNull();
    }

    @Test
    void theSocketAdaptorSetsAndReadsOptionsAsTheJdks() throws Exception {
        DatagramSocket s = bound().socket();
        s.setSendBufferSize(65_536);
        assertThat(s.getSendBufferSize()).isGreaterThanOrEqualTo(65_536);
        s.setReceiveBufferSize(65_536);
        assertThat(s.getReceiveBufferSize()).isGreaterThanOrEqualTo(65_536);
        s.setBroadcast(true);
        assertThat(s.getBroadcast()).isTrue();
        s.setReuseAddress(true);
        assertThat(s.getReuseAddress()).isTrue();
        s.setTrafficClass(0x10);
        assertThat(s.getTrafficClass()).isEqualTo(0x10);
        s.setSoTimeout(250);
        assertThat(s.getSoTimeout()).isEqualTo(250);
        s.setOption(StandardSocketOptions.SO_BROADCAST, false);
        assertThat(s.getOption(StandardSocketOptions.SO_BROADCAST)).isFalse();
        assertThat(s.supportedOptions()).isEqualTo(s.getChannel().supportedOptions());
        assertThatThrownBy(() -> s.setSendBufferSize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.setReceiveBufferSize(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.setSoTimeout(-1)).isInstanceOf(IllegalArgumentException.class);
        s.close();
        assertThatThrownBy(s::getSendBufferSize).isInstanceOf(SocketException.class);
        assertThatThrownBy(() -> s.setBroadcast(true)).isInstanceOf(SocketException.class);
        assertThatThrownBy(s::getSoTimeout).isInstanceOf(SocketException.class).hasMessage("Socket is closed");
    }

    @Test
    void theSocketAdaptorSendsAPacketAsTheJdks() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel b = bound();
        DatagramChannel other = bound();
        DatagramSocket s = a.socket();
        byte[] hello = "hello".getBytes();
        s.send(new DatagramPacket(hello, 1, 3, b.getLocalAddress()));
        ByteBuffer into = ByteBuffer.allocate(16);
        assertThat(b.receive(into)).isEqualTo(a.getLocalAddress());
        assertThat(text(into)).isEqualTo("ell");
        assertThatThrownBy(() -> s.send(new DatagramPacket(hello, hello.length)))
                .isInstanceOf(IllegalArgumentException.class);          // no address, not connected
        InetAddress loopback = InetAddress.getLoopbackAddress();
        assertThatThrownBy(() -> s.send(new DatagramPacket(hello, hello.length, loopback, 0)))
                .isInstanceOf(SocketException.class).hasMessage("Can't send to port 0");
        assertThatThrownBy(() -> a.send(text("x", false), new InetSocketAddress(loopback, 0)))
                .isInstanceOf(SocketException.class).hasMessage("Can't send to port 0");
        s.connect(b.getLocalAddress());
        DatagramPacket unaddressed = new DatagramPacket(hello, hello.length);
        s.send(unaddressed);                                            // no address: the peer's, kept
        assertThat(unaddressed.getSocketAddress()).isEqualTo(b.getLocalAddress());
        assertThat(b.receive(into.clear())).isEqualTo(a.getLocalAddress());
        assertThat(text(into)).isEqualTo("hello");
        assertThatThrownBy(() -> s.send(new DatagramPacket(hello, hello.length, other.getLocalAddress())))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("Connected and packet address differ");
        a.configureBlocking(false);
        assertThatThrownBy(() -> s.send(new DatagramPacket(hello, hello.length)))
                .isInstanceOf(IllegalBlockingModeException.class);
        a.close();
        assertThatThrownBy(() -> s.send(new DatagramPacket(hello, hello.length, b.getLocalAddress())))
                .isInstanceOf(SocketException.class);
    }

    /**
     * The adaptor's receive fills the packet as the JDK's: data at its offset, its length, the sender. It takes up
     * to the packet's buffer length — which a receive that set a shorter length does not shrink — and drops the
     * rest of a longer datagram; setLength sets the buffer length too.
     */
    @Test
    void theSocketAdaptorReceivesAPacketAsTheJdks() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel b = bound();
        DatagramSocket s = a.socket();
        byte[] data = new byte[10];
        DatagramPacket p = new DatagramPacket(data, 2, 6);
        b.send(text("hi", false), a.getLocalAddress());
        s.receive(p);
        assertThat(p.getData()).isSameAs(data);
        assertThat(p.getOffset()).isEqualTo(2);
        assertThat(p.getLength()).isEqualTo(2);
        assertThat(new String(data, 2, 2)).isEqualTo("hi");
        assertThat(p.getSocketAddress()).isEqualTo(b.getLocalAddress());
        assertThat(p.getAddress()).isEqualTo(((InetSocketAddress) b.getLocalAddress()).getAddress());
        assertThat(p.getPort()).isEqualTo(((InetSocketAddress) b.getLocalAddress()).getPort());

        b.send(text("abcdefghij", true), a.getLocalAddress());
        s.receive(p);                                               // the same packet: its buffer length again
        assertThat(p.getLength()).isEqualTo(6);
        assertThat(new String(data, 2, 6)).isEqualTo("abcdef");
        assertThat(data[0]).isZero();
        assertThat(data[1]).isZero();
        assertThat(data[8]).isZero();
        assertThat(data[9]).isZero();

        b.send(text("xyz", false), a.getLocalAddress());
        s.receive(p);                                               // the truncated tail was dropped
        assertThat(p.getLength()).isEqualTo(3);
        assertThat(new String(data, 2, 3)).isEqualTo("xyz");

        p.setLength(1);
        b.send(text("12345", false), a.getLocalAddress());
        s.receive(p);
        assertThat(p.getLength()).isEqualTo(1);
        assertThat((char) data[2]).isEqualTo('1');

        p.setData(new byte[4]);
        b.send(text("wxyz", false), a.getLocalAddress());
        s.receive(p);
        assertThat(p.getLength()).isEqualTo(4);
        assertThat(new String(p.getData())).isEqualTo("wxyz");
    }

    @Test
    void theSocketAdaptorReceivesFromItsConnectedPeer() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel b = bound();
        DatagramChannel other = bound();
        DatagramSocket s = a.socket();
        s.connect(b.getLocalAddress());
        other.send(text("stranger", false), a.getLocalAddress());
        b.send(text("peer", false), a.getLocalAddress());
        DatagramPacket p = new DatagramPacket(new byte[16], 16);
        s.receive(p);
        assertThat(new String(p.getData(), 0, p.getLength())).isEqualTo("peer");
        assertThat(p.getSocketAddress()).isEqualTo(b.getLocalAddress());
    }

    @Test
    void theSocketAdaptorsReceiveTimesOutAfterSoTimeoutAndTheSocketStaysOpen() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel b = bound();
        DatagramSocket s = a.socket();
        DatagramPacket p = new DatagramPacket(new byte[8], 8);
        s.setSoTimeout(50);
        assertThatThrownBy(() -> s.receive(p)).isInstanceOf(SocketTimeoutException.class);
        assertThat(s.isClosed()).isFalse();
        b.send(text("late", false), a.getLocalAddress());
        s.setSoTimeout(60_000);
        s.receive(p);
        assertThat(new String(p.getData(), 0, p.getLength())).isEqualTo("late");
    }

    @Test
    void theSocketAdaptorReceivesOnlyInBlockingModeAndWhileOpen() throws Exception {
        DatagramChannel a = bound();
        DatagramSocket s = a.socket();
        DatagramPacket p = new DatagramPacket(new byte[8], 8);
        a.configureBlocking(false);
        assertThatThrownBy(() -> s.receive(p)).isInstanceOf(IllegalBlockingModeException.class);
        a.close();
        assertThatThrownBy(() -> s.receive(p)).isInstanceOf(SocketException.class).hasMessage("Socket closed");
    }

    @Test
    void closeFromAnotherThreadEndsABlockedAdaptorReceive() throws Exception {
        DatagramChannel c = bound();
        DatagramSocket s = c.socket();
        Blocked blocked = blockedOnAVirtualThread(() -> s.receive(new DatagramPacket(new byte[8], 8)));
        s.close();
        assertThat(blocked.failure().get(10, TimeUnit.SECONDS)).isInstanceOf(SocketException.class)
                .hasMessage("Socket closed");
    }

    @Test
    void closeFromAnotherThreadEndsATimedAdaptorReceive() throws Exception {
        DatagramChannel c = bound();
        DatagramSocket s = c.socket();
        s.setSoTimeout(600_000);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread thread = Thread.ofVirtual().start(() -> {
            try {
                s.receive(new DatagramPacket(new byte[8], 8));
                failure.complete(null);
            } catch (Throwable e) {
                failure.complete(e);
            }
        });
        awaitCondition(() -> thread.getState() == Thread.State.WAITING
                || thread.getState() == Thread.State.TIMED_WAITING);
        s.close();
        assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(SocketException.class)
                .hasMessage("Socket closed");
    }

    @Test
    void anInterruptEndsABlockedAdaptorReceiveAndClosesTheSocket() throws Exception {
        DatagramChannel c = bound();
        DatagramSocket s = c.socket();
        Blocked blocked = blockedOnAVirtualThread(() -> s.receive(new DatagramPacket(new byte[8], 8)));
        blocked.thread().interrupt();
        assertThat(blocked.failure().get(10, TimeUnit.SECONDS)).isInstanceOf(ClosedByInterruptException.class);
        assertThat(s.isClosed()).isTrue();
    }

    @Test
    void aSelectorReportsWritableAtOnceAndReadableWhileADatagramWaits() throws Exception {
        Selector selector = closing(provider().openSelector());
        DatagramChannel a = bound();
        DatagramChannel b = bound();
        a.configureBlocking(false);
        SelectionKey key = a.register(selector, SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        assertThat(selector.select(10_000)).isEqualTo(1);
        assertThat(key.readyOps()).isEqualTo(SelectionKey.OP_WRITE);
        selector.selectedKeys().clear();
        key.interestOps(SelectionKey.OP_READ);
        b.send(text("ping", false), a.getLocalAddress());
        assertThat(selector.select(10_000)).isEqualTo(1);
        assertThat(key.readyOps()).isEqualTo(SelectionKey.OP_READ);
        selector.selectedKeys().clear();
        assertThat(a.receive(ByteBuffer.allocate(8))).isEqualTo(b.getLocalAddress());
        assertThat(a.receive(ByteBuffer.allocate(8))).isNull();
        assertThat(selector.selectNow()).isZero();
    }

    @Test
    void anotherProvidersSelectorIsRefused() throws Exception {
        Selector foreign = closing(otherProvider().openSelector());
        DatagramChannel c = bound();
        c.configureBlocking(false);
        assertThatThrownBy(() -> c.register(foreign, SelectionKey.OP_READ))
                .isInstanceOf(IllegalSelectorException.class);
    }

    @Test
    void closeFromAnotherThreadEndsABlockedReceive() throws Exception {
        DatagramChannel c = bound();
        Blocked blocked = blockedOnAVirtualThread(() -> c.receive(ByteBuffer.allocate(8)));
        c.close();
        assertThat(blocked.failure().get(10, TimeUnit.SECONDS)).isInstanceOf(AsynchronousCloseException.class);
    }

    @Test
    void anInterruptEndsABlockedReceiveAndClosesTheChannel() throws Exception {
        DatagramChannel c = bound();
        Blocked blocked = blockedOnAVirtualThread(() -> c.receive(ByteBuffer.allocate(8)));
        blocked.thread().interrupt();
        assertThat(blocked.failure().get(10, TimeUnit.SECONDS)).isInstanceOf(ClosedByInterruptException.class);
        assertThat(c.isOpen()).isFalse();
    }

    @Test
    void aBlockedReceiveOnAPlatformThreadTakesTheNextDatagram() throws Exception {
        DatagramChannel a = bound();
        DatagramChannel b = bound();
        CompletableFuture<String> got = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                ByteBuffer into = ByteBuffer.allocate(16);
                a.receive(into);
                got.complete(text(into));
            } catch (Throwable e) {
                got.completeExceptionally(e);
            }
        });
        b.send(text("wake", false), a.getLocalAddress());
        assertThat(got.get(10, TimeUnit.SECONDS)).isEqualTo("wake");
    }

    @Test
    void openedAndClosedChannelsLeaveNoDescriptorBehind() throws Exception {
        leavesNoDescriptorBehind(this::openUseAndClose);
    }

    private void openUseAndClose() throws IOException {
        try (DatagramChannel c = provider().openDatagramChannel()) {
            c.bind(LOOPBACK);
            c.send(text("self", false), c.getLocalAddress());
            c.receive(ByteBuffer.allocate(4));
            c.configureBlocking(false);
            c.receive(ByteBuffer.allocate(4));
        }
    }
}
