package io.uring4j.ring;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static io.uring4j.testkit.Patterns.pattern;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing send-zerocopy.c: a SEND_ZC completes twice — first the result, with F_MORE, then a notification
 * (F_NOTIF, res 0, no F_MORE) once the buffer may be reused —, with usage reporting, SENDMSG_ZC, and the
 * submit-time faults on a SUBMIT_ALL ring.
 */
@BothEngines
class SendZcTest {
    /** {@code IORING_NOTIF_USAGE_ZC_COPIED}: with ZC_REPORT_USAGE, the notification says the data was copied. */
    private static final int NOTIF_USAGE_ZC_COPIED = 1 << 31;
    private static final long SEND = 1;
    private static final long RECV = 2;

    /** The result CQE: the byte count, F_MORE (a notification follows), not itself a notification. */
    private static void assertResult(Completion cqe, int bytes) {
        assertThat(cqe.userData()).isEqualTo(SEND);
        assertThat(cqe.res()).as("%s", cqe).isEqualTo(bytes);
        assertThat(cqe.hasMore()).as("F_MORE on %s", cqe).isTrue();
        assertThat(cqe.isNotification()).isFalse();
    }

    /** The notification: same user_data, nothing but F_NOTIF, and the end of the request. */
    private static void assertNotification(Completion cqe, int res) {
        assertThat(cqe.userData()).isEqualTo(SEND);
        assertThat(cqe.res()).isEqualTo(res);
        assertThat(cqe.flags()).as("%s", cqe).isEqualTo(CqeFlags.F_NOTIF);
    }

    @Test
    void sendZcPostsTheResultThenANotification() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.SEND_ZC);
            int[] tcp = net.tcpPair();
            byte[] data = pattern(8, 4096);
            MemorySegment out = arena.allocateFrom(JAVA_BYTE, data);

            ring.sq().next().prepSendZc(tcp[0], out, 0, 0).userData(SEND);
            List<Completion> cqes = submitAndReap(ring, 2);

            assertResult(cqes.get(0), data.length);
            assertNotification(cqes.get(1), 0);
            assertThat(ring.cq().ready()).as("nothing after the notification").isZero();

            MemorySegment in = arena.allocate(data.length);
            ring.sq().next().prepRecv(tcp[1], in, Sockets.MSG_WAITALL).userData(RECV);
            assertThat(submitAndReap(ring).res()).isEqualTo(data.length);
            assertThat(in.toArray(JAVA_BYTE)).isEqualTo(data);
        }
    }

    /**
     * A send cancelled by its failed predecessor never ran: its -ECANCELED has no F_MORE, yet, as in the kernel,
     * the notification set up at prep still follows.
     */
    @Test
    void aSendCancelledBeforeItRanStillNotifies() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.SEND_ZC);
            int[] tcp = net.tcpPair();
            MemorySegment out = arena.allocate(100);

            ring.sq().next().prepNop(-Errno.EIO).userData(RECV).link();
            ring.sq().next().prepSendZc(tcp[0], out, 0, 0).userData(SEND);
            List<Completion> cqes = submitAndReap(ring, 3);

            assertThat(cqes.get(0).res()).isEqualTo(-Errno.EIO);
            assertThat(cqes.get(1).userData()).isEqualTo(SEND);
            assertThat(cqes.get(1).res()).isEqualTo(-Errno.ECANCELED);
            assertThat(cqes.get(1).hasMore()).as("F_MORE on %s", cqes.get(1)).isFalse();
            assertNotification(cqes.get(2), 0);
        }
    }

    @Test
    void reportUsageSaysLoopbackCopied() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.SEND_ZC);
            int[] tcp = net.tcpPair();
            MemorySegment out = arena.allocateFrom(JAVA_BYTE, pattern(9, 1000));

            ring.sq().next().prepSendZc(tcp[0], out, 0, OpFlags.SendRecv.ZC_REPORT_USAGE).userData(SEND);
            List<Completion> cqes = submitAndReap(ring, 2);

            assertResult(cqes.get(0), 1000);
            // Loopback delivery must copy the pages to the receiving socket, so zero copy was not achieved.
            assertNotification(cqes.get(1), NOTIF_USAGE_ZC_COPIED);
            assertThat(net.read(tcp[1], 1000)).hasSize(1000);
        }
    }

    @Test
    void sendmsgZcGathersIovecsToAUdpDestination() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.SENDMSG_ZC);
            int receiver = net.udpSocket();
            int sender = net.udpSocket();
            byte[] first = pattern(10, 100);
            byte[] second = pattern(11, 200);
            MemorySegment msg = Sockets.msghdr(arena, net.loopback(NetFixture.port(receiver)),
                    arena.allocateFrom(JAVA_BYTE, first), arena.allocateFrom(JAVA_BYTE, second));

            ring.sq().next().prepSendmsgZc(sender, msg, 0).userData(SEND);
            List<Completion> cqes = submitAndReap(ring, 2);

            assertResult(cqes.get(0), 300);
            assertNotification(cqes.get(1), 0);
            byte[] datagram = net.read(receiver, 1000);
            assertThat(datagram).hasSize(300);
            assertThat(Arrays.copyOfRange(datagram, 0, 100)).isEqualTo(first);
            assertThat(Arrays.copyOfRange(datagram, 100, 300)).isEqualTo(second);
        }
    }

    @Test
    void faultsFailTheSendAndStillEndCleanly() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = IoUring.builder().entries(8).submitAll().build()) {
            assumeSupported(ring, Opcode.SEND_ZC);
            int[] tcp = net.tcpPair();
            MemorySegment out = arena.allocate(100);
            // As test_send_faults: a bad buffer address, and zero-copy flags the kernel does not know.
            ring.sq().next().prepRw(Opcode.SEND_ZC, tcp[0], 1L, 100, 0).userData(1);
            ring.sq().next().prepSendZc(tcp[0], out, 0, 0).ioprio(0xffff).userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            int expected = 2;
            int results = 0;
            while (expected > 0) {
                Completion cqe = reap(ring);
                expected--;
                if (cqe.isNotification()) {
                    // A failed send that had set up its notification still posts it, plain.
                    assertThat(cqe.res()).isZero();
                    assertThat(cqe.flags()).isEqualTo(CqeFlags.F_NOTIF);
                    continue;
                }
                results++;
                assertThat(cqe.res()).as("%s", cqe).isEqualTo(cqe.userData() == 1 ? -Errno.EFAULT : -Errno.EINVAL);
                if (cqe.hasMore()) {
                    expected++;
                }
            }
            assertThat(results).isEqualTo(2);
            assertThat(ring.cq().ready()).isZero();
        }
    }
}
