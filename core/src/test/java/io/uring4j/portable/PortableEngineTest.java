package io.uring4j.portable;

import io.uring4j.fs.FsTestKit;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Probe;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

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
            SetupFlags.NO_MMAP}) {
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
            assertThat(probe.lastOp()).isEqualTo(Opcode.PIPE);
            assertThat(probe.supportedNames()).containsExactly("NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED",
                    "WRITE_FIXED", "POLL_ADD", "POLL_REMOVE", "SENDMSG", "RECVMSG", "TIMEOUT", "TIMEOUT_REMOVE",
                    "ACCEPT", "ASYNC_CANCEL", "LINK_TIMEOUT", "CONNECT", "FALLOCATE", "OPENAT", "CLOSE", "FILES_UPDATE",
                    "STATX", "READ", "WRITE", "FADVISE", "SEND", "RECV", "OPENAT2", "SPLICE", "PROVIDE_BUFFERS",
                    "REMOVE_BUFFERS", "TEE", "SHUTDOWN", "RENAMEAT", "UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT",
                    "MSG_RING", "SOCKET", "SEND_ZC", "SENDMSG_ZC", "FIXED_FD_INSTALL", "FTRUNCATE", "BIND", "LISTEN",
                    "PIPE");
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
    /**
     * A positional read over holes of a sparse file, past what its first non-blocking try found ready: the kernel
     * reads the rest on its io-wq and returns all up to the end of the file. The io-wq's own first try without
     * blocking came up short again (the holes' pages were not ready yet) and reported that: 4895 of 7421 bytes
     * (found by FileChannelDifferentialTest, seed 60 of the asynchronous programs, on this engine).
     */
    @Test
    void aPositionalReadOverHolesIsNotShort(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("sparse");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(path,
                java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[2516]));
            ch.write(java.nio.ByteBuffer.wrap(new byte[2706]), 9957);
            ch.write(java.nio.ByteBuffer.wrap(new byte[553]), 21488);
            ch.truncate(18910);
        }
        int fd = LibC.open(path.toString(), LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
        assertThat(fd).isNotNegative();
        try (IoUring r = ring(4); Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(9229);
            r.sq().next().prepRead(fd, buf, 11489).userData(1);
            r.submitAndWait(1);
            assertThat(r.cq().peek().res()).as("to the end of the file").isEqualTo(18910 - 11489);
            r.cq().seen(r.cq().peek());
        } finally {
            LibC.close(fd);
        }
    }

    /**
     * REGISTER_IOWQ_MAX_WORKERS really bounds the io-wq, both classes: three opens of a FIFO (bound work) and two
     * splices from empty pipes (unbound work), each blocking its worker until a writer comes, take three bound
     * and two unbound workers on a fresh ring, and one of each under limits of one — the others wait in their
     * queues, and run on those workers once the writers have come.
     */
    @Test
    void theWorkerLimitsBoundTheIoWq(@TempDir Path dir) throws Throwable {
        Path fifo = FsTestKit.mkfifo(dir.resolve("fifo"));
        try (IoUring free = ring(8); IoUring limited = ring(8); Arena arena = Arena.ofConfined()) {
            int[] previous = limited.register().iowqMaxWorkers(1, 1);
            assertThat(previous[0]).as("the default bound")
                    .isEqualTo(Math.min(8, 4 * Runtime.getRuntime().availableProcessors()));
            assertThat(previous[1]).as("the default unbound limit").isEqualTo(WorkQueue.UNBOUND_MAX);
            assertThat(limited.register().iowqMaxWorkers(0, 0)).containsExactly(1, 1);
            MemorySegment path = arena.allocateFrom(fifo.toString());
            List<int[]> pipes = new ArrayList<>();      // per splice: its source, then its sink
            for (IoUring r : List.of(free, limited)) {
                for (int i = 0; i < 3; i++) {
                    r.sq().next().prepOpenat(LibC.AT_FDCWD, path, LibC.O_RDONLY | LibC.O_CLOEXEC, 0).userData(i);
                }
                for (int i = 0; i < 2; i++) {
                    int[] in = new int[2];
                    int[] out = new int[2];
                    assertThat(LibC.pipe2(in, LibC.O_CLOEXEC)).isZero();
                    assertThat(LibC.pipe2(out, LibC.O_CLOEXEC)).isZero();
                    pipes.add(in);
                    pipes.add(out);
                    r.sq().next().prepSplice(in[0], -1, out[1], -1, 8, 0).userData(10 + i);
                }
                assertThat(r.submit()).isEqualTo(5);
            }
            assertThat(workQueue(free).workers(true)).as("bound workers without a limit").isEqualTo(3);
            assertThat(workQueue(free).workers(false)).as("unbound workers without a limit").isEqualTo(2);
            assertThat(workQueue(limited).workers(true)).as("bound workers under a limit of one").isEqualTo(1);
            assertThat(workQueue(limited).workers(false)).as("unbound workers under a limit of one").isEqualTo(1);

            int writer = LibC.open(fifo.toString(), LibC.O_WRONLY | LibC.O_CLOEXEC, 0);   // the opens return
            try {
                MemorySegment one = arena.allocate(1);
                for (int i = 0; i < pipes.size(); i += 2) {
                    assertThat(LibC.write(pipes.get(i)[1], one)).isEqualTo(1);     // the splices return
                }
                for (IoUring r : List.of(free, limited)) {
                    for (int i = 0; i < 5; i++) {
                        Cqe cqe = r.waitCqe();
                        if (cqe.userData() < 10) {
                            assertThat(cqe.res()).as("open %d", cqe.userData()).isNotNegative();
                            LibC.close(cqe.res());
                        } else {
                            assertThat(cqe.res()).as("splice %d", cqe.userData()).isEqualTo(1);
                        }
                        r.cq().seen(cqe);
                    }
                }
            } finally {
                LibC.close(writer);
                pipes.forEach(p -> {
                    LibC.close(p[0]);
                    LibC.close(p[1]);
                });
            }
        }
    }

    /**
     * A request inside its system call (an open waiting for a FIFO's writer) cannot be interrupted here: a
     * synchronous cancel waits for it to finish — to its timeout (ETIME), or, without one, until it has, and
     * then its CQE is already there.
     */
    @Test
    void syncCancelOfARunningRequestWaitsUntilItHasFinished(@TempDir Path dir) throws Throwable {
        Path fifo = FsTestKit.mkfifo(dir.resolve("fifo"));
        try (IoUring r = ring(8); Arena arena = Arena.ofConfined()) {
            r.sq().next().prepOpenat(LibC.AT_FDCWD, arena.allocateFrom(fifo.toString()),
                    LibC.O_RDONLY | LibC.O_CLOEXEC, 0).userData(9);
            assertThat(r.submit()).isEqualTo(1);
            awaitRunning(r, 9);
            ErrnoException timedOut = catchThrowableOfType(ErrnoException.class,
                    () -> r.register().syncCancel(9, 0, 0, 20_000_000L));
            assertThat(timedOut).isNotNull();
            assertThat(timedOut.errno()).isEqualTo(Errno.ETIME);

            AtomicInteger result = new AtomicInteger(Integer.MIN_VALUE);
            AtomicInteger readyOnReturn = new AtomicInteger(-1);
            Thread canceller = Thread.ofPlatform().start(() -> {
                try {
                    result.set(r.register().syncCancel(9, 0, 0, -1));
                    readyOnReturn.set(r.cq().ready());
                } catch (ErrnoException e) {
                    result.set(-e.errno());
                }
            });
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (canceller.getState() != Thread.State.TIMED_WAITING) {     // waiting between its looks
                assertThat(System.nanoTime()).as("the sync cancel waits").isLessThan(deadline);
                assertThat(canceller.isAlive()).as("the sync cancel returned early: %s", result).isTrue();
                Thread.sleep(1);
            }
            int writer = LibC.open(fifo.toString(), LibC.O_WRONLY | LibC.O_CLOEXEC, 0);   // the open returns
            try {
                canceller.join();
                assertThat(result.get()).isZero();
                assertThat(readyOnReturn.get()).as("CQEs when the sync cancel returned").isEqualTo(1);
                Cqe cqe = r.peekCqe();
                assertThat(cqe.userData()).isEqualTo(9);
                assertThat(cqe.res()).as("the open ran its course").isNotNegative();
                LibC.close(cqe.res());
                r.cq().seen(cqe);
            } finally {
                LibC.close(writer);
            }
        }
    }

    /** Waits until a worker has picked up the request {@code userData} (a queued one is simply cancelled). */
    private static void awaitRunning(IoUring r, long userData) throws InterruptedException {
        PortableRing ring = PortableEngine.instance().ring(r.fd());
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            ring.lock.lock();
            try {
                for (Request q : ring.lock.pool.all) {
                    if (q != null && q.userData == userData && q.state == Request.RUNNING) {
                        return;
                    }
                }
            } finally {
                ring.lock.unlock();
            }
            assertThat(System.nanoTime()).as("request %d running on a worker", userData).isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    private static WorkQueue workQueue(IoUring r) {
        return PortableEngine.instance().ring(r.fd()).wq;
    }
}
