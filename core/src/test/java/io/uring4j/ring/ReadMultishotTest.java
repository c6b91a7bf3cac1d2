package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/** READ_MULTISHOT (6.7): one request reads a pipe into ring-provided buffers until EOF (liburing's read-mshot.c). */
@Timeout(30)
class ReadMultishotTest {
    private static final int GROUP = 3;
    private static final int BUF_LEN = 16;

    @Test
    void eachWriteArrivesInAProvidedBufferUntilEndOfFile() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8);
             BufferRing br = ring.register().bufferRing(4, GROUP, 0); Pipe pipe = Pipe.open()) {
            assumeSupported(ring, Opcode.READ_MULTISHOT);
            MemorySegment buffers = arena.allocate(4L * BUF_LEN);
            for (int bid = 0; bid < 4; bid++) {
                br.add(buffers.asSlice((long) bid * BUF_LEN, BUF_LEN), bid, bid);
            }
            br.advance(4);
            ring.sq().next().prepReadMultishot(pipe.readFd(), 0, 0, GROUP).userData(1);
            ring.submit();

            pipe.write("abc".getBytes(StandardCharsets.US_ASCII));
            Completion first = reap(ring);
            pipe.write("defg".getBytes(StandardCharsets.US_ASCII));
            Completion second = reap(ring);

            assertThat(first.res()).isEqualTo(3);
            assertThat(first.hasMore()).as("still armed").isTrue();
            assertThat(text(buffers, first)).isEqualTo("abc");
            assertThat(second.res()).isEqualTo(4);
            assertThat(second.hasMore()).isTrue();
            assertThat(second.bufferId()).as("a buffer of its own").isNotEqualTo(first.bufferId());
            assertThat(text(buffers, second)).isEqualTo("defg");

            pipe.closeWriteEnd();
            Completion eof = reap(ring);
            assertThat(eof.res()).as("end of file").isZero();
            assertThat(eof.hasMore()).as("the request has ended").isFalse();
        }
    }

    private static String text(MemorySegment buffers, Completion cqe) {
        byte[] bytes = buffers.asSlice((long) cqe.bufferId() * BUF_LEN, cqe.res()).toArray(JAVA_BYTE);
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
