package io.uring4j.sys;

import io.uring4j.ring.IoUring;
import io.uring4j.ring.Pipe;
import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.SetupFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing io_uring_setup.c and io_uring_enter.c: the raw system-call contract, through
 * {@link IoUringSyscalls} with no library logic in between. Results are {@code -errno}.
 */
class RawSyscallTest {
    /** {@code struct io_uring_params}: 120 bytes; the fields these tests touch. */
    private static final long PARAMS_SIZE = 120;
    private static final long FLAGS = 8;
    private static final long SQ_THREAD_CPU = 12;
    private static final long RESV = 28;
    private static final long SQ_OFF = 40;

    @Test
    void setupWithZeroEntriesIsEINVAL() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(IoUringSyscalls.setup(0, params(arena, 0))).isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void setupWithNullParamsIsEFAULT() {
        assertThat(IoUringSyscalls.setup(1, MemorySegment.NULL)).isEqualTo(-Errno.EFAULT);
    }

    @Test
    void setupWithNonZeroReservedFieldsIsEINVAL() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = params(arena, 0);
            for (int i = 0; i < 3; i++) {
                p.set(JAVA_INT, RESV + 4L * i, 1);
            }
            assertThat(IoUringSyscalls.setup(1, p)).isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void setupWithEveryFlagBitIsEINVAL() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(IoUringSyscalls.setup(1, params(arena, ~0))).isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void sqAffinityWithoutSqpollIsEINVAL() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(IoUringSyscalls.setup(1, params(arena, SetupFlags.SQ_AFF))).isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void sqpollPinnedToANonexistentCpuIsEINVAL() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = params(arena, SetupFlags.SQPOLL | SetupFlags.SQ_AFF);
            p.set(JAVA_INT, SQ_THREAD_CPU, 1 << 20);
            int ret = IoUringSyscalls.setup(1, p);
            if (ret >= 0) {
                LibC.close(ret);
            }
            assertThat(ret).isEqualTo(-Errno.EINVAL);
        }
    }

    @Test
    void aRingFdCannotBeRead() {
        try (Arena arena = Arena.ofConfined()) {
            int fd = IoUringSyscalls.setup(1, params(arena, 0));
            assertThat(fd).isNotNegative();
            try {
                assertThat(LibC.read(fd, arena.allocate(4096))).isNegative();
            } finally {
                LibC.close(fd);
            }
        }
    }

    @Test
    void enterWithEveryFlagBitIsEINVAL() {
        try (Arena arena = Arena.ofConfined()) {
            int fd = IoUringSyscalls.setup(4, params(arena, 0));
            try {
                assertThat(IoUringSyscalls.enter(fd, 1, 0, ~0, 0, 0)).isEqualTo(-Errno.EINVAL);
            } finally {
                LibC.close(fd);
            }
        }
    }

    @Test
    void enterOnFdMinusOneIsEBADF() {
        assertThat(IoUringSyscalls.enter(-1, 0, 0, 0, 0, 0)).isEqualTo(-Errno.EBADF);
    }

    /** liburing uses fd 0; any open descriptor that is not a ring will do, and a pipe is sure to be open. */
    @Test
    void enterOnAnFdThatIsNotARingIsEOPNOTSUPP() {
        try (Pipe pipe = Pipe.open()) {
            assertThat(IoUringSyscalls.enter(pipe.readFd(), 0, 0, 0, 0, 0)).isEqualTo(-Errno.EOPNOTSUPP);
        }
    }

    @Test
    void enterWithNothingToDoReturnsZero() {
        try (Arena arena = Arena.ofConfined()) {
            int fd = IoUringSyscalls.setup(4, params(arena, 0));
            try {
                assertThat(IoUringSyscalls.enter(fd, 0, 0, 0, 0, 0)).isZero();
            } finally {
                LibC.close(fd);
            }
        }
    }

    /**
     * On a non-IOPOLL ring, enter(0, n, GETEVENTS) returns only once n CQEs are in the CQ. The requests are
     * one-byte reads of a pipe that another thread feeds a byte every 10 ms, so the CQ fills while the kernel
     * waits. (Reads of a cached file, liburing's choice, all complete inline during submit, leaving the wait
     * nothing to wait for; timeouts would not do either: a firing timeout ends any wait.)
     */
    @Test
    @Timeout(30)
    void getEventsWaitsForMinComplete() throws Exception {
        int n = 8;
        try (Pipe pipe = Pipe.open(); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(n)) {
            MemorySegment bytes = arena.allocate(n);
            for (int i = 0; i < n; i++) {
                ring.sq().next().prepRead(pipe.readFd(), bytes.asSlice(i, 1), 0).userData(i);
            }
            assertThat(ring.submit()).isEqualTo(n);
            Thread writer = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < n; i++) {
                    LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
                    pipe.write((byte) i);
                }
            });

            assertThat(IoUringSyscalls.enter(ring.fd(), 0, n, EnterFlags.GETEVENTS, 0, 0)).isZero();
            assertThat(ring.cq().ready()).isEqualTo(n);
            writer.join();
            ring.cq().drain(c -> assertThat(c.res()).isEqualTo(1));
        }
    }

    /**
     * An out-of-range index in the SQ array is dropped and counted in sq.dropped. Done by hand on a ring with an
     * SQ array (the library's rings use NO_SQARRAY where the kernel has it).
     */
    @Test
    void anOutOfRangeSqIndexIsCountedAsDropped() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment p = params(arena, 0);
            int fd = IoUringSyscalls.setup(4, p);
            assertThat(fd).isNotNegative();
            try {
                int entries = p.get(JAVA_INT, 0);
                long tailOff = sqOffset(p, 4);
                long maskOff = sqOffset(p, 8);
                long droppedOff = sqOffset(p, 20);
                long arrayOff = sqOffset(p, 24);
                long size = arrayOff + 4L * entries;
                long addr = LibC.mmap(0, size, LibC.PROT_READ | LibC.PROT_WRITE, LibC.MAP_SHARED | LibC.MAP_POPULATE,
                        fd, 0);
                assertThat(addr).isPositive();
                try {
                    MemorySegment sq = MemorySegment.ofAddress(addr).reinterpret(size);
                    int dropped = sq.get(JAVA_INT, droppedOff);
                    int tail = sq.get(JAVA_INT, tailOff);
                    int mask = sq.get(JAVA_INT, maskOff);
                    sq.set(JAVA_INT, arrayOff + 4L * (tail & mask), entries + 1);
                    // The syscall below is the barrier: the kernel reads the array only after it sees the tail.
                    JAVA_INT.varHandle().setRelease(sq, tailOff, tail + 1);

                    int ret = IoUringSyscalls.enter(fd, 1, 0, 0, 0, 0);
                    assertThat(ret).isNotNegative();
                    assertThat(sq.get(JAVA_INT, droppedOff)).isEqualTo(dropped + 1);
                } finally {
                    LibC.munmap(addr, size);
                }
            } finally {
                LibC.close(fd);
            }
        }
    }

    private static MemorySegment params(Arena arena, int flags) {
        MemorySegment p = arena.allocate(PARAMS_SIZE, 8);
        p.set(JAVA_INT, FLAGS, flags);
        return p;
    }

    private static long sqOffset(MemorySegment params, long field) {
        return Integer.toUnsignedLong(params.get(JAVA_INT, SQ_OFF + field));
    }
}
