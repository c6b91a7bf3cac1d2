package io.uring4j.ring;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import static io.uring4j.ring.Reap.only;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.testkit.Patterns.pattern;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing accept.c: ACCEPT returning an fd, accept into a direct descriptor, multishot accept (plain and into
 * kernel-allocated slots), the explicit-slot multishot error, and cancelling a pending accept.
 */
@BothEngines
class AcceptTest {
    private static final int MESSAGE = 128;

    @Test
    void pendingAcceptCompletesWithAConnectedFdAndThePeerAddress() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            int listener = net.tcpListener();
            MemorySegment peer = arena.allocate(Sockets.SOCKADDR_STORAGE_SIZE, 8);
            MemorySegment peerLen = arena.allocateFrom(JAVA_INT, (int) peer.byteSize());
            ring.sq().next().prepAccept(listener, peer, peerLen, Sockets.SOCK_CLOEXEC).userData(1);
            assertThat(ring.submit()).isEqualTo(1);
            assertThat(ring.cq().ready()).as("nobody has connected yet").isZero();

            int client = net.connect(listener);
            Completion accept = reap(ring);

            assertThat(accept.userData()).isEqualTo(1);
            int server = net.track(accept.res());
            assertThat(accept.flags() & CqeFlags.F_MORE).isZero();
            assertThat(peerLen.get(JAVA_INT, 0)).isEqualTo((int) Sockets.SOCKADDR_IN_SIZE);
            assertThat(Sockets.ipv4Address(peer)).isEqualTo(Sockets.INADDR_LOOPBACK);
            assertThat(Sockets.port(peer)).isEqualTo(NetFixture.port(client));
            net.assertCarries(client, server, "hello");
        }
    }

    @Test
    void acceptWorksOnANonBlockingListener() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            // io_uring waits for the connection itself (poll), instead of passing EAGAIN on.
            int listener = net.tcpListener(8, Sockets.SOCK_NONBLOCK);
            ring.sq().next().prepAccept(listener, MemorySegment.NULL, MemorySegment.NULL, 0).userData(2);
            ring.submit();
            assertThat(ring.cq().ready()).isZero();

            net.connect(listener);
            Completion accept = reap(ring);

            assertThat(accept.userData()).isEqualTo(2);
            net.track(accept.res());
        }
    }

    @Test
    void acceptDirectIntoSlotZeroGivesAFixedFileForSendAndRecv() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            ring.register().filesSparse(1);
            int listener = net.tcpListener();
            int client = net.connect(listener);

            ring.sq().next().prepAcceptDirect(listener, MemorySegment.NULL, MemorySegment.NULL, 0, 0).userData(1);
            Completion accept = submitAndReap(ring);
            assertThat(accept.res()).as("an explicit slot: res is 0, not an fd").isZero();

            // Server (fixed slot 0) -> client, then client -> server (fixed slot 0), 128 bytes each.
            byte[] down = pattern(1, MESSAGE);
            byte[] up = pattern(2, MESSAGE);
            MemorySegment downBuf = arena.allocateFrom(JAVA_BYTE, down);
            MemorySegment upBuf = arena.allocateFrom(JAVA_BYTE, up);
            MemorySegment clientIn = arena.allocate(MESSAGE);
            MemorySegment serverIn = arena.allocate(MESSAGE);

            ring.sq().next().prepSend(0, downBuf, 0).addFlags(SqeFlags.FIXED_FILE).userData(10);
            ring.sq().next().prepRecv(client, clientIn, Sockets.MSG_WAITALL).userData(11);
            ring.sq().next().prepRecv(0, serverIn, Sockets.MSG_WAITALL).addFlags(SqeFlags.FIXED_FILE).userData(12);
            ring.sq().next().prepSend(client, upBuf, 0).userData(13);
            List<Completion> io = submitAndReap(ring, 4);

            for (long userData = 10; userData <= 13; userData++) {
                assertThat(only(io, userData).res()).as("user_data %d", userData).isEqualTo(MESSAGE);
            }
            assertThat(clientIn.toArray(JAVA_BYTE)).isEqualTo(down);
            assertThat(serverIn.toArray(JAVA_BYTE)).isEqualTo(up);
        }
    }

    @Test
    void multishotAcceptPostsOneCqeWithMoreForEachConnection() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(16)) {
            int listener = net.tcpListener();
            ring.sq().next().prepMultishotAccept(listener, MemorySegment.NULL, MemorySegment.NULL, 0).userData(7);
            ring.submit();

            for (int i = 0; i < 4; i++) {
                int client = net.connect(listener);
                Completion accept = reap(ring);
                assertThat(accept.userData()).isEqualTo(7);
                assertThat(accept.hasMore()).as("connection %d keeps the request armed", i).isTrue();
                int server = net.track(accept.res());
                // Each CQE is a distinct, working connection.
                net.assertCarries(client, server, "c" + i);
            }

            ring.sq().next().prepCancel(7, 0).userData(8);
            List<Completion> end = submitAndReap(ring, 2);
            assertThat(only(end, 8).res()).isZero();
            Completion last = only(end, 7);
            assertThat(last.res()).isEqualTo(-Errno.ECANCELED);
            assertThat(last.hasMore()).as("the terminal CQE").isFalse();
        }
    }

    @Test
    void multishotAcceptDirectAllocatesEverySlotThenFailsWithEnfile() throws Exception {
        int slots = 32;
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.builder().entries(16).cqEntries(128).build()) {
            ring.register().filesSparse(slots);
            int listener = net.tcpListener();
            ring.sq().next().prepMultishotAcceptDirect(listener, MemorySegment.NULL, MemorySegment.NULL, 0)
                    .userData(9);
            ring.submit();

            List<Integer> clients = new ArrayList<>();
            for (int i = 0; i < slots; i++) {
                clients.add(net.connect(listener));
            }
            BitSet allocated = new BitSet();
            for (Completion accept : reap(ring, slots)) {
                assertThat(accept.userData()).isEqualTo(9);
                assertThat(accept.hasMore()).as("%s", accept).isTrue();
                // With ALLOC the result is the slot the kernel picked, not an fd.
                assertThat(accept.res()).isBetween(0, slots - 1);
                assertThat(allocated.get(accept.res())).as("slot %d handed out twice", accept.res()).isFalse();
                allocated.set(accept.res());
            }
            assertThat(allocated.cardinality()).isEqualTo(slots);

            // A connection with no free slot ends the multishot request.
            net.connect(listener);
            Completion full = reap(ring);
            assertThat(full.userData()).isEqualTo(9);
            assertThat(full.res()).isEqualTo(-Errno.ENFILE);
            assertThat(full.hasMore()).isFalse();

            // The slots hold the accepted sockets. Which client got slot 0 is up to the kernel, so every client
            // sends a byte; a fixed-file recv on slot 0 then gets one.
            for (int client : clients) {
                net.write(client, "x");
            }
            MemorySegment in = arena.allocate(8);
            ring.sq().next().prepRecv(0, in, 0).addFlags(SqeFlags.FIXED_FILE).userData(10);
            assertThat(submitAndReap(ring).res()).isEqualTo(1);
        }
    }

    @Test
    void multishotAcceptDirectWithAnExplicitSlotIsInvalid() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            ring.register().filesSparse(4);
            int listener = net.tcpListener();
            // liburing writes file_index = 1 (slot 0); multishot accept only takes FILE_INDEX_ALLOC.
            ring.sq().next().prepMultishotAccept(listener, MemorySegment.NULL, MemorySegment.NULL, 0)
                    .directSlot(0).userData(3);

            Completion accept = submitAndReap(ring);

            assertThat(accept.res()).isEqualTo(-Errno.EINVAL);
            assertThat(accept.hasMore()).isFalse();
        }
    }

    @Test
    void cancellingAPendingAcceptEndsIt() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            int listener = net.tcpListener();
            ring.sq().next().prepAccept(listener, MemorySegment.NULL, MemorySegment.NULL, 0).userData(1);
            ring.submit();
            ring.sq().next().prepCancel(1, 0).userData(2);

            List<Completion> cqes = submitAndReap(ring, 2);

            assertThat(only(cqes, 1).res()).isIn(-Errno.ECANCELED, -Errno.EINTR);
            assertThat(only(cqes, 2).res()).isIn(0, -Errno.EALREADY);
            // Nothing was accepted behind our back: a later connection still waits in the backlog.
            net.connect(listener);
            assertThat(net.track(Sockets.accept4(listener, Sockets.SOCK_CLOEXEC))).isNotNegative();
        }
    }
}
