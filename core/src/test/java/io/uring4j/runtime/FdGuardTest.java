package io.uring4j.runtime;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.ThreadSyscalls;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fd is closed only after the last request naming it has ended, and close cancels those in flight. */
class FdGuardTest {
    @Test
    void anIdleFdClosesAtOnceAndRefusesNewUsers() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            FdGuard guard = new FdGuard(uring.loop(), udpSocket());
            guard.close().get(10, TimeUnit.SECONDS);
            assertThat(guard.isClosing()).isTrue();
            assertThatThrownBy(guard::acquire).isInstanceOf(ClosedChannelException.class);
        }
    }

    @Test
    void closeWaitsForTheLastUserAndCancelsTheRequestInFlight() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build(); Arena arena = Arena.ofShared()) {
            FdGuard guard = new FdGuard(uring.loop(), udpSocket());     // a read on it waits until cancelled
            MemorySegment buf = arena.allocate(8);
            int fd = guard.acquire();
            CompletableFuture<Integer> read = uring.loop().submitAsync(Op.read(fd, buf, -1));
            read.whenComplete((n, t) -> guard.release());
            int holder = guard.acquire();           // a user that has not submitted yet

            CompletableFuture<Void> closed = guard.close();
            Throwable cause = catchCause(read);
            assertThat(cause).isInstanceOfSatisfying(ErrnoException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ECANCELED));
            assertThat(closed).as("a user still holds the fd").isNotDone();

            assertThat(holder).isEqualTo(fd);
            guard.release();
            closed.get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Threads acquiring and releasing while another closes: the fd is closed once, never while a user holds it
     * (a held fd answers {@code getsockname}; a closed one EBADF), and after close every acquire is refused.
     */
    @RepeatedTest(50)
    void concurrentUsersNeverSeeTheFdClosedUnderThem() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            int fd = udpSocket();
            FdGuard guard = new FdGuard(uring.loop(), fd);
            AtomicInteger violations = new AtomicInteger();
            AtomicInteger acquired = new AtomicInteger();
            CountDownLatch running = new CountDownLatch(4);
            List<Thread> users = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                users.add(Thread.ofPlatform().start(() -> {
                    running.countDown();
                    while (true) {
                        try {
                            guard.acquire();
                        } catch (ClosedChannelException closing) {
                            return;
                        }
                        acquired.incrementAndGet();
                        if (Sockets.localPort(fd) < 0) {
                            violations.incrementAndGet();
                        }
                        guard.release();
                    }
                }));
            }
            running.await();
            while (acquired.get() < 1000) {
                Thread.onSpinWait();
            }
            guard.close().get(10, TimeUnit.SECONDS);
            for (Thread user : users) {
                user.join(10_000);
                assertThat(user.isAlive()).as("refused once closing").isFalse();
            }
            assertThat(violations).as("uses of a closed fd").hasValue(0);
            assertThat(Sockets.localPort(fd)).as("closed").isNegative();
            assertThatThrownBy(guard::acquire).isInstanceOf(ClosedChannelException.class);
        }
    }

    /**
     * A request blocked in one of the kernel's workers (a splice, which the kernel always runs there, from a pipe
     * nobody writes to) is running, not waiting: the cancel by fd cannot take it off a queue (the kernel counts it,
     * as a lone cancel would answer EALREADY) and signals the worker instead. The splice ends — interrupted: the
     * kernel's CQE carries its internal ERESTARTSYS, which the loop reports as EINTR — and the guard of its output fd
     * closes that fd.
     */
    @RepeatedTest(3)
    void aCloseEndsARequestBlockedInAKernelWorker() throws Exception {
        int[] pipe = new int[2];
        assertThat(LibC.pipe2(pipe, 0)).isZero();
        try (Uring uring = Uring.builder().loops(1).build()) {
            int out = LibC.open("/dev/null", LibC.O_WRONLY | LibC.O_CLOEXEC, 0);
            FdGuard guard = new FdGuard(uring.loop(), out);
            CompletableFuture<Integer> splice = uring.loop().submitAsync(
                    (sqe, scratch) -> sqe.prepSplice(pipe[0], -1, out, -1, 8, 0), guard);
            awaitCondition(() -> ThreadSyscalls.kernelWorkerSleepingIn("pipe_wait_readable"));

            CompletableFuture<Void> closed = guard.close();
            assertThat(catchCause(splice)).isInstanceOfSatisfying(ErrnoException.class,
                    e -> assertThat(e.errno()).isIn(Errno.EINTR, Errno.ECANCELED));
            closed.get(10, TimeUnit.SECONDS);
            assertThat(LibC.dup(out)).as("closed").isEqualTo(-Errno.EBADF);
        } finally {
            LibC.close(pipe[0]);
            LibC.close(pipe[1]);
        }
    }

    /**
     * A guard's close hands its cancel over to a loop that starts closing before it runs it: the cancel must
     * still end (the loop's close cancels the request itself), or the guard never closes its fd.
     */
    @Test
    void aCloseWhoseCancelMeetsTheRuntimeClosingStillClosesTheFd() throws Exception {
        Uring uring = Uring.builder().loops(1).build();
        EventLoop loop = uring.loop();
        try (Arena arena = Arena.ofShared()) {
            int fd = udpSocket();
            FdGuard guard = new FdGuard(loop, fd);
            CompletableFuture<Integer> read = loop.submitAsync(Op.read(fd, arena.allocate(8), -1), guard);
            CountDownLatch busy = new CountDownLatch(1);
            CompletableFuture<Void> goOn = new CompletableFuture<>();
            loop.execute(() -> {        // holds the loop so that the cancel waits in its queue
                busy.countDown();
                goOn.join();
            });
            busy.await();
            CompletableFuture<Void> closed = guard.close();     // the read is in flight: its cancel is handed over
            loop.close();                                       // the runtime's close, before the loop runs it
            goOn.complete(null);
            uring.close();
            assertThat(catchCause(read)).isInstanceOfSatisfying(ErrnoException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ECANCELED));
            assertThat(closed).as("the guard closed its fd as the loop stopped").isCompletedWithValue(null);
            assertThat(Sockets.localPort(fd)).as("closed").isNegative();
        }
    }

    /**
     * A sum of the striped count reads its stripes one by one. A user still holds the fd while another ends and
     * sums; between the stripes it reads, an acquirer finds the guard closing and backs off, its add landing in
     * a stripe already read and its undo in one still to read (a {@code LongAdder} moves a thread to another
     * cell after a CAS collision). Counting that undo without the add read one user too few: the fd closed
     * under the user still holding it, its number free for the next open.
     */
    @Test
    void aBackOffBetweenTheStripesOfASumDoesNotCloseTheFdUnderAUser() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            int fd = udpSocket();
            TwoStripes users = new TwoStripes();
            FdGuard guard = new FdGuard(new EventLoop[] {uring.loop()}, fd, users);
            guard.acquire();
            guard.acquire();                                    // the user still holding the fd below
            CompletableFuture<Void> closed = guard.close();
            awaitCondition(() -> users.subtracts.get() == -1);  // the close's cancel found nothing and ended
            users.betweenStripes = () ->
                    assertThatThrownBy(guard::acquire).isInstanceOf(ClosedChannelException.class);

            guard.release();
            assertThat(closed).as("one user still holds the fd").isNotDone();
            assertThat(Sockets.localPort(fd)).as("open").isNotNegative();

            guard.release();
            closed.get(10, TimeUnit.SECONDS);
            assertThat(Sockets.localPort(fd)).as("closed").isNegative();
        }
    }

    /** A striped count as a sum sees it: adds in the stripe read first, subtracts in the one read last. */
    private static final class TwoStripes extends LongAdder {
        final AtomicLong adds = new AtomicLong();
        final AtomicLong subtracts = new AtomicLong();
        /** Run once, by the next sum, between its two reads. */
        volatile Runnable betweenStripes;

        @Override
        public void add(long x) {
            (x > 0 ? adds : subtracts).addAndGet(x);
        }

        @Override
        public void increment() {
            add(1);
        }

        @Override
        public void decrement() {
            add(-1);
        }

        @Override
        public long sum() {
            long sum = adds.get();
            Runnable pause = betweenStripes;
            betweenStripes = null;
            if (pause != null) {
                pause.run();
            }
            return sum + subtracts.get();
        }
    }

    private static Throwable catchCause(CompletableFuture<?> f) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    /** An unbound UDP socket, the guard's to close. */
    private static int udpSocket() throws ErrnoException {
        int ret = Sockets.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
        if (ret < 0) {
            throw new ErrnoException("socket", ret);
        }
        return ret;
    }
}
