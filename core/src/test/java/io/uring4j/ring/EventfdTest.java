package io.uring4j.ring;

import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import static io.uring4j.ring.FileKit.iovecs;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.reapResults;
import static io.uring4j.ring.abi.OpFlags.Poll.POLLIN;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing eventfd.c and eventfd-disable.c: a registered eventfd is signalled when CQEs are posted, unless
 * {@link CompletionQueue#eventfdEnabled(boolean)} turned notification off (IORING_CQ_EVENTFD_DISABLED).
 */
@Timeout(30)
@BothEngines
class EventfdTest {
    /**
     * A POLL_ADD on the eventfd linked to a READV of it, then a separate NOP: the NOP's CQE signals the eventfd,
     * which fires the poll, which starts the read of the 8-byte counter.
     */
    @Test
    void aNopCompletionFiresALinkedPollAndReadOfTheEventfd() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8); EventFd efd = EventFd.open(0)) {
            ring.register().eventfd(efd.fd());
            MemorySegment counter = arena.allocate(JAVA_LONG);
            MemorySegment iov = iovecs(arena, counter);

            ring.sq().next().prepPollAdd(efd.fd(), POLLIN).userData(1).link();
            ring.sq().next().prepReadv(efd.fd(), iov, 1, 0, 0).userData(2);
            assertThat(ring.submit()).isEqualTo(2);
            assertThat(ring.peekCqe()).as("nothing has signalled the eventfd yet").isNull();
            ring.sq().next().prepNop().userData(3);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(reapResults(ring, 3)).containsEntry(1L, POLLIN).containsEntry(2L, 8).containsEntry(3L, 0);
            assertThat(counter.get(JAVA_LONG, 0)).isPositive();
        }
    }

    @Test
    void eventfdIsEnabledByDefaultAndTheToggleIsVisible() throws Exception {
        try (IoUring ring = IoUring.open(8); EventFd efd = EventFd.open(0)) {
            ring.register().eventfd(efd.fd());
            assertThat(ring.cq().eventfdEnabled()).isTrue();
            ring.cq().eventfdEnabled(false);
            assertThat(ring.cq().eventfdEnabled()).isFalse();
            ring.cq().eventfdEnabled(true);
            assertThat(ring.cq().eventfdEnabled()).isTrue();
        }
    }

    /**
     * eventfd-disable.c: with notification off, a pending READV of the eventfd sits through 63 NOP completions;
     * once it is back on, a single NOP signals it and the read returns the counter value 1.
     */
    @ParameterizedTest(name = "DEFER_TASKRUN: {0}")
    @ValueSource(booleans = {false, true})
    void disabledNotificationLeavesAPendingReadWaitingUntilReenabled(boolean defer) throws Exception {
        Rings.kernelOnlyFlags(defer ? SetupFlags.DEFER_TASKRUN : 0);
        IoUringBuilder builder = IoUring.builder().entries(64);
        if (defer) {
            builder.deferTaskrun();
        }
        try (Arena arena = Arena.ofConfined(); IoUring ring = builder.build(); EventFd efd = EventFd.open(0)) {
            ring.register().eventfd(efd.fd());
            ring.cq().eventfdEnabled(false);
            MemorySegment counter = arena.allocate(JAVA_LONG);
            ring.sq().next().prepReadv(efd.fd(), iovecs(arena, counter), 1, 0, 0).userData(1);
            assertThat(ring.submit()).isEqualTo(1);

            for (int i = 0; i < 63; i++) {
                ring.sq().next().prepNop().userData(2);
            }
            assertThat(ring.submit()).isEqualTo(63);
            List<Completion> nops = reap(ring, 63);
            assertThat(nops).allSatisfy(c -> {
                assertThat(c.userData()).as("the eventfd read must still be pending").isEqualTo(2);
                assertThat(c.res()).isZero();
            });

            ring.cq().eventfdEnabled(true);
            ring.sq().next().prepNop().userData(2);
            assertThat(ring.submit()).isEqualTo(1);
            assertThat(reapResults(ring, 2)).containsEntry(1L, 8).containsEntry(2L, 0);
            assertThat(counter.get(JAVA_LONG, 0)).isEqualTo(1);
        }
    }

    /** The same switch observed directly on a non-blocking eventfd. */
    @Test
    void noSignalWhileDisabledAndASignalOnceReenabled() throws Exception {
        try (IoUring ring = IoUring.open(8); EventFd efd = EventFd.open(LibC.EFD_NONBLOCK)) {
            ring.register().eventfd(efd.fd());

            ring.cq().eventfdEnabled(false);
            ring.sq().next().prepNop().userData(1);
            ring.submitAndWait(1);
            assertThat(reapResults(ring, 1)).containsExactlyEntriesOf(Map.of(1L, 0));
            assertThat(efd.read()).isEqualTo(-Errno.EAGAIN);

            ring.cq().eventfdEnabled(true);
            ring.sq().next().prepNop().userData(2);
            ring.submitAndWait(1);
            assertThat(reapResults(ring, 1)).containsExactlyEntriesOf(Map.of(2L, 0));
            assertThat(efd.awaitSignal()).isEqualTo(1);
        }
    }

    @Test
    void unregisteredEventfdIsNoLongerSignalled() throws Exception {
        try (IoUring ring = IoUring.open(8); EventFd efd = EventFd.open(LibC.EFD_NONBLOCK)) {
            ring.register().eventfd(efd.fd());
            ring.register().unregisterEventfd();
            ring.sq().next().prepNop().userData(1);
            ring.submitAndWait(1);
            assertThat(reapResults(ring, 1)).containsExactlyEntriesOf(Map.of(1L, 0));
            assertThat(efd.read()).isEqualTo(-Errno.EAGAIN);
        }
    }
}
