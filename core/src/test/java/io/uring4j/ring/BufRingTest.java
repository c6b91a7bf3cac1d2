package io.uring4j.ring;

import io.uring4j.ring.abi.BufRingLayout;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * liburing buf-ring.c: registering and unregistering provided-buffer rings, the errors for duplicate groups and
 * for mixing ring-backed and legacy (PROVIDE_BUFFERS) groups, and the running test: a ring of N buffers serves
 * exactly N buffer-select reads, each with its own buffer id, then -ENOBUFS, refilled three times.
 */
@BothEngines
class BufRingTest {
    private static final int BUF_LEN = 32;
    private static final byte FILL = 0x55;

    @Test
    void registerAndUnregisterGroups1And127() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            for (int groupId : new int[] {1, 127}) {
                BufferRing br = ring.register().bufferRing(8, groupId, 0);
                assertThat(br.groupId()).isEqualTo(groupId);
                assertThat(br.entries()).isEqualTo(8);
                br.close();                 // unregisters
            }
            // Both groups are free again: registering them anew works.
            ring.register().bufferRing(8, 1, 0).close();
            ring.register().bufferRing(8, 127, 0).close();
        }
    }

    @Test
    void registeringTheSameGroupTwiceIsEexist() throws Exception {
        try (IoUring ring = IoUring.open(4); BufferRing first = ring.register().bufferRing(4, 1, 0)) {
            assertThatThrownBy(() -> ring.register().bufferRing(4, 1, 0))
                    .isInstanceOfSatisfying(ErrnoException.class,
                            e -> assertThat(e.errno()).isEqualTo(Errno.EEXIST));
            assertThat(first.groupId()).isEqualTo(1);
        }
    }

    @Test
    void unregisteringTwiceFails() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            ring.register().bufferRing(4, 1, 0).close();

            assertThatThrownBy(() -> ring.register().unregisterBufferRing(1))
                    .isInstanceOfSatisfying(ErrnoException.class,
                            e -> assertThat(e.errno()).isIn(Errno.EINVAL, Errno.ENOENT));
        }
    }

    @Test
    void provideBuffersIntoARingBackedGroupFails() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4);
             BufferRing br = ring.register().bufferRing(4, 1, 0)) {
            assumeSupported(ring, Opcode.PROVIDE_BUFFERS);
            MemorySegment buffers = arena.allocate(4 * BUF_LEN);
            ring.sq().next().prepProvideBuffers(buffers, BUF_LEN, 4, br.groupId(), 0).userData(1);

            Completion provide = submitAndReap(ring);

            assertThat(provide.res()).isIn(-Errno.EEXIST, -Errno.EINVAL);
        }
    }

    @Test
    void aRingForALegacyGroupFails() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            assumeSupported(ring, Opcode.PROVIDE_BUFFERS);
            MemorySegment buffers = arena.allocate(4 * BUF_LEN);
            ring.sq().next().prepProvideBuffers(buffers, BUF_LEN, 4, 2, 0).userData(1);
            assertThat(submitAndReap(ring).res()).isZero();

            assertThatThrownBy(() -> ring.register().bufferRing(4, 2, 0))
                    .isInstanceOfSatisfying(ErrnoException.class,
                            e -> assertThat(e.errno()).isEqualTo(Errno.EEXIST));

            // Give the legacy buffers back before the arena frees them.
            ring.sq().next().prepRemoveBuffers(4, 2).userData(2);
            assertThat(submitAndReap(ring).res()).isEqualTo(4);
        }
    }

    @ParameterizedTest(name = "{0} entries, kernel-allocated ring: {1}")
    @CsvSource({"1, false", "4096, false", "32768, false", "1, true", "4096, true", "32768, true"})
    void eachBufferServesOneReadUntilTheRingRunsDry(int entries, boolean kernelAllocated) throws Exception {
        if (kernelAllocated) {
            Rings.kernelOnly("kernel-allocated buffer rings (IOU_PBUF_RING_MMAP) are not implemented");
        }
        int groupId = 1;
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(1024);
             BufferRing br = ring.register().bufferRing(entries, groupId,
                     kernelAllocated ? BufRingLayout.PBUF_RING_MMAP : 0);
             Fd zero = Fd.devZero()) {
            MemorySegment buffers = arena.allocate((long) entries * BUF_LEN);
            buffers.fill(FILL);
            boolean status = supportsBufferStatus(br);
            for (int round = 1; round <= 3; round++) {
                for (int bid = 0; bid < entries; bid++) {
                    br.add(buffer(buffers, bid), bid, bid);
                }
                br.advance(entries);
                if (status) {
                    assertThat(br.available()).isEqualTo(entries);
                }

                BitSet used = readOneByteIntoEachBuffer(ring, zero.fd(), groupId, entries, buffers);
                assertThat(used.cardinality()).as("round %d: distinct buffer ids", round).isEqualTo(entries);

                ring.sq().next().prepReadSelect(zero.fd(), 1, 0, groupId).userData(-1);
                Completion dry = submitAndReap(ring);
                assertThat(dry.res()).as("round %d: one read too many", round).isEqualTo(-Errno.ENOBUFS);
                assertThat(dry.hasBuffer()).isFalse();
                if (status) {
                    assertThat(br.available()).isZero();
                    assertThat(br.head()).isEqualTo((round * entries) & 0xffff);
                }
            }
        }
    }

    /**
     * Reads one byte from /dev/zero per buffer, in SQ-sized batches; checks each read touched only byte 0. Up to
     * 98,304 reads per case, so the per-CQE checks are plain comparisons; the first problem is reported.
     */
    private static BitSet readOneByteIntoEachBuffer(IoUring ring, int fd, int groupId, int count,
                                                   MemorySegment buffers) throws ErrnoException {
        BitSet used = new BitSet(count);
        List<String> problems = new ArrayList<>();
        int done = 0;
        while (done < count) {
            int batch = Math.min(ring.sq().entries(), count - done);
            for (int i = 0; i < batch; i++) {
                ring.sq().next().prepReadSelect(fd, 1, 0, groupId).userData(done + i);
            }
            ring.submit();
            int reaped = 0;
            while (reaped < batch) {
                assertThat(ring.waitCqes(1, Reap.PATIENCE_NANOS)).as("a CQE within the patience").isNotNull();
                reaped += ring.cq().drain(cqe -> {
                    int bid = cqe.bufferId();
                    if (cqe.res() != 1 || !cqe.hasBuffer() || bid >= count || used.get(bid)) {
                        problems.add(cqe + " (buffer id out of range or used twice?)");
                        return;
                    }
                    used.set(bid);
                    MemorySegment buffer = buffer(buffers, bid);
                    if (buffer.get(JAVA_BYTE, 0) != 0 || buffer.get(JAVA_BYTE, 1) != FILL) {
                        problems.add("buffer " + bid + " starts " + buffer.get(JAVA_BYTE, 0) + ", "
                                + buffer.get(JAVA_BYTE, 1));
                    }
                    buffer.set(JAVA_BYTE, 0, FILL);     // ready for the next round
                }, batch - reaped);
            }
            assertThat(problems).as("bad completions").isEmpty();
            done += batch;
        }
        return used;
    }

    private static MemorySegment buffer(MemorySegment buffers, int bid) {
        return buffers.asSlice((long) bid * BUF_LEN, BUF_LEN);
    }

    /** IORING_REGISTER_PBUF_STATUS (6.8) is a register opcode, which the SQE-opcode probe does not cover. */
    private static boolean supportsBufferStatus(BufferRing br) throws ErrnoException {
        try {
            assertThat(br.head()).isZero();
            return true;
        } catch (ErrnoException e) {
            if (e.errno() == Errno.EINVAL) {
                return false;
            }
            throw e;
        }
    }

    @Test
    void bufferStatusTracksTheKernelHead() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8);
             BufferRing br = ring.register().bufferRing(8, 3, 0); Fd zero = Fd.devZero()) {
            assumeTrue(supportsBufferStatus(br), "kernel without IORING_REGISTER_PBUF_STATUS (6.8)");
            MemorySegment buffers = arena.allocate(8 * BUF_LEN);
            for (int bid = 0; bid < 5; bid++) {
                br.add(buffer(buffers, bid), bid, bid);
            }
            br.advance(5);
            assertThat(br.available()).isEqualTo(5);

            ring.sq().next().prepReadSelect(zero.fd(), 1, 0, 3).userData(1);
            ring.sq().next().prepReadSelect(zero.fd(), 1, 0, 3).userData(2);
            assertThat(submitAndReap(ring, 2)).allSatisfy(c -> assertThat(c.res()).isEqualTo(1));

            assertThat(br.head()).isEqualTo(2);
            assertThat(br.available()).isEqualTo(3);
        }
    }

    @Test
    void buffersAreTakenInRingOrder() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8);
             BufferRing br = ring.register().bufferRing(4, 4, 0); Fd zero = Fd.devZero()) {
            // Buffer ids need not follow ring positions: the CQE reports the id written into the entry.
            MemorySegment buffers = arena.allocate(4 * BUF_LEN);
            int[] ids = {42, 7, 1000, 3};
            for (int i = 0; i < ids.length; i++) {
                br.add(buffer(buffers, i), ids[i], i);
            }
            br.advance(ids.length);
            for (int i = 0; i < ids.length; i++) {
                // One at a time, so completion order is the order the kernel took the buffers.
                ring.sq().next().prepReadSelect(zero.fd(), 1, 0, 4).userData(i);
                Completion read = submitAndReap(ring);
                assertThat(read.res()).isEqualTo(1);
                assertThat(read.bufferId()).isEqualTo(ids[i]);
            }
        }
    }
}
