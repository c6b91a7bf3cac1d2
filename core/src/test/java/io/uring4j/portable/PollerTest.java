package io.uring4j.portable;

import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.LibC;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
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

    /** Whether a thread of ours is blocked in write(2) on {@code fd}: its /proc syscall line says so. */
    private static boolean writing(int fd) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.anyMatch(task -> {
                try {
                    String[] call = Files.readString(task.resolve("syscall")).trim().split(" ");
                    return call.length > 1 && call[0].equals("1") && Long.decode(call[1]) == fd;
                } catch (IOException e) {
                    return false;       // the thread has gone
                }
            });
        }
    }
}
