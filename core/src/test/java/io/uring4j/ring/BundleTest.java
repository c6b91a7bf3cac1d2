package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.sys.Sockets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static io.uring4j.ring.Reap.submitAndReap;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Send and receive bundles (IORING_RECVSEND_BUNDLE, 6.10; liburing's recvsend_bundle.c). */
@Timeout(30)
class BundleTest {
    private static final int GROUP = 4;
    private static final int BUF_LEN = 16;

    @Test
    void aRecvBundleFillsSeveralBuffersInOneCqe() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena); IoUring ring = IoUring.open(8);
             BufferRing br = ring.register().bufferRing(8, GROUP, 0)) {
            assumeTrue(ring.hasFeature(Features.RECVSEND_BUNDLE), "kernel lacks bundles (6.10)");
            MemorySegment buffers = arena.allocate(8L * BUF_LEN);
            for (int bid = 0; bid < 8; bid++) {
                br.add(buffers.asSlice((long) bid * BUF_LEN, BUF_LEN), bid, bid);
            }
            br.advance(8);
            int[] pair = net.unixPair(Sockets.SOCK_STREAM);
            String text = "0123456789abcdef0123456789ABCDEF01234567";     // 40 bytes: three buffers
            net.write(pair[0], text);

            // The first receive of a bundle may take fewer buffers than the data needs (the socket says how
            // much is left only after it): receive until all 40 bytes are in, each CQE naming its first buffer.
            int received = 0;
            int firstRes = -1;
            while (received < 40) {
                ring.sq().next().prepRecvBundle(pair[1], 0).bufferSelect(GROUP).userData(1);
                Completion cqe = submitAndReap(ring);
                assertThat(cqe.res()).isPositive();
                assertThat(cqe.hasBuffer()).isTrue();
                assertThat(cqe.bufferId()).as("bundles continue in ring order").isEqualTo(received / BUF_LEN);
                firstRes = firstRes < 0 ? cqe.res() : firstRes;
                received += cqe.res();
            }

            assertThat(firstRes).as("one CQE for more than one buffer").isGreaterThan(BUF_LEN);
            String got = new String(buffers.asSlice(0, 40).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
            assertThat(got).as("buffers 0, 1 and 2 in ring order").isEqualTo(text);
        }
    }

    @Test
    void aSendBundleSendsTheQueuedBuffersInRingOrder() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena); IoUring ring = IoUring.open(8);
             BufferRing br = ring.register().bufferRing(8, GROUP, 0)) {
            assumeTrue(ring.hasFeature(Features.RECVSEND_BUNDLE), "kernel lacks bundles (6.10)");
            String[] parts = {"aaa", "bbbb", "cc"};
            for (int bid = 0; bid < parts.length; bid++) {
                br.add(arena.allocateFrom(parts[bid], StandardCharsets.US_ASCII).asSlice(0, parts[bid].length()), bid, bid);
            }
            br.advance(parts.length);
            int[] pair = net.unixPair(Sockets.SOCK_STREAM);

            ring.sq().next().prepSendBundle(pair[0], 0, 0).bufferSelect(GROUP).userData(1);
            Completion cqe = submitAndReap(ring);

            assertThat(cqe.res()).isEqualTo(9);
            assertThat(new String(net.read(pair[1], 64), StandardCharsets.US_ASCII)).isEqualTo("aaabbbbcc");
        }
    }
}
