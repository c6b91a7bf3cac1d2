package io.uring4j.portable;

import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.sys.LibC;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static io.uring4j.testkit.ThreadSyscalls.writing;
import static org.assertj.core.api.Assertions.assertThat;

/** The registered eventfd against posters signalling it from other threads. */
class CqEventfdTest {
    /**
     * Unregistering closes our duplicate of the eventfd; a signal that read its number must be done with it
     * first, or its write may land in whatever file reuses the number. The nearest point of a signal we can
     * hold is inside its write: the eventfd is blocking and its counter full, so the write waits for a read.
     */
    @Test
    void unregisterWaitsForASignalStillWritingToTheEventfd() throws Exception {
        int efd = LibC.eventfd(0, LibC.O_CLOEXEC);
        try (IoUring r = IoUring.builder().entries(8).engine(Engine.portable()).build();
             Arena arena = Arena.ofShared()) {
            CqEventfd eventfd = PortableEngine.instance().ring(r.fd()).eventfd;
            MemorySegment value = arena.allocate(JAVA_LONG);
            value.set(JAVA_LONG, 0, -2L);       // 0xfffffffffffffffe: the counter's maximum, another write blocks
            assertThat(LibC.write(efd, value)).isEqualTo(8);
            r.register().eventfd(efd);
            int dup = eventfd.fd;
            Thread signal = Thread.ofPlatform().daemon().start(eventfd::signal);
            try {
                while (!writing(dup)) {
                    assertThat(signal.isAlive()).as("the signal did not block").isTrue();
                    Thread.sleep(1);
                }
                Thread unregister = Thread.ofPlatform().daemon().start(() -> {
                    try {
                        r.register().unregisterEventfd();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
                while (unregister.getState() != Thread.State.WAITING && unregister.isAlive()) {
                    Thread.sleep(1);
                }
                assertThat(unregister.isAlive()).as("unregister waits for the signal").isTrue();
                assertThat(LibC.read(efd, value)).isEqualTo(8);     // the signal's write goes through
                unregister.join();
                assertThat(eventfd.fd).isEqualTo(-1);
            } finally {
                LibC.read(efd, value);
                signal.join();
            }
        } finally {
            LibC.close(efd);
        }
    }
}
