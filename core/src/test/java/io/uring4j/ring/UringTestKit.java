package io.uring4j.ring;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** Small fixtures shared by the ring tests: copied completions, pipes, eventfds and a second OS thread. */
final class UringTestKit {
    private UringTestKit() {
    }

    /** One completion copied out of the CQ (the {@link Cqe} cursor is only valid until the head moves). */
    record Completion(long userData, int res, int flags) {
        boolean hasMore() {
            return CqeFlags.hasMore(flags);
        }

        @Override
        public String toString() {
            return "Completion[user_data=" + userData + " res=" + (res < 0 ? Errno.name(res) : res)
                    + " flags=" + CqeFlags.toString(flags) + "]";
        }
    }

    /** Waits for {@code count} CQEs, one at a time, and returns them in CQ order. */
    static List<Completion> reap(IoUring ring, int count) throws ErrnoException {
        List<Completion> out = new ArrayList<>(count);
        while (out.size() < count) {
            Cqe cqe = ring.waitCqe();
            out.add(new Completion(cqe.userData(), cqe.res(), cqe.flags()));
            ring.cq().seen(cqe);
        }
        return out;
    }

    /** Waits for {@code count} CQEs and maps user_data to result; fails on a repeated user_data. */
    static Map<Long, Integer> reapResults(IoUring ring, int count) throws ErrnoException {
        Map<Long, Integer> results = new LinkedHashMap<>();
        for (Completion c : reap(ring, count)) {
            if (results.put(c.userData(), c.res()) != null) {
                throw new AssertionError("two CQEs with user_data " + c.userData());
            }
        }
        return results;
    }

    /** Copies every CQE that is in the CQ right now, without entering the kernel. */
    static List<Completion> drainReady(IoUring ring) {
        List<Completion> out = new ArrayList<>();
        ring.cq().drain(c -> out.add(new Completion(c.userData(), c.res(), c.flags())));
        return out;
    }

    /** Runs {@code task} on a new platform thread (a distinct kernel task), waits for it, and returns or rethrows. */
    static <T> T onPlatformThread(Callable<T> task) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("uring4j-other-issuer").start(() -> {
            try {
                result.set(task.call());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        thread.join();
        Throwable t = failure.get();
        if (t instanceof Exception e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return result.get();
    }

    /** A pipe; both ends close with try-with-resources. */
    record Pipe(int readFd, int writeFd) implements AutoCloseable {
        static Pipe open() {
            int[] fds = new int[2];
            int ret = LibC.pipe2(fds, LibC.O_CLOEXEC);
            if (ret < 0) {
                throw new IllegalStateException("pipe2: " + Errno.name(ret));
            }
            return new Pipe(fds[0], fds[1]);
        }

        /** Writes {@code bytes} in one write(2) (atomic below PIPE_BUF) and checks it all went in. */
        void write(byte... bytes) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment buf = arena.allocate(bytes.length);
                MemorySegment.copy(bytes, 0, buf, JAVA_BYTE, 0, bytes.length);
                long ret = LibC.write(writeFd, buf);
                if (ret != bytes.length) {
                    throw new IllegalStateException("pipe write returned " + ret);
                }
            }
        }

        /** One read(2) of at most {@code max} bytes (blocks while the pipe is empty). */
        byte[] read(int max) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment buf = arena.allocate(max);
                long ret = LibC.read(readFd, buf);
                if (ret < 0) {
                    throw new IllegalStateException("pipe read: " + Errno.name((int) ret));
                }
                return buf.asSlice(0, ret).toArray(JAVA_BYTE);
            }
        }

        @Override
        public void close() {
            LibC.close(readFd);
            LibC.close(writeFd);
        }
    }

    /** An eventfd; closes with try-with-resources. */
    record EventFd(int fd) implements AutoCloseable {
        static EventFd open(int flags) {
            int fd = LibC.eventfd(0, flags | LibC.EFD_CLOEXEC);
            if (fd < 0) {
                throw new IllegalStateException("eventfd: " + Errno.name(fd));
            }
            return new EventFd(fd);
        }

        /** Adds {@code value} to the counter. */
        void add(long value) {
            try (Arena arena = Arena.ofConfined()) {
                long ret = LibC.write(fd, arena.allocateFrom(JAVA_LONG, value));
                if (ret != 8) {
                    throw new IllegalStateException("eventfd write returned " + ret);
                }
            }
        }

        /** Reads and resets the counter: its value, or {@code -errno} ({@code -EAGAIN}: zero, non-blocking). */
        long read() {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment value = arena.allocate(JAVA_LONG);
                long ret = LibC.read(fd, value);
                return ret < 0 ? ret : value.get(JAVA_LONG, 0);
            }
        }

        /**
         * Reads a non-blocking eventfd until it has been signalled and returns the value. Polls: the kernel may
         * signal from an RCU callback, a moment after the event. Bounded by the calling test's timeout.
         */
        long awaitSignal() throws InterruptedException {
            long value;
            while ((value = read()) == -Errno.EAGAIN) {
                Thread.sleep(1);
            }
            return value;
        }

        @Override
        public void close() {
            LibC.close(fd);
        }
    }
}
