package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/** IORING_OP_PIPE into direct descriptors (6.16; liburing's pipe-direct-fixed.c): chosen slots and allocated ones. */
class PipeDirectTest {
    /** Writes through the direct write end, reads through the direct read end. */
    private static void assertCarries(IoUring ring, Arena arena, int readSlot, int writeSlot) throws Exception {
        ring.sq().next().prepWrite(writeSlot, arena.allocateFrom("direct", StandardCharsets.US_ASCII).asSlice(0, 6), -1)
                .addFlags(SqeFlags.FIXED_FILE).userData(2);
        assertThat(submitAndReap(ring).res()).isEqualTo(6);
        MemorySegment in = arena.allocate(16);
        ring.sq().next().prepRead(readSlot, in, -1).addFlags(SqeFlags.FIXED_FILE).userData(3);
        assertThat(submitAndReap(ring).res()).isEqualTo(6);
        assertThat(new String(in.asSlice(0, 6).toArray(JAVA_BYTE), StandardCharsets.US_ASCII)).isEqualTo("direct");
    }

    @Test
    void aPipeLandsInTheSlotsAskedFor() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.PIPE);
            ring.register().filesSparse(8);
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            ring.sq().next().prepPipeDirect(fds, 0, 4).userData(1);

            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, 0));
            assertThat(fds.getAtIndex(JAVA_INT, 0)).as("read end: the slot").isEqualTo(4);
            assertThat(fds.getAtIndex(JAVA_INT, 1)).as("write end: the next slot").isEqualTo(5);
            assertCarries(ring, arena, 4, 5);
        }
    }

    @Test
    void allocatedSlotsAreReportedInTheArray() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.PIPE);
            ring.register().filesSparse(8);
            ring.register().fileAllocRange(2, 4);
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            ring.sq().next().prepPipeDirect(fds, 0, OpFlags.FileIndex.ALLOC).userData(1);

            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, 0));
            int readSlot = fds.getAtIndex(JAVA_INT, 0);
            int writeSlot = fds.getAtIndex(JAVA_INT, 1);
            assertThat(readSlot).isBetween(2, 5);
            assertThat(writeSlot).isBetween(2, 5).isNotEqualTo(readSlot);
            assertCarries(ring, arena, readSlot, writeSlot);
        }
    }
}
