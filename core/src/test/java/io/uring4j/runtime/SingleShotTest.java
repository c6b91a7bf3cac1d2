package io.uring4j.runtime;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.Fields;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Futures and blocking calls report one result, so a multishot request — whose CQEs each carry a result — is
 * refused before it reaches the kernel. Before, a blocking call took the first CQE and left the request armed with
 * no one to hear the rest (an accept kept accepting connections whose fds leaked), and a virtual waiter whose
 * request posted two CQEs in one reaped batch joined the batch's wake list twice, which could lose another waiter
 * or tie the list into a cycle the loop thread walked forever.
 */
@BothEngines
class SingleShotTest {
    private Uring uring;
    private EventLoop loop;
    private final int[] pipe = new int[2];

    @BeforeEach
    void start() throws Exception {
        uring = Uring.builder().loops(1).build();
        loop = uring.loop();
        assertThat(LibC.pipe2(pipe, LibC.O_CLOEXEC)).isZero();
    }

    @AfterEach
    void stop() {
        uring.close();
        LibC.close(pipe[0]);
        LibC.close(pipe[1]);
    }

    /** A readable pipe: a multishot poll of it would complete at once, with F_MORE. */
    private Op readablePipeMultishotPoll() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(LibC.write(pipe[1], arena.allocateFrom("x"))).isPositive();
        }
        return (sqe, scratch) -> sqe.prepPollMultishot(pipe[0], OpFlags.Poll.POLLIN);
    }

    @Test
    void aBlockingCallOfAMultishotRequestIsRefusedBeforeItReachesTheKernel() throws Exception {
        Op poll = readablePipeMultishotPoll();
        CompletableFuture<Integer> virtual = OnVirtualThread.supply(() -> loop.call(poll));
        assertThatThrownBy(() -> virtual.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining("POLL_ADD is multishot");
        assertThatThrownBy(() -> loop.call(Op.periodic(Duration.ofMillis(1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TIMEOUT is multishot");
        assertThat(loop.call(Op.nop(5))).as("the loop goes on").isEqualTo(5);
        assertNothingLeftInFlight();
    }

    @Test
    void aFutureOfAMultishotRequestFailsBeforeItReachesTheKernel() throws Exception {
        CompletableFuture<Integer> poll = loop.submitAsync(readablePipeMultishotPoll());
        assertThatThrownBy(() -> poll.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining("POLL_ADD is multishot");
        CompletableFuture<Integer> timer = loop.submitAsync(Op.periodic(Duration.ofMillis(1)));
        assertThatThrownBy(() -> timer.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TIMEOUT is multishot");
        assertNothingLeftInFlight();
    }

    /**
     * A request with more CQEs than the refusal knows of (an Op may write any SQE) is reported once: its second CQE
     * in the same reaped batch must not add its virtual waiter to the batch's wake list again. Here the CQEs are
     * delivered by hand on the loop thread, in the order that made the list a cycle: another call's, then two of
     * the multishot's.
     */
    @Test
    void aSecondCqeOfOneCallInOneBatchDoesNotJoinTheWakeListTwice() throws Exception {
        BlockingCall multishot = OnVirtualThread.supply(() -> new BlockingCall(Op.nop(), loop, false, null))
                .get(10, TimeUnit.SECONDS);
        BlockingCall other = OnVirtualThread.supply(() -> new BlockingCall(Op.nop(), loop, false, null))
                .get(10, TimeUnit.SECONDS);
        CountDownLatch delivered = new CountDownLatch(1);
        loop.execute(() -> {
            other.complete(1, 0);
            multishot.complete(2, CqeFlags.F_MORE);
            multishot.complete(3, CqeFlags.F_MORE);
            delivered.countDown();
        });
        assertThat(delivered.await(10, TimeUnit.SECONDS)).isTrue();
        // The loop flushes the batch after its tasks; on a cyclic list it spins there and never does.
        awaitCondition(() -> Fields.<Boolean>read(BlockingCall.class, "done", multishot)
                && Fields.<Boolean>read(BlockingCall.class, "done", other));
        assertThat(Fields.<Integer>read(BlockingCall.class, "result", multishot)).as("the first CQE's result")
                .isEqualTo(2);
    }

    private void assertNothingLeftInFlight() throws Exception {
        CompletableFuture<Integer> inFlight = new CompletableFuture<>();
        loop.execute(() -> inFlight.complete(loop.stats().inFlight()));
        assertThat(inFlight.get(10, TimeUnit.SECONDS)).as("requests in flight").isZero();
    }
}
