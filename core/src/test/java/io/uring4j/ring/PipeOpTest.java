package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/** IORING_OP_PIPE (6.16; liburing's pipe.c, pipe-direct-fixed.c): plain fds, chosen slots and allocated ones. */
@BothEngines
class PipeOpTest {

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
    void aPipeOfPlainFdsCarriesData() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.PIPE);
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            ring.sq().next().prepPipe(fds, LibC.O_CLOEXEC | LibC.O_NONBLOCK).userData(1);

            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, 0));
            int readFd = fds.getAtIndex(JAVA_INT, 0);
            int writeFd = fds.getAtIndex(JAVA_INT, 1);
            try {
                assertThat(LibC.write(writeFd, arena.allocateFrom("plain", StandardCharsets.US_ASCII).asSlice(0, 5)))
                        .isEqualTo(5);
                MemorySegment in = arena.allocate(8);
                assertThat(LibC.read(readFd, in)).isEqualTo(5);
                assertThat(LibC.read(readFd, in)).as("O_NONBLOCK: empty is EAGAIN").isEqualTo(-Errno.EAGAIN);
            } finally {
                LibC.close(readFd);
                LibC.close(writeFd);
            }
        }
    }

    @Test
    void badFlagsAndTheLastSlotAreRefused() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.PIPE);
            ring.register().filesSparse(4);
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            ring.sq().next().prepPipe(fds, LibC.O_CREAT).userData(1);
            assertThat(submitAndReap(ring)).as("O_CREAT is no pipe flag").isEqualTo(Completion.cqe(1, -Errno.EINVAL));
            ring.sq().next().prepPipeDirect(fds, LibC.O_CLOEXEC, 0).userData(2);
            assertThat(submitAndReap(ring).res()).as("close-on-exec on a direct descriptor").isEqualTo(-Errno.EINVAL);
            ring.sq().next().prepPipeDirect(fds, 0, 3).userData(3);
            assertThat(submitAndReap(ring).res()).as("the write end would be past the table").isEqualTo(-Errno.EINVAL);
            ring.sq().next().prepCloseDirect(3).userData(4);
            assertThat(submitAndReap(ring)).as("the read end was taken out again").isEqualTo(Completion.cqe(4, -Errno.EBADF));
        }
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
