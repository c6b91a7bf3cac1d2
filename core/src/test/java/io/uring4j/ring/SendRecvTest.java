package io.uring4j.ring;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import static io.uring4j.ring.Reap.only;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.testkit.Patterns.pattern;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing send_recv.c (and the sendmsg/recvmsg half of send_recvmsg.c): UDP SEND and RECV of 4096 bytes with
 * the data checked — plain, IOSQE_ASYNC, registered files, buffer select —, buffer select with no buffers
 * (-ENOBUFS, no F_SOCK_NONEMPTY), NULL msghdrs on a SUBMIT_ALL ring, and SENDMSG/RECVMSG with real iovecs and
 * the source address.
 */
@BothEngines
class SendRecvTest {
    private static final int SIZE = 4096;
    private static final int GROUP = 1;
    private static final long RECV = 1;
    private static final long SEND = 2;

    @ParameterizedTest(name = "async {0}, registered files {1}, buffer select {2}")
    @CsvSource({"false, false, false", "true, false, false", "false, true, false", "false, false, true",
        "true, true, true"})
    void udpSendAndRecvCarry4096Bytes(boolean async, boolean fixedFiles, boolean bufferSelect) throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8);
             BufferRing provided = bufferSelect ? ring.register().bufferRing(1, GROUP, 0) : null) {
            int[] udp = net.udpPair();
            int sender = udp[0];
            int receiver = udp[1];
            int sqeFlags = async ? SqeFlags.ASYNC : 0;
            if (fixedFiles) {
                ring.register().files(sender, receiver);
                sender = 0;
                receiver = 1;
                sqeFlags |= SqeFlags.FIXED_FILE;
            }
            MemorySegment in = arena.allocate(SIZE);
            Sqe recv;
            if (bufferSelect) {
                provided.add(in, 5, 0);
                provided.advance(1);
                // A buffer-select recv names no buffer: address 0 and the most it may receive.
                recv = ring.sq().next().prepRw(Opcode.RECV, receiver, 0, SIZE, 0).bufferSelect(GROUP);
            } else {
                recv = ring.sq().next().prepRecv(receiver, in, 0);
            }
            recv.addFlags(sqeFlags).userData(RECV);
            ring.submit();
            assertThat(ring.cq().ready()).as("nothing sent yet").isZero();

            byte[] data = pattern(3, SIZE);
            ring.sq().next().prepSend(sender, arena.allocateFrom(JAVA_BYTE, data), 0)
                    .addFlags(sqeFlags).userData(SEND);
            List<Completion> cqes = submitAndReap(ring, 2);

            assertThat(only(cqes, SEND).res()).isEqualTo(SIZE);
            Completion received = only(cqes, RECV);
            assertThat(received.res()).isEqualTo(SIZE);
            assertThat(received.hasBuffer()).isEqualTo(bufferSelect);
            if (bufferSelect) {
                assertThat(received.bufferId()).isEqualTo(5);
            }
            assertThat(in.toArray(JAVA_BYTE)).isEqualTo(data);
        }
    }

    @ParameterizedTest(name = "empty buffer ring registered: {0}")
    @ValueSource(booleans = {false, true})
    void bufferSelectWithoutBuffersIsEnobufsAndLeavesTheDataQueued(boolean emptyRing) throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            if (emptyRing) {
                try (BufferRing _ = ring.register().bufferRing(4, GROUP, 0)) {
                    assertRecvFindsNoBuffer(ring, net);
                }
            } else {
                assertRecvFindsNoBuffer(ring, net);     // the group was never registered
            }
        }
    }

    private static void assertRecvFindsNoBuffer(IoUring ring, NetFixture net) throws ErrnoException {
        int[] udp = net.udpPair();
        byte[] data = pattern(4, 100);
        net.write(udp[0], data);

        ring.sq().next().prepRw(Opcode.RECV, udp[1], 0, SIZE, 0).bufferSelect(GROUP).userData(RECV);
        Completion recv = submitAndReap(ring);

        assertThat(recv.res()).isEqualTo(-Errno.ENOBUFS);
        // Data is waiting, but nothing was received: the flag is not set on this failure.
        assertThat(recv.flags() & CqeFlags.F_SOCK_NONEMPTY).as("%s", recv).isZero();
        assertThat(recv.hasBuffer()).isFalse();
        assertThat(net.read(udp[1], SIZE)).isEqualTo(data);
    }

    @Test
    void nullMsghdrsFailWithEfaultAndSubmitAllSubmitsBoth() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.builder().entries(8).submitAll().build()) {
            int[] udp = net.udpPair();
            ring.sq().next().prepSendmsg(udp[0], MemorySegment.NULL, 0).userData(SEND);
            ring.sq().next().prepRecvmsg(udp[1], MemorySegment.NULL, 0).userData(RECV);

            assertThat(ring.submitAndWait(2)).isEqualTo(2);

            List<Completion> cqes = reap(ring, 2);
            assertThat(only(cqes, SEND).res()).isEqualTo(-Errno.EFAULT);
            assertThat(only(cqes, RECV).res()).isEqualTo(-Errno.EFAULT);
            assertThat(ring.sq().ready()).isZero();
        }
    }

    @Test
    void withoutSubmitAllTheBatchStopsAtTheFirstSubmitFailure() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            int[] udp = net.udpPair();
            ring.sq().next().prepSendmsg(udp[0], MemorySegment.NULL, 0).userData(SEND);
            ring.sq().next().prepRecvmsg(udp[1], MemorySegment.NULL, 0).userData(RECV);

            // The contrast that makes the SUBMIT_ALL case meaningful: the failed SENDMSG is consumed (and
            // posts its CQE), the RECVMSG behind it is left in the SQ.
            assertThat(ring.submit()).isEqualTo(1);
            assertThat(ring.sq().ready()).isEqualTo(1);
            Completion send = reap(ring);
            assertThat(send.userData()).isEqualTo(SEND);
            assertThat(send.res()).isEqualTo(-Errno.EFAULT);

            assertThat(ring.submit()).isEqualTo(1);
            Completion recv = reap(ring);
            assertThat(recv.userData()).isEqualTo(RECV);
            assertThat(recv.res()).isEqualTo(-Errno.EFAULT);
        }
    }

    @Test
    void sendmsgAndRecvmsgGatherAndScatterAndReportTheSource() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            int receiver = net.udpSocket();
            int sender = net.udpSocket();      // not connected: the destination travels in msg_name
            byte[] head = pattern(5, 30);
            byte[] tail = pattern(6, 50);
            MemorySegment sendMsg = Sockets.msghdr(arena, net.loopback(NetFixture.port(receiver)),
                    arena.allocateFrom(JAVA_BYTE, head), arena.allocateFrom(JAVA_BYTE, tail));
            MemorySegment source = arena.allocate(Sockets.SOCKADDR_STORAGE_SIZE, 8);
            MemorySegment small = arena.allocate(10);
            MemorySegment large = arena.allocate(100);
            MemorySegment recvMsg = Sockets.msghdr(arena, source, small, large);

            ring.sq().next().prepRecvmsg(receiver, recvMsg, 0).userData(RECV);
            ring.submit();
            ring.sq().next().prepSendmsg(sender, sendMsg, 0).userData(SEND);
            List<Completion> cqes = submitAndReap(ring, 2);

            assertThat(only(cqes, SEND).res()).isEqualTo(80);
            assertThat(only(cqes, RECV).res()).isEqualTo(80);
            byte[] whole = new byte[80];
            System.arraycopy(head, 0, whole, 0, 30);
            System.arraycopy(tail, 0, whole, 30, 50);
            // Scattered in iovec order: 10 bytes into the first buffer, the other 70 into the second.
            assertThat(small.toArray(JAVA_BYTE)).isEqualTo(Arrays.copyOfRange(whole, 0, 10));
            assertThat(large.asSlice(0, 70).toArray(JAVA_BYTE)).isEqualTo(Arrays.copyOfRange(whole, 10, 80));
            assertThat(Sockets.msgNameLength(recvMsg)).isEqualTo((int) Sockets.SOCKADDR_IN_SIZE);
            assertThat(Sockets.family(source)).isEqualTo(Sockets.AF_INET);
            assertThat(Sockets.ipv4Address(source)).isEqualTo(Sockets.INADDR_LOOPBACK);
            assertThat(Sockets.port(source)).isEqualTo(NetFixture.port(sender));
            assertThat(Sockets.msgFlags(recvMsg)).isZero();
        }
    }

    @Test
    void recvmsgIntoTooSmallABufferReportsTruncation() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            int[] udp = net.udpPair();
            byte[] data = pattern(7, 64);
            net.write(udp[0], data);
            MemorySegment buf = arena.allocate(16);
            MemorySegment msg = Sockets.msghdr(arena, MemorySegment.NULL, buf);

            ring.sq().next().prepRecvmsg(udp[1], msg, 0).userData(RECV);
            Completion recv = submitAndReap(ring);

            assertThat(recv.res()).isEqualTo(16);
            assertThat(Sockets.msgFlags(msg) & Sockets.MSG_TRUNC).isEqualTo(Sockets.MSG_TRUNC);
            assertThat(buf.toArray(JAVA_BYTE)).isEqualTo(Arrays.copyOf(data, 16));
        }
    }
}
