package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.uring4j.ring.Reap.only;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static io.uring4j.testkit.Patterns.pattern;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing recv-multishot.c: one multishot RECV with provided buffers posts a CQE per message — each with
 * F_MORE and F_BUFFER, the data in the buffer its id names — until a terminal CQE without F_MORE: -ENOBUFS
 * when the buffers run out, 0 when the peer closes, -ECANCELED when cancelled. A terminal CQE with
 * {@code res <= 0} carries no buffer.
 *
 * <p>Each case runs with a buffer ring and with legacy PROVIDE_BUFFERS, on a normal and a DEFER_TASKRUN ring;
 * the multishot RECVMSG case checks the {@code io_uring_recvmsg_out} layout each buffer starts with.
 * The sockets are an AF_UNIX SOCK_SEQPACKET pair: message boundaries are kept (one message per CQE, whatever
 * the timing) and closing one end is EOF for the other. The recvmsg case uses UDP, whose source address it checks.
 */
@BothEngines
class RecvMultishotTest {
    private static final int GROUP = 7;
    private static final int BUF_LEN = 64;
    private static final long RECV = 1;
    private static final long CANCEL = 2;

    /** N buffers of {@link #BUF_LEN} bytes in group {@link #GROUP}: buffer {@code bid} at {@code bid * BUF_LEN}. */
    private static final class Provided implements AutoCloseable {
        final MemorySegment memory;
        private final BufferRing ring;

        Provided(IoUring uring, Arena arena, int count, boolean legacy) throws ErrnoException {
            memory = arena.allocate((long) count * BUF_LEN);
            if (legacy) {
                ring = null;
                uring.sq().next().prepProvideBuffers(memory, BUF_LEN, count, GROUP, 0).userData(99);
                assertThat(submitAndReap(uring).res()).as("PROVIDE_BUFFERS").isZero();
            } else {
                ring = uring.register().bufferRing(count, GROUP, 0);
                for (int bid = 0; bid < count; bid++) {
                    ring.add(buffer(bid), bid, bid);
                }
                ring.advance(count);
            }
        }

        MemorySegment buffer(int bid) {
            return memory.asSlice((long) bid * BUF_LEN, BUF_LEN);
        }

        @Override
        public void close() throws ErrnoException {
            if (ring != null) {
                ring.close();
            }
        }
    }

    private static IoUring ring(boolean deferTaskrun) throws ErrnoException {
        if (deferTaskrun) {
            Rings.kernelOnlyFlags(SetupFlags.DEFER_TASKRUN);
        }
        IoUringBuilder builder = IoUring.builder().entries(16);
        return (deferTaskrun ? builder.deferTaskrun() : builder).build();
    }

    private static void assumeProvidedBuffers(IoUring ring, boolean legacy) throws ErrnoException {
        if (legacy) {
            assumeSupported(ring, Opcode.PROVIDE_BUFFERS);
        }
    }

    private static byte[] message(int i) {
        return pattern(i, 10 + 5 * i);        // 10..50 bytes: fits a buffer, lengths differ
    }

    /** A data CQE: armed still, a buffer used, holding message {@code i}. */
    private static void assertMessage(Completion cqe, int i, Provided provided) {
        byte[] expected = message(i);
        assertThat(cqe.userData()).isEqualTo(RECV);
        assertThat(cqe.res()).as("message %d: %s", i, cqe).isEqualTo(expected.length);
        assertThat(cqe.hasMore()).as("message %d: F_MORE", i).isTrue();
        assertThat(cqe.hasBuffer()).as("message %d: F_BUFFER", i).isTrue();
        assertThat(provided.buffer(cqe.bufferId()).asSlice(0, expected.length).toArray(JAVA_BYTE))
                .as("message %d in buffer %d", i, cqe.bufferId()).isEqualTo(expected);
    }

    /** The CQE that ends the request: no F_MORE, and no buffer for a result {@code <= 0}. */
    private static void assertTerminal(Completion cqe, int res) {
        assertThat(cqe.userData()).isEqualTo(RECV);
        assertThat(cqe.res()).as("%s", cqe).isEqualTo(res);
        assertThat(cqe.hasMore()).as("terminal CQE has F_MORE: %s", cqe).isFalse();
        assertThat(cqe.hasBuffer()).as("terminal CQE with res <= 0 has F_BUFFER: %s", cqe).isFalse();
    }

    /** The request under test: a multishot RECV of {@code fd} into buffers from {@link #GROUP}. */
    private static void prepMultishotRecv(IoUring ring, int fd) {
        ring.sq().next().prepRecvMultishot(fd, 0).bufferSelect(GROUP).userData(RECV);
    }

    /** Cancels the multishot request: the cancel succeeds and the request posts its terminal -ECANCELED. */
    private static void cancelAndAssertTheTerminalCqe(IoUring ring) throws ErrnoException {
        ring.sq().next().prepCancel(RECV, 0).userData(CANCEL);
        List<Completion> end = submitAndReap(ring, 2);
        assertThat(only(end, CANCEL).res()).isZero();
        assertTerminal(only(end, RECV), -Errno.ECANCELED);
    }

    @ParameterizedTest(name = "DEFER_TASKRUN {0}, legacy buffers {1}")
    @CsvSource({"false, false", "false, true", "true, false", "true, true"})
    void runningOutOfBuffersEndsTheRequestWithEnobufs(boolean deferTaskrun, boolean legacy) throws Exception {
        int buffers = 4;
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = ring(deferTaskrun)) {
            assumeProvidedBuffers(ring, legacy);
            try (Provided provided = new Provided(ring, arena, buffers, legacy)) {
                int[] pair = net.unixPair(Sockets.SOCK_SEQPACKET);
                for (int i = 0; i <= buffers; i++) {
                    net.write(pair[0], message(i));      // one message more than there are buffers
                }
                prepMultishotRecv(ring, pair[1]);

                List<Completion> cqes = submitAndReap(ring, buffers + 1);

                for (int i = 0; i < buffers; i++) {
                    assertMessage(cqes.get(i), i, provided);
                }
                assertTerminal(cqes.get(buffers), -Errno.ENOBUFS);
                // The message no buffer was left for is still queued on the socket.
                assertThat(net.read(pair[1], BUF_LEN)).isEqualTo(message(buffers));
            }
        }
    }

    @ParameterizedTest(name = "DEFER_TASKRUN {0}, legacy buffers {1}")
    @CsvSource({"false, false", "false, true", "true, false", "true, true"})
    void peerCloseEndsTheRequestWithEof(boolean deferTaskrun, boolean legacy) throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = ring(deferTaskrun)) {
            assumeProvidedBuffers(ring, legacy);
            try (Provided provided = new Provided(ring, arena, 8, legacy)) {
                int[] pair = net.unixPair(Sockets.SOCK_SEQPACKET);
                // Armed before any data: the one request keeps receiving across waits.
                prepMultishotRecv(ring, pair[1]);
                ring.submit();
                for (int i = 0; i < 3; i++) {
                    net.write(pair[0], message(i));
                    assertMessage(reap(ring), i, provided);
                }

                net.close(pair[0]);

                assertTerminal(reap(ring), 0);
            }
        }
    }

    @ParameterizedTest(name = "DEFER_TASKRUN {0}, legacy buffers {1}")
    @CsvSource({"false, false", "false, true", "true, false", "true, true"})
    void cancelEndsTheRequestWithEcanceled(boolean deferTaskrun, boolean legacy) throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = ring(deferTaskrun)) {
            assumeProvidedBuffers(ring, legacy);
            try (Provided provided = new Provided(ring, arena, 8, legacy)) {
                int[] pair = net.unixPair(Sockets.SOCK_SEQPACKET);
                prepMultishotRecv(ring, pair[1]);
                ring.submit();
                net.write(pair[0], message(0));
                net.write(pair[0], message(1));
                List<Completion> data = reap(ring, 2);
                assertMessage(data.get(0), 0, provided);
                assertMessage(data.get(1), 1, provided);

                cancelAndAssertTheTerminalCqe(ring);
            }
        }
    }

    @ParameterizedTest(name = "DEFER_TASKRUN {0}")
    @CsvSource({"false", "true"})
    void multishotRecvmsgPrefixesEachBufferWithAHeaderAndTheSource(boolean deferTaskrun) throws Exception {
        int count = 4;
        int bufLen = 128;
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = ring(deferTaskrun); BufferRing br = ring.register().bufferRing(count, GROUP, 0)) {
            MemorySegment memory = arena.allocate((long) count * bufLen);
            for (int bid = 0; bid < count; bid++) {
                br.add(memory.asSlice((long) bid * bufLen, bufLen), bid, bid);
            }
            br.advance(count);
            int[] udp = net.udpPair();
            int sender = udp[0];
            int receiver = udp[1];
            // The msghdr is only a template: msg_namelen and msg_controllen size the areas in each buffer.
            MemorySegment template = Sockets.msghdr(arena, arena.allocate(Sockets.SOCKADDR_IN_SIZE));
            ring.sq().next().prepRecvmsgMultishot(receiver, template, 0).bufferSelect(GROUP).userData(RECV);
            ring.submit();

            for (int i = 0; i < 3; i++) {
                byte[] expected = message(i);
                net.write(sender, expected);
                Completion cqe = reap(ring);
                assertThat(cqe.hasMore()).as("%s", cqe).isTrue();
                assertThat(cqe.hasBuffer()).isTrue();
                // io_uring_recvmsg_out (16 bytes), the name area (msg_namelen), no control, then the payload.
                assertThat(cqe.res()).isEqualTo(16 + 16 + expected.length);
                MemorySegment buf = memory.asSlice((long) cqe.bufferId() * bufLen, bufLen);
                assertThat(buf.get(JAVA_INT, 0)).as("namelen").isEqualTo(16);
                assertThat(buf.get(JAVA_INT, 4)).as("controllen").isZero();
                assertThat(buf.get(JAVA_INT, 8)).as("payloadlen").isEqualTo(expected.length);
                assertThat(buf.get(JAVA_INT, 12)).as("flags").isZero();
                MemorySegment source = buf.asSlice(16, 16);
                assertThat(Sockets.ipv4Address(source)).isEqualTo(Sockets.INADDR_LOOPBACK);
                assertThat(Sockets.port(source)).isEqualTo(NetFixture.port(sender));
                assertThat(buf.asSlice(32, expected.length).toArray(JAVA_BYTE)).isEqualTo(expected);
            }

            cancelAndAssertTheTerminalCqe(ring);
        }
    }

    @ParameterizedTest(name = "DEFER_TASKRUN {0}")
    @CsvSource({"false", "true"})
    void multishotRecvWithoutBufferSelectIsInvalid(boolean deferTaskrun) throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena);
             IoUring ring = ring(deferTaskrun)) {
            int[] pair = net.unixPair(Sockets.SOCK_SEQPACKET);
            // Multishot receive needs provided buffers (liburing issue #1331).
            ring.sq().next().prepRecvMultishot(pair[1], 0).userData(RECV);

            assertTerminal(submitAndReap(ring), -Errno.EINVAL);
        }
    }
}
