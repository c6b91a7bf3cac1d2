package io.uring4j.ring;

import io.uring4j.ring.abi.RegisterArgLayout;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.errnoOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The wait clock (REGISTER_CLOCK) and buffer cloning between rings (REGISTER_CLONE_BUFFERS), both 6.12
 * (liburing's regbuf-clone.c).
 */
@Timeout(30)
class ClockAndCloneTest {
    private static final int CLOCK_REALTIME = 0;
    private static final int CLOCK_MONOTONIC = 1;
    private static final int CLOCK_BOOTTIME = 7;

    /** Skips on a kernel that predates a register opcode (EINVAL for the opcode itself). */
    private static void skipIfUnknown(IoUring ring, int opcode) throws Exception {
        Query query = null;
        try {
            query = ring.register().query();
        } catch (ErrnoException e) {
            // no query interface (before 6.18): the call below tells
        }
        assumeTrue(query == null || query.hasRegisterOpcode(opcode), "kernel lacks this register opcode");
    }

    @Test
    void waitsRunOnTheRegisteredClock() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            skipIfUnknown(ring, RegisterOpcode.REGISTER_CLOCK);
            ring.register().clock(CLOCK_BOOTTIME);
            assertThat(ring.waitCqes(1, TimeUnit.MILLISECONDS.toNanos(10))).as("a timed wait still times out").isNull();
            ring.register().clock(CLOCK_MONOTONIC);
            ring.sq().next().prepNop().userData(1);
            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, 0));
        }
    }

    @Test
    void aClockOtherThanMonotonicOrBoottimeIsRefused() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            skipIfUnknown(ring, RegisterOpcode.REGISTER_CLOCK);
            assertThat(errnoOf(() -> ring.register().clock(CLOCK_REALTIME))).isEqualTo(Errno.EINVAL);
        }
    }

    @Test
    void aClonedBufferTableServesFixedWritesOfTheSecondRing() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring source = IoUring.open(4); IoUring target = IoUring.open(4);
             Pipe pipe = Pipe.open()) {
            skipIfUnknown(source, RegisterOpcode.REGISTER_CLONE_BUFFERS);
            MemorySegment buffer = arena.allocate(4096, 4096);
            buffer.asSlice(0, 6).copyFrom(MemorySegment.ofArray("cloned".getBytes(StandardCharsets.US_ASCII)));
            source.register().buffers(buffer);

            target.register().cloneBuffers(source, 0, 0, 0, 0);

            target.sq().next().prepWriteFixed(pipe.writeFd(), buffer.asSlice(0, 6), -1, 0).userData(1);
            assertThat(submitAndReap(target)).isEqualTo(Completion.cqe(1, 6));
            assertThat(new String(pipe.read(16), StandardCharsets.US_ASCII)).isEqualTo("cloned");
        }
    }

    @Test
    void cloningOverRegisteredBuffersNeedsReplace() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring source = IoUring.open(4); IoUring target = IoUring.open(4)) {
            skipIfUnknown(source, RegisterOpcode.REGISTER_CLONE_BUFFERS);
            source.register().buffers(arena.allocate(4096, 4096));
            target.register().buffers(arena.allocate(4096, 4096));

            assertThat(errnoOf(() -> target.register().cloneBuffers(source, 0, 0, 0, 0))).isEqualTo(Errno.EBUSY);
            target.register().cloneBuffers(source, 0, 0, 0, RegisterArgLayout.CLONE_DST_REPLACE);
        }
    }
}
