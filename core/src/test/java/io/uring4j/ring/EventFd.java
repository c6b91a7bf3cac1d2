package io.uring4j.ring;

import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/** An eventfd (EFD_CLOEXEC), counter 0; closes with try-with-resources. */
record EventFd(int fd) implements AutoCloseable {
    /** {@code flags}: 0 or {@link LibC#EFD_NONBLOCK}. */
    static EventFd open(int flags) {
        int fd = LibC.eventfd(0, flags | LibC.EFD_CLOEXEC);
        assertThat(fd).as("eventfd (negative: -errno)").isNotNegative();
        return new EventFd(fd);
    }

    /** Adds {@code value} to the counter. */
    void add(long value) {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(LibC.write(fd, arena.allocateFrom(JAVA_LONG, value))).as("eventfd write").isEqualTo(8);
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
