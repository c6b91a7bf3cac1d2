package io.uring4j.net;

import io.uring4j.runtime.ChainResult;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.PortUnreachableException;
import java.net.ProtocolFamily;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.MembershipKey;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.spi.SelectorProvider;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code DatagramChannel.open()} under {@link UringSelectorProvider}: a UDP socket (dual-stack for INET6, as the
 * JDK's; AF_INET for INET) whose blocking receives and sends are RECVMSG and SENDMSG requests on the runtime's
 * loop (a virtual thread parks) and whose non-blocking ones are recvmsg and sendmsg system calls; it registers
 * with a {@code UringSelector}.
 *
 * <p>As the JDK's: a receive into a buffer smaller than the datagram keeps what fits and drops the rest; a
 * receive or send on an unbound channel binds it to an ephemeral port first; a connected channel receives only
 * from its peer, an ICMP port-unreachable on it is a {@link PortUnreachableException} (and is ignored while not
 * connected); a send to another address than the connected peer is an {@link AlreadyConnectedException}; a
 * wildcard destination is the loopback address. Every datagram goes through the channel's own native memory (a
 * 64 KiB chunk each way), which a request in flight keeps reachable until its final completion. {@link #socket()}
 * is the JDK's adaptor ({@link DatagramSocketAdaptor}). Multicast groups are joined as the JDK's channel joins them
 * ({@link Memberships}).
 */
final class UringDatagramChannel extends DatagramChannel implements InterruptibleIo.Interruptible {
    private static final int CHUNK = HeapStaging.CHUNK;
    /** What {@link #receiveOne} returns when a timed receive's wait passed (WOULD_BLOCK is non-blocking mode's). */
    private static final int TIMED_OUT = NonBlockingCalls.WOULD_BLOCK + 1;

    private final EventLoop loop;
    private final int fd;
    private final boolean inet6;
    private final FdGuard guard;
    private final SelectorLink link;
    private final Memberships memberships;
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    /** The read side's msghdr over its own 64 KiB chunk, reused under readLock. */
    private final MessageOp receiver;
    private final MemorySegment received;
    /** The write side's, under writeLock. */
    private final MessageOp sender;
    private final MemorySegment toSend;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;
    private DatagramSocket adaptor;

    private UringDatagramChannel(SelectorProvider provider, EventLoop loop, int fd, boolean inet6) {
        super(provider);
        this.loop = loop;
        this.fd = fd;
        this.inet6 = inet6;
        this.guard = new FdGuard(loop, fd);
        this.link = new SelectorLink(this, guard);
        this.memberships = new Memberships(this, fd, inet6);
        Arena arena = Arena.ofAuto();
        this.received = arena.allocate(CHUNK, 8);
        this.toSend = arena.allocate(CHUNK, 8);
        this.receiver = NetOps.recvmsg(fd, received);
        this.sender = NetOps.sendmsg(fd, toSend, null);
    }

    /** A datagram channel of {@code family}: INET6 (dual-stack) or INET; UNIX is not offered, as in the JDK. */
    static UringDatagramChannel open(SelectorProvider provider, Uring uring, ProtocolFamily family)
            throws IOException {
        Objects.requireNonNull(family);
        if (family != StandardProtocolFamily.INET && family != StandardProtocolFamily.INET6) {
            throw new UnsupportedOperationException("Protocol family not supported");
        }
        ChannelSockets.requireAvailable(family);
        boolean inet6 = family == StandardProtocolFamily.INET6;
        int domain = inet6 ? Sockets.AF_INET6 : Sockets.AF_INET;
        int fd = Sockets.socket(domain, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw NetErrors.of("socket", fd);
        }
        try {
            if (inet6) {
                SocketOptions.set(fd, ChannelSockets.IPPROTO_IPV6, ChannelSockets.IPV6_V6ONLY, 0, "IPV6_V6ONLY");
            }
        } catch (IOException e) {
            LibC.close(fd);
            throw e;
        }
        return new UringDatagramChannel(provider, uring.loop(), fd, inet6);
    }

    /**
     * A datagram socket the process was started with ({@link InheritedChannels}): bound unless its port is 0,
     * connected to {@code remote} if not null; {@code afterClose} once closed.
     */
    static UringDatagramChannel inherited(SelectorProvider provider, Uring uring, int fd, boolean inet6,
                                          InetSocketAddress remote, Runnable afterClose) throws IOException {
        UringDatagramChannel channel = new UringDatagramChannel(provider, uring.loop(), fd, inet6);
        InetSocketAddress local = (InetSocketAddress) ChannelSockets.name(fd, true);
        channel.local = local.getPort() == 0 ? null : local;
        channel.remote = remote;
        channel.link.afterClose(afterClose);
        return channel;
    }

    @Override
    public DatagramChannel bind(SocketAddress address) throws IOException {
        changeState(() -> {
            ensureOpen();
            if (local != null) {
                throw new AlreadyBoundException();
            }
            bindTo(address == null ? ChannelSockets.WILDCARD : check(address));
        });
        return this;
    }

    private void bindTo(InetSocketAddress address) throws IOException {
        int ret = withSockaddr(address, Sockets::bind);
        if (ret < 0) {
            throw NetErrors.of("bind " + address, ret);
        }
        local = (InetSocketAddress) ChannelSockets.name(fd, true);
    }

    /** {@code call} (bind or connect) with the sockaddr of {@code address}: 0 or {@code -errno}. */
    private int withSockaddr(InetSocketAddress address, AddressCall call) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SocketAddresses.SOCKADDR_IN6_SIZE, 8);
            return call.on(fd, sa.asSlice(0, sockaddr(address, sa)));
        }
    }

    @FunctionalInterface
    private interface AddressCall {
        int on(int fd, MemorySegment sockaddr);
    }

    /** As the JDK's: a receive or send on an unbound channel binds it first (the kernel would, unseen). */
    private void ensureBound() throws IOException {
        if (local == null) {
            synchronized (this) {
                if (local == null) {
                    bindTo(ChannelSockets.WILDCARD);
                }
            }
        }
    }

    @Override
    public DatagramChannel connect(SocketAddress address) throws IOException {
        changeState(() -> {
            ensureOpen();
            if (remote != null) {
                throw new AlreadyConnectedException();
            }
            InetSocketAddress peer = (InetSocketAddress) ChannelSockets.peer(check(address));
            int ret = withSockaddr(peer, Sockets::connect);
            if (ret < 0) {
                throw NetErrors.of("connect " + peer, ret);
            }
            local = (InetSocketAddress) ChannelSockets.name(fd, true);
            remote = peer;
        });
        return this;
    }

    /**
     * connect(AF_UNSPEC) dissolves the association; the local address stays, as with the JDK's (which binds it
     * again where the kernel let an ephemeral port go).
     */
    @Override
    public DatagramChannel disconnect() throws IOException {
        changeState(() -> {
            if (!isOpen() || remote == null) {
                return;
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment unspec = arena.allocate(SocketAddresses.SOCKADDR_IN6_SIZE, 8);
                int ret = Sockets.connect(fd, unspec.asSlice(0, inet6 ? SocketAddresses.SOCKADDR_IN6_SIZE
                        : Sockets.SOCKADDR_IN_SIZE));
                if (ret < 0) {
                    throw NetErrors.of("disconnect", ret);
                }
            }
            remote = null;
            InetSocketAddress before = local;
            local = (InetSocketAddress) ChannelSockets.name(fd, true);
            if (local.getPort() != before.getPort()) {
                bindTo(before);     // Linux unbinds an ephemeral port on disconnect: take it back, as the JDK
            }
        });
        return this;
    }

    @Override
    public boolean isConnected() {
        return remote != null;
    }

    @Override
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        readLock.lock();
        try {
            ensureOpen();
            ensureBound();
            int n = receiveOne(0);
            if (n == NonBlockingCalls.WOULD_BLOCK) {
                return null;
            }
            dst.put(received.asSlice(0, Math.min(n, dst.remaining())).asByteBuffer());
            InetSocketAddress from = receiver.sender();
            return from != null ? from : remote;
        } finally {
            readLock.unlock();
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return (int) read(new ByteBuffer[] {Objects.requireNonNull(dst)}, 0, 1);
    }

    /** One datagram spread over the buffers in order, what does not fit dropped; 0 if none is there (non-blocking). */
    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        long room = 0;
        for (int i = offset; i < offset + length; i++) {
            if (dsts[i].isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer");
            }
            room += dsts[i].remaining();
        }
        readLock.lock();
        try {
            ensureConnected();
            int n = receiveOne(0);
            if (n == NonBlockingCalls.WOULD_BLOCK) {
                return 0;
            }
            int kept = (int) Math.min(n, room);
            HeapStaging.scatter(received, kept, dsts, offset);
            return kept;
        } finally {
            readLock.unlock();
        }
    }

    /**
     * The socket adaptor's receive ({@link DatagramSocketAdaptor#receive}), as the JDK's: blocking mode only
     * (IllegalBlockingModeException), the unbound channel not bound; one datagram into {@code dst}, what does not
     * fit dropped; a positive {@code timeoutMillis} bounds the wait (SocketTimeoutException, the channel still
     * open). Returns the sender.
     */
    InetSocketAddress receive(ByteBuffer dst, int timeoutMillis) throws IOException {
        readLock.lock();
        try {
            ensureOpen();
            if (!isBlocking()) {
                throw new IllegalBlockingModeException();
            }
            int n = receiveOne(timeoutMillis);
            if (n == TIMED_OUT) {
                throw new SocketTimeoutException("Receive timed out");
            }
            dst.put(received.asSlice(0, Math.min(n, dst.remaining())).asByteBuffer());
            InetSocketAddress from = receiver.sender();
            return from != null ? from : remote;
        } finally {
            readLock.unlock();
        }
    }

    /**
     * Receives one datagram into {@link #received}: its length, WOULD_BLOCK in non-blocking mode, or TIMED_OUT once
     * a positive {@code timeoutMillis} passed in blocking mode.
     */
    private int receiveOne(int timeoutMillis) throws IOException {
        boolean timed = timeoutMillis > 0;
        long deadline = timed ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
        while (true) {
            receiver.aim(CHUNK, SocketAddresses.SOCKADDR_IN6_SIZE);
            int n;
            if (isBlocking()) {
                try {
                    n = (int) InterruptibleIo.call(this, () -> receiveBlocking(timed, deadline),
                            e -> e.errno() == Errno.ECONNREFUSED ? unreachable(e) : failure("recvmsg", e));
                } catch (PortUnreachableException e) {
                    if (remote == null) {
                        continue;                       // an earlier send's ICMP error: not this receive's
                    }
                    throw e;
                }
            } else {
                n = NonBlockingCalls.recvmsg(link, receiver.header());
                if (n == -Errno.ECONNREFUSED) {
                    if (remote == null) {
                        continue;
                    }
                    throw unreachable(new ErrnoException("recvmsg", n));
                }
                if (n < 0 && n != NonBlockingCalls.WOULD_BLOCK) {
                    throw failure("recvmsg", new ErrnoException("recvmsg", n));
                }
            }
            return n;
        }
    }

    /**
     * One RECVMSG request, with a link timeout if there is a deadline. A timeout is returned as TIMED_OUT, not
     * thrown: SocketTimeoutException is an InterruptedIOException, which InterruptibleIo takes for an interrupt.
     */
    private long receiveBlocking(boolean timed, long deadline) throws IOException {
        if (!timed) {
            return loop.call(receiver, guard, false);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return TIMED_OUT;
        }
        ChainResult r = loop.chain(receiver).timeout(Duration.ofNanos(left)).guardedBy(guard).call();
        if (NetErrors.timedOut(r)) {
            return TIMED_OUT;         // the cancelled receive took nothing: a datagram arriving now stays queued
        }
        if (r.result(0) < 0) {
            throw new ErrnoException("recvmsg", r.result(0));
        }
        return r.result(0);
    }

    @Override
    public int send(ByteBuffer src, SocketAddress target) throws IOException {
        Objects.requireNonNull(src);
        InetSocketAddress to = (InetSocketAddress) ChannelSockets.peer(check(target));
        writeLock.lock();
        try {
            ensureOpen();
            InetSocketAddress peer = remote;
            if (peer != null) {
                if (!peer.equals(to)) {
                    throw new AlreadyConnectedException();
                }
                return sendOne(src, 0);
            }
            if (to.getPort() == 0) {
                throw new SocketException("Can't send to port 0");     // the JDK's words; the kernel's EINVAL else
            }
            ensureBound();
            return sendOne(src, sockaddr(to, sender.name()));
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src);
        writeLock.lock();
        try {
            ensureConnected();
            return sendOne(src, 0);
        } finally {
            writeLock.unlock();
        }
    }

    /** The buffers' bytes as one datagram. */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            total += srcs[i].remaining();
        }
        writeLock.lock();
        try {
            ensureConnected();
            if (total > CHUNK) {
                throw tooLong();                        // all of them go as one datagram, or nothing does
            }
            int n = sendCopied(HeapStaging.gather(srcs, offset, length, toSend), 0);
            HeapStaging.advance(srcs, offset, n);
            return n;
        } finally {
            writeLock.unlock();
        }
    }

    /** Sends {@code src} as one datagram to the sockaddr at {@code sender.name()} (0: the connected peer). */
    private int sendOne(ByteBuffer src, int nameLength) throws IOException {
        int length = src.remaining();
        if (length > CHUNK) {
            throw tooLong();
        }
        MemorySegment.copy(MemorySegment.ofBuffer(src), 0, toSend, 0, length);
        int n = sendCopied(length, nameLength);
        src.position(src.position() + n);
        return n;
    }

    /** Sends the first {@code length} bytes of {@link #toSend} as one datagram: its length, or 0 (no room). */
    private int sendCopied(int length, int nameLength) throws IOException {
        sender.aim(length, nameLength);
        int n;
        if (isBlocking()) {
            n = (int) InterruptibleIo.call(this, () -> loop.call(sender, guard, false),
                    e -> e.errno() == Errno.ECONNREFUSED && remote != null ? unreachable(e) : failure("sendmsg", e));
        } else {
            n = NonBlockingCalls.sendmsg(link, sender.header());
            if (n == NonBlockingCalls.WOULD_BLOCK) {
                return 0;
            }
            if (n < 0) {
                ErrnoException e = new ErrnoException("sendmsg", n);
                throw n == -Errno.ECONNREFUSED && remote != null ? unreachable(e) : failure("sendmsg", e);
            }
        }
        return n;
    }

    /** The sockaddr for {@code address} on this channel's socket; returns its length. */
    private int sockaddr(InetSocketAddress address, MemorySegment into) {
        return ChannelSockets.sockaddr(address, inet6 ? Sockets.AF_INET6 : Sockets.AF_INET, into);
    }

    private static InetSocketAddress check(SocketAddress address) {
        return ChannelSockets.check(Objects.requireNonNull(address));
    }

    private static IOException tooLong() {
        return NetErrors.transfer("sendmsg", new ErrnoException("sendmsg", -Errno.EMSGSIZE));
    }

    private static IOException unreachable(ErrnoException e) {
        return (IOException) new PortUnreachableException("ICMP Port Unreachable").initCause(e);
    }

    private static IOException failure(String what, ErrnoException e) {
        return NetErrors.transfer(what, e);
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return local;
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        ensureOpen();
        return remote;
    }

    @Override
    public <T> DatagramChannel setOption(SocketOption<T> name, T value) throws IOException {
        DatagramOptions.set(this, fd, inet6, name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return DatagramOptions.get(this, fd, inet6, name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return DatagramOptions.SUPPORTED;
    }

    /** A DatagramSocket whose every method is this channel's, as the JDK's adaptor ({@link DatagramSocketAdaptor}). */
    @Override
    public synchronized DatagramSocket socket() {
        if (adaptor == null) {
            adaptor = DatagramSocketAdaptor.of(this);
        }
        return adaptor;
    }

    @Override
    public MembershipKey join(InetAddress group, NetworkInterface interf) throws IOException {
        return memberships.join(group, interf, null);
    }

    @Override
    public MembershipKey join(InetAddress group, NetworkInterface interf, InetAddress source) throws IOException {
        return memberships.join(group, interf, Objects.requireNonNull(source, "source"));
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        memberships.invalidateAll();
        link.close(loop, false);
    }

    /** Sets O_NONBLOCK (non-blocking mode's calls are system calls); waits for calls in progress first. */
    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        changeState(() -> link.blocking(block));
    }

    /** A state change (binding, association, blocking mode) with no receive or send in progress, as the JDK's. */
    private void changeState(StateChange change) throws IOException {
        readLock.lock();
        try {
            writeLock.lock();
            try {
                synchronized (this) {
                    change.run();
                }
            } finally {
                writeLock.unlock();
            }
        } finally {
            readLock.unlock();
        }
    }

    @FunctionalInterface
    private interface StateChange {
        void run() throws IOException;
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
        return link;
    }

    private void ensureOpen() throws ClosedChannelException {
        ChannelSockets.ensureOpen(this);
    }

    /** read and write need a peer: NotYetConnectedException without one, as the JDK's. */
    private void ensureConnected() throws ClosedChannelException {
        ensureOpen();
        if (remote == null) {
            throw new NotYetConnectedException();
        }
    }
}
