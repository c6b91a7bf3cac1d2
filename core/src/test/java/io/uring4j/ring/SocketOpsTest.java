package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.uring4j.ring.Reap.only;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The socket-management opcodes, after liburing socket.c, bind-listen.c, connect.c, shutdown.c, poll.c and
 * socket-getsetsock-cmd.c / socket-io-cmd.c: SOCKET (plain and direct), BIND and LISTEN (6.11), CONNECT,
 * SHUTDOWN, POLL_ADD on sockets, and the socket URING_CMDs (SIOCINQ, SIOCOUTQ, GETSOCKOPT, SETSOCKOPT).
 */
@BothEngines
class SocketOpsTest {
    /** {@code SOCKET_URING_OP_*}: the socket URING_CMD sub-commands. */
    private static final int SIOCINQ = 0;
    private static final int SIOCOUTQ = 1;
    private static final int GETSOCKOPT = 2;
    private static final int SETSOCKOPT = 3;

    private static int intOption(int fd, int level, int name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(JAVA_INT);
            assertThat(Sockets.getsockopt(fd, level, name, value)).isEqualTo(4);
            return value.get(JAVA_INT, 0);
        }
    }

    // ---- SOCKET ------------------------------------------------------------------------------------------

    @Test
    void socketOpcodeReturnsASocketOfTheRequestedType() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.SOCKET);
            ring.sq().next().prepSocket(Sockets.AF_INET, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0).userData(1);
            ring.sq().next().prepSocket(Sockets.AF_INET, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0).userData(2);
            ring.sq().next().prepSocket(12345, Sockets.SOCK_STREAM, 0).userData(3);

            List<Completion> cqes = submitAndReap(ring, 3);

            int tcp = net.track(only(cqes, 1).res());
            int udp = net.track(only(cqes, 2).res());
            assertThat(intOption(tcp, Sockets.SOL_SOCKET, Sockets.SO_TYPE)).isEqualTo(Sockets.SOCK_STREAM);
            assertThat(intOption(udp, Sockets.SOL_SOCKET, Sockets.SO_TYPE)).isEqualTo(Sockets.SOCK_DGRAM);
            assertThat(only(cqes, 3).res()).isEqualTo(-Errno.EAFNOSUPPORT);
        }
    }

    @Test
    void socketDirectFillsRegisteredSlots() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.SOCKET);
            ring.register().filesSparse(4);
            ring.sq().next().prepSocketDirect(Sockets.AF_INET, Sockets.SOCK_STREAM, 0, 2).userData(1);
            ring.sq().next().prepSocketDirect(Sockets.AF_INET, Sockets.SOCK_STREAM, 0, OpFlags.FileIndex.ALLOC)
                    .userData(2);
            // Direct descriptors have no close-on-exec flag to set: asking for one is an error.
            ring.sq().next().prepSocketDirect(Sockets.AF_INET, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0, 3)
                    .userData(3);

            List<Completion> cqes = submitAndReap(ring, 3);

            assertThat(only(cqes, 1).res()).as("explicit slot").isZero();
            assertThat(only(cqes, 2).res()).as("allocated slot").isIn(0, 1, 3);
            assertThat(only(cqes, 3).res()).isEqualTo(-Errno.EINVAL);
        }
    }

    // ---- BIND, LISTEN, CONNECT -----------------------------------------------------------------------

    @Test
    void bindAndListenOpcodesMakeAListener() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.BIND, Opcode.LISTEN);
            int listener = net.tcpSocket(0);
            ring.sq().next().prepBind(listener, net.loopback(0)).link().userData(1);
            ring.sq().next().prepListen(listener, 8).userData(2);

            List<Completion> cqes = submitAndReap(ring, 2);

            assertThat(cqes).extracting(Completion::userData).containsExactly(1L, 2L);
            assertThat(cqes).allSatisfy(c -> assertThat(c.res()).as("%s", c).isZero());
            int port = NetFixture.port(listener);
            int client = net.connect(listener);
            int server = net.track(Sockets.accept4(listener, Sockets.SOCK_CLOEXEC));
            assertThat(Sockets.localPort(server)).isEqualTo(port);
            net.assertCarries(client, server, "up");

            // The same address again is taken.
            int second = net.tcpSocket(0);
            ring.sq().next().prepBind(second, net.loopback(port)).userData(3);
            assertThat(submitAndReap(ring).res()).isEqualTo(-Errno.EADDRINUSE);
        }
    }

    @Test
    void socketBindListenChainOnADirectDescriptor() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.SOCKET, Opcode.BIND, Opcode.LISTEN, Opcode.FIXED_FD_INSTALL, Opcode.ACCEPT);
            ring.register().filesSparse(1);
            // As bind-listen.c: the socket exists only as slot 0, so the whole setup is one linked chain.
            ring.sq().next().prepSocketDirect(Sockets.AF_INET, Sockets.SOCK_STREAM, 0, 0).link().userData(1);
            ring.sq().next().prepBind(0, net.loopback(0)).addFlags(SqeFlags.FIXED_FILE).link().userData(2);
            ring.sq().next().prepListen(0, 8).addFlags(SqeFlags.FIXED_FILE).userData(3);

            List<Completion> chain = submitAndReap(ring, 3);

            assertThat(chain).extracting(Completion::userData).containsExactly(1L, 2L, 3L);
            assertThat(chain).allSatisfy(c -> assertThat(c.res()).as("%s", c).isZero());

            // A regular fd for the slot tells us the port; then a client can connect and ACCEPT (fixed) takes it.
            ring.sq().next().prepFixedFdInstall(0, 0).userData(4);
            int installed = net.track(submitAndReap(ring).res());
            int client = net.connect(installed);
            ring.sq().next().prepAccept(0, MemorySegment.NULL, MemorySegment.NULL, Sockets.SOCK_CLOEXEC)
                    .addFlags(SqeFlags.FIXED_FILE).userData(5);
            int server = net.track(submitAndReap(ring).res());
            net.assertCarries(server, client, "hi");
        }
    }

    @Test
    void connectOpcodeConnectsOrIsRefused() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            int listener = net.tcpListener();
            int client = net.tcpSocket(0);
            ring.sq().next().prepConnect(client, net.loopback(NetFixture.port(listener))).userData(1);
            assertThat(submitAndReap(ring).res()).isZero();
            int server = net.track(Sockets.accept4(listener, Sockets.SOCK_CLOEXEC));
            net.assertCarries(client, server, "abc");

            // Bound but not listening: loopback refuses at once.
            int closedPort = net.tcpSocket(0);
            assertThat(Sockets.bind(closedPort, net.loopback(0))).isZero();
            int refused = net.tcpSocket(Sockets.SOCK_NONBLOCK);
            ring.sq().next().prepConnect(refused, net.loopback(NetFixture.port(closedPort))).userData(2);
            assertThat(submitAndReap(ring).res()).isEqualTo(-Errno.ECONNREFUSED);
        }
    }

    // ---- SHUTDOWN and POLL ---------------------------------------------------------------------------

    @Test
    void shutdownForWritingIsEofForThePeerOnly() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.SHUTDOWN);
            int[] tcp = net.tcpPair();
            int client = tcp[0];
            int server = tcp[1];
            MemorySegment in = arena.allocate(16);

            ring.sq().next().prepShutdown(client, Sockets.SHUT_WR).link().userData(1);
            ring.sq().next().prepRecv(server, in, 0).userData(2);
            List<Completion> cqes = submitAndReap(ring, 2);

            assertThat(only(cqes, 1).res()).isZero();
            assertThat(only(cqes, 2).res()).as("recv after the peer's SHUT_WR: EOF").isZero();
            // The other direction still works.
            net.assertCarries(server, client, "still here");

            try (Pipe pipe = Pipe.open()) {
                ring.sq().next().prepShutdown(pipe.readFd(), Sockets.SHUT_RDWR).userData(3);
                assertThat(submitAndReap(ring).res()).isEqualTo(-Errno.ENOTSOCK);
            }
        }
    }

    @Test
    void pollOnASocketReportsReadableWritableAndHangup() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            int[] tcp = net.tcpPair();
            int client = tcp[0];
            int server = tcp[1];

            // A fresh connection can be written to at once.
            ring.sq().next().prepPollAdd(client, OpFlags.Poll.POLLOUT).userData(1);
            assertThat(submitAndReap(ring).res() & OpFlags.Poll.POLLOUT).isNotZero();

            // Nothing to read yet: the poll waits until the peer writes.
            ring.sq().next().prepPollAdd(server, OpFlags.Poll.POLLIN).userData(2);
            ring.submit();
            assertThat(ring.cq().ready()).isZero();
            net.write(client, "x");
            Completion readable = reap(ring);
            assertThat(readable.userData()).isEqualTo(2);
            assertThat(readable.res() & OpFlags.Poll.POLLIN).isNotZero();
            assertThat(net.read(server, 8)).isEqualTo("x".getBytes());

            // The peer closing shows as POLLRDHUP.
            ring.sq().next().prepPollAdd(server, OpFlags.Poll.POLLRDHUP).userData(3);
            ring.submit();
            net.close(client);
            Completion hangup = reap(ring);
            assertThat(hangup.userData()).isEqualTo(3);
            assertThat(hangup.res() & OpFlags.Poll.POLLRDHUP).isNotZero();
        }
    }

    // ---- socket URING_CMD ------------------------------------------------------------------------------

    @Test
    void uringCmdGetsockoptReadsAnOption() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.URING_CMD);
            int fd = net.tcpSocket(0);
            assertThat(Sockets.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1)).isZero();
            MemorySegment reuse = arena.allocate(JAVA_INT);
            MemorySegment type = arena.allocate(JAVA_INT);
            ring.sq().next().prepCmdSock(GETSOCKOPT, fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, reuse).userData(1);
            ring.sq().next().prepCmdSock(GETSOCKOPT, fd, Sockets.SOL_SOCKET, Sockets.SO_TYPE, type).userData(2);

            List<Completion> cqes = submitAndReap(ring, 2);

            // The result is the option's length, as getsockopt's optlen.
            assertThat(only(cqes, 1).res()).isEqualTo(4);
            assertThat(reuse.get(JAVA_INT, 0)).isEqualTo(1);
            assertThat(only(cqes, 2).res()).isEqualTo(4);
            assertThat(type.get(JAVA_INT, 0)).isEqualTo(Sockets.SOCK_STREAM);
        }
    }

    @Test
    void uringCmdSetsockoptWritesAnOption() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.URING_CMD);
            int fd = net.tcpSocket(0);
            assertThat(intOption(fd, Sockets.SOL_SOCKET, Sockets.SO_KEEPALIVE)).isZero();
            MemorySegment on = arena.allocateFrom(JAVA_INT, 1);
            ring.sq().next().prepCmdSock(SETSOCKOPT, fd, Sockets.SOL_SOCKET, Sockets.SO_KEEPALIVE, on).userData(1);

            assertThat(submitAndReap(ring).res()).isZero();

            assertThat(intOption(fd, Sockets.SOL_SOCKET, Sockets.SO_KEEPALIVE)).isEqualTo(1);
        }
    }

    @Test
    void uringCmdQueueSizes() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.URING_CMD);
            int[] tcp = net.tcpPair();
            int client = tcp[0];
            int server = tcp[1];

            ring.sq().next().prepCmdSock(SIOCOUTQ, client, 0, 0, MemorySegment.NULL).userData(1);
            ring.sq().next().prepCmdSock(SIOCINQ, server, 0, 0, MemorySegment.NULL).userData(2);
            List<Completion> idle = submitAndReap(ring, 2);
            assertThat(only(idle, 1).res()).as("nothing sent: empty send queue").isZero();
            assertThat(only(idle, 2).res()).as("nothing received: empty receive queue").isZero();

            // Ten bytes in one segment; a poll waits (deterministically) until they have arrived.
            net.write(client, "0123456789");
            ring.sq().next().prepPollAdd(server, OpFlags.Poll.POLLIN).link().userData(3);
            ring.sq().next().prepCmdSock(SIOCINQ, server, 0, 0, MemorySegment.NULL).userData(4);
            List<Completion> queued = submitAndReap(ring, 2);
            assertThat(only(queued, 4).res()).isEqualTo(10);
            assertThat(net.read(server, 16)).hasSize(10);
        }
    }
}
