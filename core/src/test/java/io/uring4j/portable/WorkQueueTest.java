package io.uring4j.portable;

import io.uring4j.fs.FsTestKit;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.Fields;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import static org.assertj.core.api.Assertions.assertThat;

/** The io-wq's workers: who wakes or starts one for queued work. */
class WorkQueueTest {
    /**
     * Two requests queued while one worker is idle: that worker wakes for the first, and the second gets a worker
     * of its own rather than counting on the same wake-up — else it waits behind the first, here an open of a
     * FIFO that blocks until a writer comes. The queue's lock is held across both pushes, so the idle worker
     * cannot wake in between.
     */
    @Test
    void twoPushesToOneIdleWorkerStartAnotherForTheSecond(@TempDir Path dir) throws Throwable {
        Path fifo = FsTestKit.mkfifo(dir.resolve("fifo"));
        Path file = Files.writeString(dir.resolve("file"), "x");
        try (IoUring r = IoUring.builder().entries(8).engine(Engine.portable()).build();
             Arena arena = Arena.ofConfined()) {
            MemorySegment fifoPath = arena.allocateFrom(fifo.toString());
            MemorySegment filePath = arena.allocateFrom(file.toString());
            WorkQueue wq = PortableEngine.instance().ring(r.fd()).wq;
            r.sq().next().prepOpenat(LibC.AT_FDCWD, filePath, LibC.O_RDONLY | LibC.O_CLOEXEC, 0).userData(1);
            r.submitAndWait(1);
            drain(r);
            ReentrantLock lock = Fields.read(WorkQueue.class, "lock", wq);
            Object bound = Fields.read(WorkQueue.class, "bound", wq);
            while (true) {          // the worker that ran the open now waits for work
                lock.lock();
                try {
                    if (Fields.<Integer>read(bound.getClass(), "idle", bound) == 1) {
                        break;
                    }
                } finally {
                    lock.unlock();
                }
                Thread.sleep(1);
            }
            lock.lock();
            try {
                r.sq().next().prepOpenat(LibC.AT_FDCWD, fifoPath, LibC.O_RDONLY | LibC.O_CLOEXEC, 0).userData(2);
                r.sq().next().prepOpenat(LibC.AT_FDCWD, filePath, LibC.O_RDONLY | LibC.O_CLOEXEC, 0).userData(3);
                assertThat(r.submit()).isEqualTo(2);
                assertThat(wq.workers(true)).as("bound workers: the idle one and one for the second open")
                        .isEqualTo(2);
            } finally {
                lock.unlock();
            }
            Cqe cqe = r.waitCqes(1, TimeUnit.SECONDS.toNanos(10));
            assertThat(cqe).as("the open of the file, not held up by the open of the FIFO").isNotNull();
            assertThat(cqe.userData()).isEqualTo(3);
            drain(r);
            int writer = LibC.open(fifo.toString(), LibC.O_WRONLY | LibC.O_CLOEXEC, 0);     // the FIFO opens
            try {
                r.submitAndWait(1);
                drain(r);
            } finally {
                LibC.close(writer);
            }
        }
    }

    private static void drain(IoUring r) {
        for (Cqe c; (c = r.cq().peek()) != null; r.cq().seen(c)) {
            if (c.res() >= 0) {
                LibC.close(c.res());
            }
        }
    }
}
