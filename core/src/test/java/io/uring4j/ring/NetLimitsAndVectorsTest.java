package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Sockets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What 6.17 added to send and recv: multishot recv length limits (per CQE in len, in total in optlen;
 * liburing's recv-mshot-fair.c) and vectored sends ({@code IORING_SEND_VECTORIZED}).
 */
@Timeout(30)
class NetLimitsAndVectorsTest {
    private static final int GROUP = 5;
    private static final int BUF_LEN = 2048;

    @Test
    void multishotRecvStopsAtItsTotalAndCapsEachCqe() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena); IoUring ring = IoUring.open(32);
             BufferRing br = ring.register().bufferRing(16, GROUP, 0)) {
            assumeSupported(ring, Opcode.RECV);
            int[] pair = net.unixPair(Sockets.SOCK_STREAM);
            MemorySegment buffers = arena.allocate(16L * BUF_LEN);
            for (int bid = 0; bid < 16; bid++) {
                br.add(buffers.asSlice((long) bid * BUF_LEN, BUF_LEN), bid, bid);
            }
            br.advance(16);
            net.write(pair[0], new byte[8192]);

            ring.sq().next().prepRecvMultishot(pair[1], 0, 1024, 4096).bufferSelect(GROUP).userData(1);
            ring.submit();
            List<Completion> cqes = new ArrayList<>();
            Completion cqe;
            do {
                cqe = reap(ring);
                Rings.skipIfRefused(cqe.res(), "multishot recv length limits (6.17)");
                cqes.add(cqe);
            } while (cqe.hasMore() && cqe.res() > 0);

            assertThat(cqes).as("results").allSatisfy(c -> assertThat(c.res()).isBetween(1, 1024));
            assertThat(cqes.stream().mapToInt(Completion::res).sum()).as("bytes until the request ended").isEqualTo(4096);
            assertThat(cqe.hasMore()).as("the last CQE ends the request").isFalse();
        }
    }

    @Test
    void aVectorizedSendGathersItsIovecs() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena); IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.SEND);
            int[] pair = net.unixPair(Sockets.SOCK_STREAM);
            MemorySegment hello = arena.allocateFrom("hello", StandardCharsets.US_ASCII).asSlice(0, 5);
            MemorySegment world = arena.allocateFrom(" world", StandardCharsets.US_ASCII).asSlice(0, 6);
            MemorySegment iov = arena.allocate(32, 8);
            iov.set(JAVA_LONG, 0, hello.address());
            iov.set(JAVA_LONG, 8, 5);
            iov.set(JAVA_LONG, 16, world.address());
            iov.set(JAVA_LONG, 24, 6);
            ring.sq().next().prepSendv(pair[0], iov, 2, 0).userData(1);

            Completion sent = submitAndReap(ring);
            Rings.skipIfRefused(sent.res(), "IORING_SEND_VECTORIZED (6.17)");
            assertThat(sent).isEqualTo(Completion.cqe(1, 11));
            assertThat(new String(net.read(pair[1], 64), StandardCharsets.US_ASCII)).isEqualTo("hello world");
        }
    }

    @Test
    void getsocknameThroughUringCmdOrItsRefusal() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena); IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.URING_CMD);
            int listener = net.tcpListener(1, 0);
            MemorySegment addr = arena.allocate(16, 8);
            MemorySegment addrLen = arena.allocateFrom(JAVA_INT, 16);
            ring.sq().next().prepCmdGetsockname(listener, addr, addrLen, false).userData(1);

            Completion named = submitAndReap(ring);
            Rings.skipIfRefused(named.res(), "SOCKET_URING_OP_GETSOCKNAME (newer than 6.18)");
            assertThat(named.res()).isZero();
            assertThat(Short.toUnsignedInt(Short.reverseBytes(addr.get(JAVA_SHORT, 2))))
                    .as("the port").isEqualTo(net.port(listener));
        }
    }
}
