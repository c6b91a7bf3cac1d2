package io.uring4j.portable;

import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.Opcode;
import io.uring4j.ring.Probe;
import io.uring4j.ring.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** What is particular to the portable engine: its fds, its probe, its refusals. The semantics are in the ring suite. */
class PortableEngineTest {
    private static IoUring ring(int entries) throws ErrnoException {
        return IoUring.builder().entries(entries).engine(Engine.portable()).build();
    }

    @Test
    void ringFdsLieAboveAnyRealFdAndMeanNothingToTheKernel() throws Exception {
        try (IoUring a = ring(8); IoUring b = ring(8)) {
            assertThat(a.fd()).isGreaterThanOrEqualTo(1 << 30);
            assertThat(b.fd()).isNotEqualTo(a.fd()).isGreaterThanOrEqualTo(1 << 30);
            assertThat(LibC.close(a.fd())).as("close(2) of a portable ring fd").isEqualTo(-Errno.EBADF);
            assertThat(a.engineUsed().name()).isEqualTo("portable");
        }
    }

    @Test
    void setupRoundsLikeTheKernelAndReportsWhatItHonours() throws Exception {
        try (IoUring r = ring(5)) {
            assertThat(r.sqEntries()).isEqualTo(8);
            assertThat(r.cqEntries()).isEqualTo(16);
            assertThat(r.features()).isEqualTo(PortableEngine.FEATURES);
        }
    }

    @Test
    void setupFlagsItDoesNotImplementAreEinvalAsOnAnOlderKernel() {
        for (int flag : new int[] {SetupFlags.SQPOLL, SetupFlags.IOPOLL, SetupFlags.DEFER_TASKRUN,
            SetupFlags.R_DISABLED, SetupFlags.NO_MMAP}) {
            ErrnoException e = catchThrowableOfType(ErrnoException.class,
                    () -> IoUring.builder().entries(4).flags(flag).engine(Engine.portable()).build());
            assertThat(e).as(SetupFlags.toString(flag)).isNotNull();
            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
        }
    }

    @Test
    void probeReportsExactlyTheImplementedOpcodes() throws Exception {
        try (IoUring r = ring(4)) {
            Probe probe = r.register().probe();
            assertThat(probe.lastOp()).isEqualTo(Opcode.LISTEN);
            assertThat(probe.supportedNames()).containsExactly("NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED",
                    "WRITE_FIXED", "POLL_ADD", "POLL_REMOVE", "SENDMSG", "RECVMSG", "TIMEOUT", "TIMEOUT_REMOVE",
                    "ACCEPT", "ASYNC_CANCEL", "LINK_TIMEOUT", "CONNECT", "FALLOCATE", "OPENAT", "CLOSE", "FILES_UPDATE",
                    "STATX", "READ", "WRITE", "FADVISE", "SEND", "RECV", "OPENAT2", "SPLICE", "PROVIDE_BUFFERS",
                    "REMOVE_BUFFERS", "TEE", "SHUTDOWN", "RENAMEAT", "UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT",
                    "MSG_RING", "SOCKET", "SEND_ZC", "SENDMSG_ZC", "FIXED_FD_INSTALL", "FTRUNCATE", "BIND", "LISTEN");
        }
    }

    @Test
    void anOpcodeItDoesNotImplementCompletesWithEinval() throws Exception {
        try (IoUring r = ring(4)) {
            for (byte op : new byte[] {Opcode.URING_CMD, Opcode.EPOLL_CTL, Opcode.MADVISE, (byte) 200}) {
                r.sq().next().prepRw(op, 0, 0, 0, 0).userData(op & 0xff);
                r.submitAndWait(1);
                Cqe cqe = r.cq().peek();
                assertThat(cqe.res()).as(Opcode.name(op)).isEqualTo(-Errno.EINVAL);
                r.cq().seen(cqe);
            }
        }
    }

    @Test
    void theSystemPropertySelectsTheEngineOfEveryBuilder() throws Exception {
        String before = System.getProperty("uring4j.engine");
        System.setProperty("uring4j.engine", "portable");
        try (IoUring r = IoUring.open(4)) {
            assertThat(r.engineUsed()).isSameAs(Engine.portable());
        } finally {
            if (before == null) {
                System.clearProperty("uring4j.engine");
            } else {
                System.setProperty("uring4j.engine", before);
            }
        }
        assertThat(List.of(Engine.configured().name())).as("auto by default; portable in the portable suite run")
                .containsAnyOf("auto", "portable");
    }

    /**
     * As the kernel issues a read without blocking first, a buffered read of cached data completes inside the
     * submitting enter — its CQE is there when submit returns — while a positional read that finds only part of
     * its range cached goes to the io-wq and still returns all of it.
     */
    @Test
    void cachedReadsCompleteInsideEnterAndPartlyCachedOnesAreNotShort(@TempDir Path dir) throws Exception {
        byte[] data = new byte[256 * 1024];
        new Random(5).nextBytes(data);
        Path path = Files.write(dir.resolve("cached"), data);
        int fd = LibC.open(path.toString(), LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
        assertThat(fd).isNotNegative();
        try (IoUring r = ring(4); Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(data.length);
            r.sq().next().prepRead(fd, buf, 0).userData(1);
            r.submit();
            assertThat(r.cq().ready()).as("completed inside enter").isEqualTo(1);
            assertThat(r.cq().peek().res()).isEqualTo(data.length);
            r.cq().seen(r.cq().peek());
            assertThat(buf.toArray(JAVA_BYTE)).isEqualTo(data);

            // Drop the second half from the page cache (clean pages go): the read continues on a worker.
            assertThat(Sys.fadvise(fd, data.length / 2, 0, 4 /* POSIX_FADV_DONTNEED */)).isZero();
            buf.fill((byte) 0);
            r.sq().next().prepRead(fd, buf, 0).userData(2);
            r.submitAndWait(1);
            assertThat(r.cq().peek().res()).isEqualTo(data.length);
            r.cq().seen(r.cq().peek());
            assertThat(buf.toArray(JAVA_BYTE)).isEqualTo(data);
        } finally {
            LibC.close(fd);
        }
    }
}
