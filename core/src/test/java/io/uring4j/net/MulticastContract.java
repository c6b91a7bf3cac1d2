package io.uring4j.net;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * DatagramChannel's multicast groups, run against the JDK's provider ({@link JdkMulticastTest}) and uring4j's
 * ({@link UringMulticastTest}) with the same code: joins, keys, source filters and IP_MULTICAST_IF. Datagrams go
 * out with a TTL (hop limit) of 0: IP_MULTICAST_LOOP hands them to this host's sockets and none leaves the machine.
 * A datagram that must not arrive is checked by order: a unicast marker sent after it, on the same path through
 * the loopback, must be the next one received.
 */
abstract class MulticastContract extends ClosesAfterEach {
    private static final InetAddress GROUP4 = address("239.255.77.1");
    private static final InetAddress GROUP4_OTHER = address("239.255.77.2");
    private static final InetAddress GROUP6 = address("ff15::77:1");

    abstract SelectorProvider provider();

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An interface that is up, multicast-capable and has an address of {@code type}; the test is skipped without. */
    private static NetworkInterface multicastInterface(Class<? extends InetAddress> type) throws SocketException {
        Optional<NetworkInterface> found = NetworkInterface.networkInterfaces().filter(ni -> {
            try {
                return ni.isUp() && ni.supportsMulticast() && ni.inetAddresses().anyMatch(type::isInstance);
            } catch (SocketException e) {
                return false;
            }
        }).findFirst();
        assumeTrue(found.isPresent(), "no interface here is up, multicast-capable and has an "
                + type.getSimpleName() + " address");
        return found.orElseThrow();
    }

    /** A receiver on the wildcard address, any free port. */
    private DatagramChannel receiver(ProtocolFamily family) throws IOException {
        DatagramChannel c = closing(provider().openDatagramChannel(family));
        c.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        c.bind(new InetSocketAddress(0));
        c.configureBlocking(false);
        return c;
    }

    /** A sender whose multicast goes out on {@code interf} to this host only. */
    private DatagramChannel sender(ProtocolFamily family, NetworkInterface interf) throws IOException {
        DatagramChannel c = closing(provider().openDatagramChannel(family));
        c.setOption(StandardSocketOptions.IP_MULTICAST_IF, interf);
        c.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 0);
        c.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
        return c;
    }

    private static void send(DatagramChannel from, String text, InetAddress to, DatagramChannel receiver)
            throws IOException {
        int port = ((InetSocketAddress) receiver.getLocalAddress()).getPort();
        from.send(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)), new InetSocketAddress(to, port));
    }

    /** The next datagram's sender and text (waited for: the bound only turns a loss into a failure). */
    private static Received next(DatagramChannel receiver) throws Exception {
        ByteBuffer into = ByteBuffer.allocate(256);
        SocketAddress[] sender = new SocketAddress[1];
        awaitCondition(() -> {
            try {
                sender[0] = receiver.receive(into);
                return sender[0] != null;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        return new Received((InetSocketAddress) sender[0], new String(into.array(), 0, into.position(),
                StandardCharsets.UTF_8));
    }

    private record Received(InetSocketAddress sender, String text) {
    }

    @Test
    void aJoinedChannelReceivesTheGroupsDatagramsUntilItsKeyIsDropped() throws Exception {
        NetworkInterface interf = multicastInterface(Inet4Address.class);
        for (ProtocolFamily family : new ProtocolFamily[] {StandardProtocolFamily.INET6, StandardProtocolFamily.INET}) {
            DatagramChannel receiver = receiver(family);
            DatagramChannel sender = sender(StandardProtocolFamily.INET, interf);
            MembershipKey key = receiver.join(GROUP4, interf);
            send(sender, "to the group", GROUP4, receiver);
            Received got = next(receiver);
            assertThat(got.text()).as(family.toString()).isEqualTo("to the group");
            assertThat(interf.inetAddresses().toList()).contains(got.sender().getAddress());
            key.drop();
            send(sender, "after the drop", GROUP4, receiver);
            send(sender, "marker", InetAddress.getLoopbackAddress(), receiver);
            assertThat(next(receiver).text()).as(family.toString()).isEqualTo("marker");
        }
    }

    @Test
    void anIpv6GroupIsJoinedAndHeard() throws Exception {
        NetworkInterface interf = multicastInterface(Inet6Address.class);
        DatagramChannel receiver = receiver(StandardProtocolFamily.INET6);
        DatagramChannel sender = sender(StandardProtocolFamily.INET6, interf);
        MembershipKey key = receiver.join(GROUP6, interf);
        send(sender, "to the v6 group", GROUP6, receiver);
        assertThat(next(receiver).text()).isEqualTo("to the v6 group");
        assertThat(key.group()).isEqualTo(GROUP6);
        assertThatThrownBy(() -> receiver(StandardProtocolFamily.INET).join(GROUP6, interf))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** An IPv4 receiver joined to {@link #GROUP4}, a sender, and the source its datagrams are seen to come from. */
    private record Joined(NetworkInterface interf, DatagramChannel receiver, DatagramChannel sender, MembershipKey key,
                          InetAddress source) {
    }

    private Joined joinedToGroup4() throws Exception {
        NetworkInterface interf = multicastInterface(Inet4Address.class);
        DatagramChannel receiver = receiver(StandardProtocolFamily.INET);
        DatagramChannel sender = sender(StandardProtocolFamily.INET, interf);
        MembershipKey key = receiver.join(GROUP4, interf);
        send(sender, "who", GROUP4, receiver);
        return new Joined(interf, receiver, sender, key, next(receiver).sender().getAddress());
    }

    @Test
    void aBlockedSourceIsNotHeardUntilUnblocked() throws Exception {
        Joined joined = joinedToGroup4();
        DatagramChannel receiver = joined.receiver();
        DatagramChannel sender = joined.sender();
        MembershipKey key = joined.key();
        InetAddress source = joined.source();
        assertThat(key.block(source)).isSameAs(key);
        assertThat(key.block(source)).isSameAs(key);
        send(sender, "blocked", GROUP4, receiver);
        send(sender, "marker", InetAddress.getLoopbackAddress(), receiver);
        assertThat(next(receiver).text()).isEqualTo("marker");
        key.unblock(source);
        send(sender, "unblocked", GROUP4, receiver);
        assertThat(next(receiver).text()).isEqualTo("unblocked");
        assertThatThrownBy(() -> key.unblock(source)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> key.block(InetAddress.getByName("0.0.0.0")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> key.block(GROUP4_OTHER)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> key.block(InetAddress.getByName("::1"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSourceSpecificMembershipHearsItsSourceOnly() throws Exception {
        Joined joined = joinedToGroup4();
        NetworkInterface interf = joined.interf();
        DatagramChannel receiver = joined.receiver();
        DatagramChannel sender = joined.sender();
        InetAddress source = joined.source();
        joined.key().drop();

        MembershipKey key = receiver.join(GROUP4_OTHER, interf, source);
        assertThat(key.sourceAddress()).isEqualTo(source);
        assertThat(receiver.join(GROUP4_OTHER, interf, source)).isSameAs(key);
        send(sender, "from the source", GROUP4_OTHER, receiver);
        assertThat(next(receiver).text()).isEqualTo("from the source");
        assertThatThrownBy(() -> receiver.join(GROUP4_OTHER, interf)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> key.block(source)).isInstanceOf(IllegalStateException.class);
        MembershipKey other = receiver.join(GROUP4_OTHER, interf, InetAddress.getByName("192.0.2.200"));
        assertThat(other).isNotSameAs(key);
        assertThatThrownBy(() -> receiver.join(GROUP4_OTHER, interf, InetAddress.getByName("0.0.0.0")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> receiver.join(GROUP4_OTHER, interf, GROUP4))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysAreKeptAndInvalidatedAsTheJdksAre() throws Exception {
        NetworkInterface interf = multicastInterface(Inet4Address.class);
        DatagramChannel receiver = receiver(StandardProtocolFamily.INET6);
        MembershipKey key = receiver.join(GROUP4, interf);
        assertThat(receiver.join(GROUP4, interf)).isSameAs(key);
        assertThat(key.isValid()).isTrue();
        assertThat(key.channel()).isSameAs(receiver);
        assertThat(key.group()).isEqualTo(GROUP4);
        assertThat(key.networkInterface()).isEqualTo(interf);
        assertThat(key.sourceAddress()).isNull();
        assertThat(key).hasToString("<239.255.77.1," + interf.getName() + ">");
        key.drop();
        assertThat(key.isValid()).isFalse();
        key.drop();
        assertThatThrownBy(() -> key.block(InetAddress.getByName("192.0.2.200")))
                .isInstanceOf(IllegalStateException.class);
        MembershipKey again = receiver.join(GROUP4, interf);
        assertThat(again).isNotSameAs(key);
        assertThatThrownBy(() -> receiver.join(InetAddress.getLoopbackAddress(), interf))
                .isInstanceOf(IllegalArgumentException.class);
        receiver.close();
        assertThat(again.isValid()).isFalse();
        assertThatThrownBy(() -> receiver.join(GROUP4, interf)).isInstanceOf(ClosedChannelException.class);
    }

    /**
     * A join the kernel refuses is a SocketException in the errno's words, as the JDK's: past the
     * {@code net.ipv4.igmp_max_memberships} IPv4 groups a socket may join (20 by default), ENOBUFS. The refused
     * group gets no key; the keys of the others stay valid.
     */
    @Test
    void aJoinPastTheKernelsLimitIsRefusedWithASocketException() throws Exception {
        NetworkInterface interf = multicastInterface(Inet4Address.class);
        // readAllLines, not readString: a sysctl file reads as EOF past its first read, which readString makes 1 byte
        int limit = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/igmp_max_memberships")).getFirst());
        assumeTrue(limit < 250, "igmp_max_memberships is " + limit + ": too many groups to join here");
        DatagramChannel receiver = receiver(StandardProtocolFamily.INET);
        List<MembershipKey> keys = new ArrayList<>();
        for (int i = 1; i <= limit; i++) {
            keys.add(receiver.join(InetAddress.getByName("239.255.78." + i), interf));
        }
        InetAddress oneTooMany = InetAddress.getByName("239.255.78." + (limit + 1));
        assertThatThrownBy(() -> receiver.join(oneTooMany, interf))
                .isExactlyInstanceOf(SocketException.class)
                .hasMessageStartingWith("No buffer space available");
        assertThat(keys).allMatch(MembershipKey::isValid);
        keys.getFirst().drop();
        assertThat(receiver.join(oneTooMany, interf).isValid()).isTrue();
    }

    @Test
    void theMulticastInterfaceIsUnsetUntilSetAndReadBack() throws Exception {
        NetworkInterface interf = multicastInterface(Inet4Address.class);
        for (ProtocolFamily family : new ProtocolFamily[] {StandardProtocolFamily.INET6, StandardProtocolFamily.INET}) {
            DatagramChannel c = closing(provider().openDatagramChannel(family));
            assertThat(c.supportedOptions()).contains(StandardSocketOptions.IP_MULTICAST_IF);
            assertThat(c.getOption(StandardSocketOptions.IP_MULTICAST_IF)).as(family.toString()).isNull();
            c.setOption(StandardSocketOptions.IP_MULTICAST_IF, interf);
            assertThat(c.getOption(StandardSocketOptions.IP_MULTICAST_IF)).as(family.toString()).isEqualTo(interf);
            c.close();
            assertThatThrownBy(() -> c.setOption(StandardSocketOptions.IP_MULTICAST_IF, interf))
                    .isInstanceOf(ClosedChannelException.class);
        }
    }
}
