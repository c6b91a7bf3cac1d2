package io.uring4j.ring;

import io.uring4j.ring.abi.BufRingLayout;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static io.uring4j.ring.Reap.submitAndReap;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Incrementally consumed buffer rings (IOU_PBUF_RING_INC, 6.12): a receive takes only the bytes it got, the next
 * one continues behind them in the same buffer, and F_BUF_MORE says the buffer has room left.
 */
@BothEngines
@Timeout(30)
class IncrementalBufferRingTest {
    private static final int GROUP = 9;
    private static final int BUF_LEN = 16;

    @Test
    void receivesShareOneBufferUntilItIsFull() throws Exception {
        assumeTrue(!Rings.portable(), "the portable engine refuses INC: see below");
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena); IoUring ring = IoUring.open(8);
             BufferRing br = incrementalRing(ring)) {
            assertThat(br.incremental()).isTrue();
            MemorySegment buffer = arena.allocate(BUF_LEN);
            br.add(buffer, 0, 0);
            br.advance(1);
            int[] pair = net.unixPair(Sockets.SOCK_STREAM);

            net.write(pair[0], "abc");
            Completion first = receive(ring, pair[1]);
            net.write(pair[0], "defg");
            Completion second = receive(ring, pair[1]);
            net.write(pair[0], "0123456789");                  // 10 bytes, 9 left in the buffer
            Completion third = receive(ring, pair[1]);

            assertThat(first).isEqualTo(dataCqe(3));
            assertThat(second).as("the same buffer, behind the first bytes").isEqualTo(dataCqe(4));
            assertThat(third).as("filled: the kernel is done with the buffer; one byte is left in the socket")
                    .isEqualTo(new Completion(1, 9, CqeFlags.F_BUFFER | CqeFlags.F_SOCK_NONEMPTY));
            assertThat(new String(buffer.toArray(JAVA_BYTE), StandardCharsets.US_ASCII)).isEqualTo("abcdefg012345678");

            Completion dry = receive(ring, pair[1]);
            assertThat(dry.res()).as("no buffer left for the last byte").isEqualTo(-Errno.ENOBUFS);
            br.add(buffer, 0, 0);                               // handed back whole
            br.advance(1);
            assertThat(receive(ring, pair[1])).isEqualTo(dataCqe(1));
            assertThat(buffer.get(JAVA_BYTE, 0)).isEqualTo((byte) '9');
        }
    }

    @Test
    void theEnginesWithoutItRefuseItAsAKernelBefore612Does() throws Exception {
        assumeTrue(Rings.portable(), "the kernel has it: see above");
        try (IoUring ring = IoUring.open(8)) {
            ErrnoException e = catchThrowableOfType(ErrnoException.class,
                    () -> ring.register().bufferRing(8, GROUP, BufRingLayout.PBUF_RING_INC));
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            try (BufferRing plain = ring.register().bufferRing(8, GROUP, 0)) {
                assertThat(plain.incremental()).as("the group is free again: a plain ring takes it").isFalse();
            }
        }
    }

    private static BufferRing incrementalRing(IoUring ring) throws ErrnoException {
        try {
            return ring.register().bufferRing(1, GROUP, BufRingLayout.PBUF_RING_INC);
        } catch (ErrnoException e) {
            assumeTrue(e.errno() != Errno.EINVAL, "kernel lacks incremental buffer rings (6.12)");
            throw e;
        }
    }

    private static Completion receive(IoUring ring, int fd) throws ErrnoException {
        ring.sq().next().prepRecvSelect(fd, 0, 0, GROUP).userData(1);
        return submitAndReap(ring);
    }

    /** A receive's CQE from buffer 0 that leaves room in it. */
    private static Completion dataCqe(int res) {
        return new Completion(1, res, CqeFlags.F_BUFFER | CqeFlags.F_BUF_MORE);
    }
}
