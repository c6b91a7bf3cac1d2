package io.uring4j.ring;

import io.uring4j.ring.FileTestKit.Completion;
import io.uring4j.sys.LibC;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.uring4j.ring.FileTestKit.*;
import static org.assertj.core.api.Assertions.assertThat;

/** liburing fixed-link.c: READ_FIXED (IO_LINK) → READ_FIXED of 18 bytes each from /dev/zero into two registered buffers. */
class FixedLinkTest {
    private static final int READ_LEN = 18;

    @Test
    void linkedFixedReadsBothReadTheirLength() throws Exception {
        int fd = LibC.open("/dev/zero", LibC.O_RDONLY, 0);
        assertThat(fd).isGreaterThanOrEqualTo(0);
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment[] bufs = {arena.allocate(64), arena.allocate(64)};
            fill(bufs[0], (byte) 0xff);
            fill(bufs[1], (byte) 0xff);
            ring.register().buffers(bufs);

            ring.sq().next().prepReadFixed(fd, bufs[0].asSlice(0, READ_LEN), 0, 0).userData(0).link();
            ring.sq().next().prepReadFixed(fd, bufs[1].asSlice(0, READ_LEN), 0, 1).userData(1);
            List<Completion> completions = submitAndReap(ring, 2);

            // Linked requests complete in chain order.
            assertThat(completions).extracting(Completion::userData).containsExactly(0L, 1L);
            assertThat(completions).extracting(Completion::res).containsExactly(READ_LEN, READ_LEN);
            for (MemorySegment buf : bufs) {
                byte[] got = bytes(buf);
                for (int i = 0; i < got.length; i++) {
                    assertThat(got[i]).as("byte %d", i).isEqualTo(i < READ_LEN ? (byte) 0 : (byte) 0xff);
                }
            }
        } finally {
            LibC.close(fd);
        }
    }
}
