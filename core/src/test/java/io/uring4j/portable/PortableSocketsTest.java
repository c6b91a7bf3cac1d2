package io.uring4j.portable;

import io.uring4j.ring.BufferRing;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Timespec;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * What the portable engine does its own way under the socket opcodes: waits are armed on one epoll poller per
 * ring (no thread per pending request), cancel takes an armed request out of it, and a multishot receive reads
 * the application's buffer ring as the kernel would. The kernel's semantics themselves are checked by the ring
 * and net suites, which run on this engine too ({@code BothEngines}).
 */
class PortableSocketsTest {
    private static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private final Arena arena = Arena.ofShared();
    private final List<Integer> fds = new ArrayList<>();

    /** A CQE copied out of the ring. */
    private record Completion(long userData, int res, int flags) {
        boolean more() {
            return (flags & io.uring4j.ring.abi.CqeFlags.F_MORE) != 0;
        }

        boolean buffer() {
            return (flags & io.uring4j.ring.abi.CqeFlags.F_BUFFER) != 0;
        }

        int bufferId() {
            return flags >>> io.uring4j.ring.abi.CqeFlags.BUFFER_SHIFT;
        }
    }

    @AfterEach
    void closeEverything() {
        fds.forEach(LibC::close);
        arena.close();
    }

    private static IoUring ring(int entries) throws ErrnoException {
        return IoUring.builder().entries(entries).engine(Engine.portable()).build();
    }

    /** An AF_UNIX stream pair {a, b}, closed after the test. */
    private int[] streamPair() {
        int[] pair = new int[2];
        assertThat(Sockets.socketpair(Sockets.AF_UNIX, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0, pair)).isZero();
        fds.add(pair[0]);
        fds.add(pair[1]);
        return pair;
    }

    private static Completion reap(IoUring ring) throws ErrnoException {
        Cqe cqe = ring.waitCqes(1, PATIENCE_NANOS);
        if (cqe == null) {
            fail("no CQE within 10 s");
        }
        Completion c = new Completion(cqe.userData(), cqe.res(), cqe.flags());
        ring.cq().seen(cqe);
        return c;
    }

    private static List<Completion> reap(IoUring ring, int count) throws ErrnoException {
        List<Completion> out = new ArrayList<>();
        while (out.size() < count) {
            out.add(reap(ring));
        }
        return out;
    }

    private void writeAll(int fd, byte[] bytes) {
        MemorySegment data = arena.allocateFrom(JAVA_BYTE, bytes);
        for (long done = 0; done < bytes.length; ) {
            long n = LibC.write(fd, data.asSlice(done));
            assertThat(n).as("write").isPositive();
            done += n;
        }
    }

    /** The threads of this portable ring (its io-wq workers, timer and poller are named after its fd). */
    private static long threadsOf(IoUring ring) {
        String prefix = "uring4j-portable-" + Integer.toHexString(ring.fd()) + "-";
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }

    @Test
    void aMultishotRecvThatRunsOutOfBuffersEndsWithEnobufsAndLosesNoByte() throws Exception {
        int count = 4;
        int size = 16;
        byte[] sent = new byte[1000];
        new Random(7).nextBytes(sent);
        try (IoUring ring = ring(8); BufferRing br = ring.register().bufferRing(count, 3, 0)) {
            MemorySegment slab = arena.allocate((long) count * size);
            for (int bid = 0; bid < count; bid++) {
                br.add(slab.asSlice((long) bid * size, size), bid, bid);
            }
            br.advance(count);
            int[] pair = streamPair();
            writeAll(pair[0], sent);            // all of it queued before the first receive: buffers run out

            ByteArrayOutputStream received = new ByteArrayOutputStream();
            int enobufs = 0;
            while (true) {
                ring.sq().next().prepRecvMultishot(pair[1], 0).bufferSelect(3).userData(1);
                ring.submit();
                int recycled = 0;
                Completion c = null;
                while (received.size() < sent.length && (c = reap(ring)).more()) {
                    assertThat(c.buffer()).as("%s", c).isTrue();
                    assertThat(c.res()).isPositive().isLessThanOrEqualTo(size);
                    received.write(slab.asSlice((long) c.bufferId() * size, c.res()).toArray(JAVA_BYTE));
                    br.add(slab.asSlice((long) c.bufferId() * size, size), c.bufferId(), recycled++);
                }
                if (received.size() == sent.length) {
                    break;                      // everything is here; the receive waits for more
                }
                assertThat(c.res()).as("the terminal CQE of a receive with data still queued")
                        .isEqualTo(-Errno.ENOBUFS);
                assertThat(c.buffer()).as("ENOBUFS carries no buffer").isFalse();
                enobufs++;
                br.advance(recycled);           // give the buffers back, then receive on
            }
            ring.sq().next().prepCancel(1, 0).userData(2);
            ring.submit();
            assertThat(reap(ring, 2)).containsExactlyInAnyOrder(new Completion(1, -Errno.ECANCELED, 0),
                    new Completion(2, 0, 0));
            assertThat(received.toByteArray()).isEqualTo(sent);
            assertThat(enobufs).as("rounds ended by an empty buffer ring").isEqualTo(sent.length / (count * size));
        }
    }

    @Test
    void cancellingAnArmedRecvTakesItOffThePollerAndLeavesTheDataForTheNextReader() throws Exception {
        try (IoUring ring = ring(8)) {
            int[] pair = streamPair();
            MemorySegment buf = arena.allocate(64);
            ring.sq().next().prepRecv(pair[1], buf, 0).userData(1);
            ring.submit();
            assertThat(ring.peekCqe()).as("nothing to receive: the recv waits").isNull();

            ring.sq().next().prepCancel(1, 0).userData(2);
            ring.submit();
            assertThat(reap(ring, 2)).containsExactlyInAnyOrder(new Completion(1, -Errno.ECANCELED, 0),
                    new Completion(2, 0, 0));

            // The cancelled recv is gone from the poller: data sent now is the next reader's, all of it.
            writeAll(pair[0], "after".getBytes());
            ring.sq().next().prepRecv(pair[1], buf, 0).userData(3);
            ring.submit();
            assertThat(reap(ring)).isEqualTo(new Completion(3, 5, 0));
            assertThat(buf.asSlice(0, 5).toArray(JAVA_BYTE)).isEqualTo("after".getBytes());
        }
    }

    @Test
    void withTaskrunFlagAReadyRequestWaitsForTheNextEnterWhereACancelComesFirst() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).coopTaskrun().taskrunFlag().engine(Engine.portable())
                .build()) {
            int[] pair = streamPair();
            MemorySegment buf = arena.allocate(8);
            ring.sq().next().prepRecv(pair[1], buf, 0).userData(1);
            ring.submit();
            writeAll(pair[0], "x".getBytes());
            // The poller sees the data and queues the recv as task work: the flag asks the application to enter.
            long deadline = System.nanoTime() + PATIENCE_NANOS;
            while ((ring.sq().kernelFlags() & SqRingFlags.TASKRUN) == 0) {
                assertThat(System.nanoTime()).as("IORING_SQ_TASKRUN raised").isLessThan(deadline);
                Thread.sleep(1);
            }
            assertThat(ring.cq().ready()).as("nothing runs before the next enter").isZero();

            ring.sq().next().prepCancelFd(pair[1], OpFlags.Cancel.ALL).userData(2);
            ring.submit();

            // The cancel, submitted first in that enter, takes the recv (and counts it) before it runs again.
            assertThat(reap(ring, 2)).containsExactlyInAnyOrder(new Completion(1, -Errno.ECANCELED, 0),
                    new Completion(2, 1, 0));
            assertThat(ring.sq().kernelFlags() & SqRingFlags.TASKRUN).isZero();
            assertThat(LibC.read(pair[1], buf)).as("the byte is still in the socket").isEqualTo(1);
        }
    }

    @Test
    void aLinkTimeoutEndsAnArmedRecv() throws Exception {
        try (IoUring ring = ring(8)) {
            int[] pair = streamPair();
            MemorySegment ts = Timespec.allocate(arena, Duration.ofMillis(20));
            ring.sq().next().prepRecv(pair[1], arena.allocate(64), 0).userData(1).link();
            ring.sq().next().prepLinkTimeout(ts, 0).userData(2);
            ring.submit();

            assertThat(reap(ring, 2)).containsExactlyInAnyOrder(new Completion(1, -Errno.ECANCELED, 0),
                    new Completion(2, -Errno.ETIME, 0));
        }
    }

    @Test
    void aConnectInProgressWaitsOnThePollerUntilALinkTimeoutEndsIt() throws Exception {
        try (IoUring ring = ring(8)) {
            int listener = tcpSocket(0);
            assertThat(Sockets.bind(listener, Sockets.loopback(arena, 0))).isZero();
            assertThat(Sockets.listen(listener, 0)).isZero();
            int port = Sockets.localPort(listener);
            // A backlog of 0 holds one connection; once it is queued (the listener is readable), the SYNs of
            // further connects are dropped and they stay in progress.
            assertThat(Sockets.connect(tcpSocket(0), Sockets.loopback(arena, port))).isZero();
            long deadline = System.nanoTime() + PATIENCE_NANOS;
            while (SocketSys.readyNow(listener, OpFlags.Poll.POLLIN) == 0) {
                assertThat(System.nanoTime()).as("the first connection reaches the accept queue").isLessThan(deadline);
                Thread.sleep(1);
            }
            int client = tcpSocket(0);

            ring.sq().next().prepConnect(client, Sockets.loopback(arena, port)).userData(1).link();
            ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, Duration.ofMillis(50)), 0).userData(2);
            ring.submit();

            assertThat(reap(ring, 2)).containsExactlyInAnyOrder(new Completion(1, -Errno.ECANCELED, 0),
                    new Completion(2, -Errno.ETIME, 0));
            assertThat(Sys.fcntl(client, Sys.F_GETFL, 0) & LibC.O_NONBLOCK)
                    .as("the socket is blocking again after the connect attempt").isZero();
        }
    }

    private int tcpSocket(int flags) {
        int fd = Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC | flags, 0);
        assertThat(fd).isNotNegative();
        fds.add(fd);
        return fd;
    }

    @Test
    void aWaitallRecvGoesOnAcrossWaitsUntilTheWholeLengthOrTheEnd() throws Exception {
        try (IoUring ring = ring(8)) {
            int[] pair = streamPair();
            MemorySegment buf = arena.allocate(10);
            ring.sq().next().prepRecv(pair[1], buf, Sockets.MSG_WAITALL).userData(1);
            ring.submit();
            writeAll(pair[0], "0123".getBytes());
            writeAll(pair[0], "456789".getBytes());
            assertThat(reap(ring)).isEqualTo(new Completion(1, 10, 0));
            assertThat(buf.toArray(JAVA_BYTE)).isEqualTo("0123456789".getBytes());

            // The peer ends the stream early: what arrived, and a link behind it fails.
            ring.sq().next().prepRecv(pair[1], buf, Sockets.MSG_WAITALL).userData(2).link();
            ring.sq().next().prepNop().userData(3);
            ring.submit();
            writeAll(pair[0], "abc".getBytes());
            assertThat(LibC.close(pair[0])).isZero();
            fds.remove(Integer.valueOf(pair[0]));
            assertThat(reap(ring, 2)).containsExactly(new Completion(2, 3, 0),
                    new Completion(3, -Errno.ECANCELED, 0));
        }
    }

    @Test
    void aPollOnADescriptorThatIsNotOpenIsEbadf() throws Exception {
        try (IoUring ring = ring(4)) {
            int notOpen = (1 << 30) - 1;        // above any nr_open
            ring.sq().next().prepPollAdd(notOpen, OpFlags.Poll.POLLIN).userData(1);
            ring.sq().next().prepPollMultishot(notOpen, OpFlags.Poll.POLLIN).userData(2);
            ring.submit();
            assertThat(reap(ring, 2)).containsExactlyInAnyOrder(new Completion(1, -Errno.EBADF, 0),
                    new Completion(2, -Errno.EBADF, 0));
        }
    }

    @Test
    void fiveHundredIdleRecvsWaitOnOnePollerThread() throws Exception {
        int n = 512;
        try (IoUring ring = ring(n)) {
            MemorySegment bufs = arena.allocate(n);
            int[][] pairs = new int[n][];
            for (int i = 0; i < n; i++) {
                pairs[i] = streamPair();
                ring.sq().next().prepRecv(pairs[i][1], bufs.asSlice(i, 1), 0).userData(i);
            }
            // A socket recv tries once inline in enter and arms its wait on the poller: when submit returns,
            // all 512 are waiting.
            assertThat(ring.submit()).isEqualTo(n);
            assertThat(ring.peekCqe()).isNull();

            assertThat(threadsOf(ring)).as("threads of the ring with 512 pending recvs: the poller only").isEqualTo(1);

            for (int i = 0; i < n; i++) {
                writeAll(pairs[i][0], new byte[] {(byte) i});
            }
            for (Completion c : reap(ring, n)) {
                assertThat(c.res()).as("%s", c).isEqualTo(1);
                assertThat(bufs.get(JAVA_BYTE, c.userData())).isEqualTo((byte) c.userData());
            }
        }
    }

    @Test
    void pendingPipeReadsFreeTheirWorkersWhileTheyWait() throws Exception {
        int n = 64;
        try (IoUring ring = ring(n)) {
            MemorySegment bufs = arena.allocate(n);
            int[][] pipes = new int[n][];
            for (int i = 0; i < n; i++) {
                pipes[i] = new int[2];
                assertThat(LibC.pipe2(pipes[i], LibC.O_CLOEXEC)).isZero();
                fds.add(pipes[i][0]);
                fds.add(pipes[i][1]);
                ring.sq().next().prepRead(pipes[i][0], bufs.asSlice(i, 1), 0).userData(i);
            }
            assertThat(ring.submit()).isEqualTo(n);
            // Reads go to the io-wq (a read may block), whose workers arm the wait and move on: 64 pending
            // reads never hold more than the io-wq's bound of workers, plus the poller.
            int bound = Math.min(n, 4 * Runtime.getRuntime().availableProcessors());
            assertThat(threadsOf(ring)).isLessThanOrEqualTo(bound + 1);

            for (int i = 0; i < n; i++) {
                writeAll(pipes[i][1], new byte[] {(byte) i});
            }
            for (Completion c : reap(ring, n)) {
                assertThat(c.res()).as("%s", c).isEqualTo(1);
                assertThat(bufs.get(JAVA_BYTE, c.userData())).isEqualTo((byte) c.userData());
            }
        }
    }

    @Test
    void aMultishotPollOnAnAlwaysReadySocketPostsOncePerWakeUpNotOnceAPoll() throws Exception {
        try (IoUring ring = ring(8)) {
            int[] pair = streamPair();
            ring.sq().next().prepPollMultishot(pair[1], OpFlags.Poll.POLLIN).userData(1);
            ring.submit();
            writeAll(pair[0], new byte[] {1});
            Completion first = reap(ring);
            assertThat(first.more()).isTrue();
            assertThat(first.res() & OpFlags.Poll.POLLIN).isNotZero();
            // The byte stays unread, the socket stays readable: a level-triggered re-arm would flood the CQ.
            writeAll(pair[0], new byte[] {2});
            assertThat(reap(ring).more()).as("a second wake-up, a second CQE").isTrue();

            ring.sq().next().prepPollRemove(1).userData(2);
            ring.submit();
            // Exactly the two ends: no F_MORE CQE for the byte that sat unread in between.
            assertThat(reap(ring, 2)).containsExactlyInAnyOrder(new Completion(1, -Errno.ECANCELED, 0),
                    new Completion(2, 0, 0));
        }
    }
}
