package io.uring4j.net;

import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.MembershipKey;
import java.nio.channels.MulticastChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A datagram channel's multicast group memberships, kept as the JDK's DatagramChannel keeps them: one key per
 * group, interface and source; joining again what the channel has joined gives the same key; an any-source and a
 * source-specific membership of one group on one interface exclude each other; close invalidates every key (the
 * kernel leaves the groups with the socket). Each join, leave, block and unblock is one setsockopt of the
 * protocol-independent API (RFC 3678: {@code MCAST_JOIN_GROUP} and kin), which names the interface by index: at
 * IPv4's level for an IPv4 group — on a dual-stack socket too, where Linux takes IPv4's options — at IPv6's for an
 * IPv6 group. Those calls never block: they run on the caller's thread.
 */
final class Memberships {
    /** The socket options, {@code MCAST_} and the name, by their numbers in Linux's {@code in.h}. */
    private enum Option {
        JOIN_GROUP(42), BLOCK_SOURCE(43), UNBLOCK_SOURCE(44), LEAVE_GROUP(45), JOIN_SOURCE_GROUP(46),
        LEAVE_SOURCE_GROUP(47);

        final int number;

        Option(int number) {
            this.number = number;
        }
    }

    /**
     * {@code struct group_req}: the interface index (u32, padded to 8), then the group's {@code sockaddr_storage};
     * {@code struct group_source_req} adds the source's after it.
     */
    private static final long GROUP_OFFSET = 8;
    private static final long SOURCE_OFFSET = GROUP_OFFSET + Sockets.SOCKADDR_STORAGE_SIZE;
    private static final long GROUP_REQ_SIZE = SOURCE_OFFSET;
    private static final long GROUP_SOURCE_REQ_SIZE = SOURCE_OFFSET + Sockets.SOCKADDR_STORAGE_SIZE;

    private final MulticastChannel channel;
    private final int fd;
    private final boolean inet6;
    private final List<Key> keys = new ArrayList<>();

    Memberships(MulticastChannel channel, int fd, boolean inet6) {
        this.channel = channel;
        this.fd = fd;
        this.inet6 = inet6;
    }

    /** {@link MulticastChannel#join}, any-source when {@code source} is null; the JDK's checks, in its order. */
    synchronized MembershipKey join(InetAddress group, NetworkInterface interf, InetAddress source)
            throws IOException {
        Objects.requireNonNull(interf, "interf");
        if (!group.isMulticastAddress()) {
            throw new IllegalArgumentException("Group not a multicast address");
        }
        if (group instanceof Inet6Address && !inet6) {
            throw new IllegalArgumentException("Only IPv6 sockets can join IPv6 multicast group");
        }
        if (source != null) {
            checkSource(source, group);
        }
        if (!channel.isOpen()) {
            throw new ClosedChannelException();
        }
        Key existing = existing(group, interf, source);
        if (existing != null) {
            return existing;
        }
        int index = interf.getIndex();
        if (index == -1) {
            throw new IOException("Network interface cannot be identified");
        }
        if (group instanceof Inet4Address && !inet6
                && interf.inetAddresses().noneMatch(Inet4Address.class::isInstance)) {
            throw new IOException("Network interface not configured for IPv4");
        }
        Key key = new Key(group, interf, source);
        key.request(source == null ? Option.JOIN_GROUP : Option.JOIN_SOURCE_GROUP, source);
        keys.add(key);
        return key;
    }

    /** The channel's close: every key is invalid from now on (the kernel leaves the groups with the socket). */
    synchronized void invalidateAll() {
        for (Key key : keys) {
            key.valid = false;
        }
        keys.clear();
    }

    /**
     * The key for this group and interface: the same membership joined again, or an IllegalStateException for a
     * membership of the other kind; null if there is none.
     */
    private Key existing(InetAddress group, NetworkInterface interf, InetAddress source) {
        for (Key key : keys) {
            if (!key.group.equals(group) || !key.interf.equals(interf)) {
                continue;
            }
            if (source == null) {
                if (key.source == null) {
                    return key;
                }
                throw new IllegalStateException("Already a member to receive packets from a specific source");
            }
            if (key.source == null) {
                throw new IllegalStateException("Already a member to receive all packets");
            }
            if (key.source.equals(source)) {
                return key;
            }
        }
        return null;
    }

    private static void checkSource(InetAddress source, InetAddress group) {
        if (source.isAnyLocalAddress()) {
            throw new IllegalArgumentException("Source address is a wildcard address");
        }
        if (source.isMulticastAddress()) {
            throw new IllegalArgumentException("Source address is multicast address");
        }
        if (source.getClass() != group.getClass()) {
            throw new IllegalArgumentException("Source address is different type to group");
        }
    }

    /** One membership; its state is guarded by the registry's lock. */
    private final class Key extends MembershipKey {
        private final InetAddress group;
        private final NetworkInterface interf;
        private final InetAddress source;
        private final Set<InetAddress> blocked = new HashSet<>();
        private boolean valid = true;

        Key(InetAddress group, NetworkInterface interf, InetAddress source) {
            this.group = group;
            this.interf = interf;
            this.source = source;
        }

        @Override
        public boolean isValid() {
            synchronized (Memberships.this) {
                return valid;
            }
        }

        /** Leaves the group; as the JDK's, a leave the kernel refuses (the interface gone, say) still drops the key. */
        @Override
        public void drop() {
            synchronized (Memberships.this) {
                if (!valid) {
                    return;
                }
                try {
                    request(source == null ? Option.LEAVE_GROUP : Option.LEAVE_SOURCE_GROUP, source);
                } catch (IOException ignored) {
                    // the membership ends with the key either way
                }
                valid = false;
                keys.remove(this);
            }
        }

        @Override
        public MembershipKey block(InetAddress toBlock) throws IOException {
            if (source != null) {
                throw new IllegalStateException("key is source-specific");
            }
            synchronized (Memberships.this) {
                if (blocked.contains(toBlock)) {
                    return this;
                }
                if (!valid) {
                    throw new IllegalStateException("key is no longer valid");
                }
                checkSource(toBlock, group);
                request(Option.BLOCK_SOURCE, toBlock);
                blocked.add(toBlock);
            }
            return this;
        }

        @Override
        public MembershipKey unblock(InetAddress toUnblock) {
            synchronized (Memberships.this) {
                if (!blocked.contains(toUnblock)) {
                    throw new IllegalStateException("not blocked");
                }
                if (!valid) {
                    throw new IllegalStateException("key is no longer valid");
                }
                try {
                    request(Option.UNBLOCK_SOURCE, toUnblock);
                } catch (IOException e) {
                    throw new IllegalStateException("unblock " + toUnblock + ": " + e.getMessage(), e);
                }
                blocked.remove(toUnblock);
            }
            return this;
        }

        @Override
        public MulticastChannel channel() {
            return channel;
        }

        @Override
        public InetAddress group() {
            return group;
        }

        @Override
        public NetworkInterface networkInterface() {
            return interf;
        }

        @Override
        public InetAddress sourceAddress() {
            return source;
        }

        /** One setsockopt of {@code option} for this group on this interface, with {@code other} as the source. */
        private void request(Option option, InetAddress other) throws IOException {
            int level = group instanceof Inet4Address ? Sockets.IPPROTO_IP : ChannelSockets.IPPROTO_IPV6;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment req = arena.allocate(other == null ? GROUP_REQ_SIZE : GROUP_SOURCE_REQ_SIZE, 8);
                req.set(JAVA_INT, 0, interf.getIndex());
                SocketAddresses.write(new InetSocketAddress(group, 0), req.asSlice(GROUP_OFFSET));
                if (other != null) {
                    SocketAddresses.write(new InetSocketAddress(other, 0), req.asSlice(SOURCE_OFFSET));
                }
                int ret = Sockets.setsockopt(fd, level, option.number, req);
                if (ret < 0) {
                    String hint = ret == -Errno.ENOBUFS && option == Option.JOIN_GROUP
                            ? " (a socket joins at most net.ipv4.igmp_max_memberships IPv4 groups)" : "";
                    throw NetErrors.refusedOption("setsockopt(MCAST_" + option + ") " + this
                            + (other == null ? "" : " source " + other.getHostAddress()) + hint, ret);
                }
            }
        }

        /** As the JDK's: {@code <group,interface[,source]>}. */
        @Override
        public String toString() {
            return "<" + group.getHostAddress() + "," + interf.getName()
                    + (source == null ? "" : "," + source.getHostAddress()) + ">";
        }
    }
}
