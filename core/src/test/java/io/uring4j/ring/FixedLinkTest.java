package io.uring4j.ring;

import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.FileKit.bytes;
import static io.uring4j.ring.Reap.submitAndReap;
import static org.assertj.core.api.Assertions.assertThat;

/** liburing fixed-link.c: READ_FIXED (IO_LINK) → READ_FIXED of 18 bytes each from /dev/zero into two registered buffers. */
@BothEngines
class FixedLinkTest {
    private static final int READ_LEN = 18;

    @Test
    void linkedFixedReadsBothReadTheirLength() throws Exception {
        try (Fd zero = Fd.devZero(); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment[] bufs = {arena.allocate(64), arena.allocate(64)};
            bufs[0].fill((byte) 0xff);
            bufs[1].fill((byte) 0xff);
            ring.register().buffers(bufs);

            ring.sq().next().prepReadFixed(zero.fd(), bufs[0].asSlice(0, READ_LEN), 0, 0).userData(0).link();
            ring.sq().next().prepReadFixed(zero.fd(), bufs[1].asSlice(0, READ_LEN), 0, 1).userData(1);

            // Linked requests complete in chain order.
            assertThat(submitAndReap(ring, 2)).containsExactly(cqe(0, READ_LEN), cqe(1, READ_LEN));
            for (MemorySegment buf : bufs) {
                byte[] got = bytes(buf);
                for (int i = 0; i < got.length; i++) {
                    assertThat(got[i]).as("byte %d", i).isEqualTo(i < READ_LEN ? (byte) 0 : (byte) 0xff);
                }
            }
        }
    }
}
