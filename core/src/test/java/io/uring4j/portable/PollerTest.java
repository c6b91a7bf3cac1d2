package io.uring4j.portable;

import io.uring4j.ring.Cqe;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static io.uring4j.testkit.ThreadSyscalls.writing;
import static org.assertj.core.api.Assertions.assertThat;

/** The poller's fds against threads that use them while it lets them go. */
class PollerTest {
    /**
     * A poster waking the issuer polling in enter reads the wake-up eventfd's number and writes to it, outside
     * the ring lock; the poller closing (the ring closes) must wait for that write, or it may land in whatever
     * file reuses the number. The nearest point of a wake-up we can hold is inside its write: we put a blocking
     * eventfd with a full counter under the wake-up eventfd's number, so the write waits for a read.
     */
    @Test
    void closingWaitsForAWakeUpStillWritingToTheEventfd() throws Exception {
        int efd = LibC.eventfd(0, LibC.O_CLOEXEC);
        try (IoUring r = IoUring.builder().entries(8).flags(SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN)
                .engine(Engine.portable()).build();
             Arena arena = Arena.ofShared()) {
            Poller poller = PortableEngine.instance().ring(r.fd()).poller;
            assertThat(poller.open()).isZero();
            int wakeFd = poller.wakeFd;
            MemorySegment value = arena.allocate(JAVA_LONG);
            value.set(JAVA_LONG, 0, -2L);       // 0xfffffffffffffffe: the counter's maximum, another write blocks
            assertThat(LibC.write(efd, value)).isEqualTo(8);
            assertThat(LibC.dup2(efd, wakeFd)).isEqualTo(wakeFd);
            Thread poster = Thread.ofPlatform().daemon().start(poller::wakeUp);
            try {
                while (!writing(wakeFd)) {
                    assertThat(poster.isAlive()).as("the wake-up did not block").isTrue();
                    Thread.sleep(1);
                }
                Thread closer = Thread.ofPlatform().daemon().start(poller::close);
                while (closer.getState() != Thread.State.WAITING && closer.isAlive()) {
                    Thread.sleep(1);
                }
                assertThat(closer.isAlive()).as("closing waits for the wake-up").isTrue();
                assertThat(LibC.read(efd, value)).isEqualTo(8);     // the wake-up's write goes through
                closer.join();
                assertThat(poller.wakeFd).isEqualTo(-1);
            } finally {
                LibC.read(efd, value);
                poster.join();
            }
        } finally {
            LibC.close(efd);
        }
    }

    /**
     * A multishot poll waits on a duplicate of its fd, closed when it is cancelled. An event the poller thread
     * took from epoll_wait for that duplicate, just before the cancel, must not go to a multishot poll armed
     * meanwhile on a duplicate that got the same number: its file is not ready. The poller thread is held at the
     * ring lock with that event — we hold the lock, reentrant, while we cancel and arm again — and a third poll,
     * made ready afterwards, tells us when the thread is done with it.
     */
    @Test
    void aCancelledMultishotPollsEventDoesNotGoToTheNextOnItsNumber() throws Exception {
        int[] old = new int[2];
        int[] next = new int[2];
        int[] marker = new int[2];
        List<Integer> fillers = new ArrayList<>();
        assertThat(LibC.pipe2(old, LibC.O_CLOEXEC)).isZero();
        assertThat(LibC.pipe2(next, LibC.O_CLOEXEC)).isZero();
        assertThat(LibC.pipe2(marker, LibC.O_CLOEXEC)).isZero();
        try (IoUring r = IoUring.builder().entries(8).engine(Engine.portable()).build();
             Arena arena = Arena.ofConfined()) {
            PortableRing ring = PortableEngine.instance().ring(r.fd());
            MemorySegment one = arena.allocate(1);
            r.sq().next().prepPollMultishot(old[0], OpFlags.Poll.POLLIN).userData(1);
            r.sq().next().prepPollMultishot(marker[0], OpFlags.Poll.POLLIN).userData(3);
            assertThat(r.submit()).isEqualTo(2);
            int dup = pollFd(ring, 1);
            // The lowest free number is what the next dup gets: fill any hole below ours.
            int fd;
            while ((fd = LibC.dup(old[0])) < dup) {
                fillers.add(fd);
            }
            LibC.close(fd);
            ring.lock.lock();
            try {
                assertThat(LibC.write(old[1], one)).isEqualTo(1);
                while (!pollerWaitsForTheLock(ring)) {
                    Thread.sleep(1);
                }
                r.sq().next().prepCancel(1, 0).userData(2);
                r.sq().next().prepPollMultishot(next[0], OpFlags.Poll.POLLIN).userData(4);
                assertThat(r.submit()).isEqualTo(2);
                assertThat(pollFd(ring, 4)).as("the new poll's duplicate takes the old one's number").isEqualTo(dup);
            } finally {
                ring.lock.unlock();
            }
            assertThat(LibC.write(marker[1], one)).isEqualTo(1);
            List<Long> seen = new ArrayList<>();
            while (!seen.contains(3L)) {
                Cqe cqe = r.waitCqes(1, TimeUnit.SECONDS.toNanos(10));
                assertThat(cqe).as("CQEs so far: %s", seen).isNotNull();
                seen.add(cqe.userData());
                if (cqe.userData() == 1) {
                    assertThat(cqe.res()).isEqualTo(-Errno.ECANCELED);
                }
                r.cq().seen(cqe);
            }
            assertThat(seen).as("the new poll's pipe is empty").doesNotContain(4L).contains(1L, 2L);
        } finally {
            for (int fd : fillers) {
                LibC.close(fd);
            }
            for (int fd : new int[] {old[0], old[1], next[0], next[1], marker[0], marker[1]}) {
                LibC.close(fd);
            }
        }
    }

    /** The fd the armed request {@code userData} waits on: a multishot poll's duplicate. */
    private static int pollFd(PortableRing ring, long userData) {
        ring.lock.lock();
        try {
            return Arrays.stream(ring.lock.pool.all)
                    .filter(q -> q != null && q.userData == userData && q.state == Request.POLLING)
                    .findFirst().orElseThrow().pollFd;
        } finally {
            ring.lock.unlock();
        }
    }

    /** Whether {@code ring}'s poller thread, back from epoll_wait, waits for the ring lock. */
    private static boolean pollerWaitsForTheLock(PortableRing ring) {
        String name = "uring4j-portable-" + Integer.toHexString(ring.fd) + "-poller";
        return Thread.getAllStackTraces().entrySet().stream()
                .anyMatch(e -> e.getKey().getName().equals(name) && e.getKey().getState() == Thread.State.WAITING
                        && Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().equals(Poller.class.getName())
                                && f.getMethodName().equals("run")));
    }
}
