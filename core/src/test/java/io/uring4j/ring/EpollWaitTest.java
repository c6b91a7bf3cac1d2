package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.LibC;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;

/** EPOLL_WAIT (6.15): an epoll set, filled with EPOLL_CTL, waited on through the ring (liburing's epwait.c). */
@Timeout(30)
class EpollWaitTest {
    private static final int EPOLL_CTL_ADD = 1;
    /** {@code struct epoll_event} is packed on x86-64: events u32 at 0, data u64 at 4. */
    private static final long EVENT_SIZE = 12;

    private static final MethodHandle EPOLL_CREATE1 = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("epoll_create1").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    @Test
    void aWaitCompletesWithTheReadyEvents() throws Throwable {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8); Pipe pipe = Pipe.open()) {
            assumeSupported(ring, Opcode.EPOLL_WAIT, Opcode.EPOLL_CTL);
            int epfd = (int) EPOLL_CREATE1.invokeExact(LibC.O_CLOEXEC);
            assertThat(epfd).isNotNegative();
            try {
                MemorySegment interest = arena.allocate(EVENT_SIZE, 8);
                interest.set(JAVA_INT_UNALIGNED, 0, OpFlags.Poll.POLLIN);
                interest.set(JAVA_LONG_UNALIGNED, 4, 0x1234L);
                ring.sq().next().prepEpollCtl(epfd, pipe.readFd(), EPOLL_CTL_ADD, interest).userData(1);
                assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, 0));

                MemorySegment events = arena.allocate(EVENT_SIZE * 4, 8);
                ring.sq().next().prepEpollWait(epfd, events, 4, 0).userData(2);
                ring.submit();
                pipe.write((byte) 1);

                assertThat(reap(ring)).as("one fd ready").isEqualTo(Completion.cqe(2, 1));
                assertThat(events.get(JAVA_INT_UNALIGNED, 0) & OpFlags.Poll.POLLIN).isNotZero();
                assertThat(events.get(JAVA_LONG_UNALIGNED, 4)).as("the data registered with it").isEqualTo(0x1234L);
            } finally {
                LibC.close(epfd);
            }
        }
    }
}
