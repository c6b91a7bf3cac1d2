package io.uring4j.runtime;

import io.uring4j.ring.Pipe;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.testkit.Await.awaitCondition;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Requests that wait for a slot: a loop whose table is full ({@code maxInFlight(2)}, both slots held by reads of a
 * pipe nobody writes) must still honour interrupts, cancels and closes at once, must not let a withdrawn request
 * reach the kernel later, and must sleep rather than spin while it waits.
 */
@BothEngines
class SlotWaitTest {
    private static final byte[] DATA = "data".getBytes(StandardCharsets.US_ASCII);
    /** How long a call that should return at once may take before the test calls it stuck. */
    private static final long STUCK_SECONDS = 10;

    private Uring uring;
    private EventLoop loop;
    private Arena arena;
    /** Both slots read from this pipe until the test writes to it. */
    private Pipe holder;
    /** The pipe the waiting request names: it has data, so a request that reaches the kernel takes it at once. */
    private Pipe target;
    private CompletableFuture<?>[] held;

    @BeforeEach
    void fillTheTable() throws Exception {
        uring = Uring.builder().loops(1).maxInFlight(2).build();
        loop = uring.loop();
        arena = Arena.ofShared();
        holder = Pipe.open();
        target = Pipe.open();
        target.write(DATA);
        held = new CompletableFuture<?>[] {
                loop.submitAsync(Op.read(holder.readFd(), arena.allocate(8), -1)),
                loop.submitAsync(Op.read(holder.readFd(), arena.allocate(8), -1))};
        awaitCondition(() -> loop.stats().inFlight() == 2);
    }

    @AfterEach
    void freeTheTable() throws Exception {
        if (!uring.isClosed()) {
            freeTheHeldSlots();
        }
        uring.close();
        holder.close();
        target.close();
        arena.close();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void anInterruptedCallThatWaitsForASlotThrowsAtOnceAndNeverReachesTheKernel(boolean virtual) throws Exception {
        MemorySegment buffer = arena.allocate(8);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        long deferredBefore = loop.stats().tableFull();
        Thread reader = (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
            try {
                loop.call(Op.read(target.readFd(), buffer, -1));
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        awaitCondition(() -> loop.stats().tableFull() > deferredBefore);
        reader.interrupt();
        reader.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
        assertThat(reader.isAlive()).as("the interrupted call returned while every slot was still taken").isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class);
        assertThat(((InterruptedIOException) thrown.get()).bytesTransferred).isZero();
        assertDataLeftUnread();
        assertThat(buffer.toArray(JAVA_BYTE)).containsOnly((byte) 0);
    }

    @Test
    void anInterruptedChainThatWaitsForSlotsIsCancelledWholeAndNeverReachesTheKernel() throws Exception {
        MemorySegment buffer = arena.allocate(8);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        long deferredBefore = loop.stats().tableFull();
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                loop.chain(Op.read(target.readFd(), buffer, -1)).then(Op.nop()).call();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        awaitCondition(() -> loop.stats().tableFull() > deferredBefore);
        reader.interrupt();
        reader.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
        assertThat(reader.isAlive()).as("the interrupted chain returned while every slot was still taken").isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class)
                .hasMessageContaining("[ECANCELED, ECANCELED]");
        assertDataLeftUnread();
    }

    @Test
    void aCancelledFutureThatWaitsForASlotNeverReachesTheKernel() throws Exception {
        MemorySegment buffer = arena.allocate(8);
        long deferredBefore = loop.stats().tableFull();
        CompletableFuture<Integer> read = loop.submitAsync(Op.read(target.readFd(), buffer, -1));
        awaitCondition(() -> loop.stats().tableFull() > deferredBefore);
        assertThat(read.cancel(true)).isTrue();
        long submitted = loop.stats().submitted();
        freeTheHeldSlots();                         // a request still queued would go now
        assertThat(loop.submitAsync(Op.nop(1)).get(STUCK_SECONDS, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(loop.stats().submitted() - submitted).as("SQEs written after the cancel: the NOP's alone")
                .isEqualTo(1);
        assertThat(buffer.toArray(JAVA_BYTE)).as("never read into").containsOnly((byte) 0);
    }

    @Test
    void aLoopWhoseTableIsFullSleepsInsteadOfSpinning() throws Exception {
        long deferredBefore = loop.stats().tableFull();
        CompletableFuture<Integer> waiting = loop.submitAsync(Op.nop(5));
        awaitCondition(() -> loop.stats().tableFull() > deferredBefore);
        long enters = loop.stats().enters();
        Thread.sleep(200);
        // An idle loop enters the kernel once per wake-up; a spinning one, hundreds of thousands of times.
        assertThat(loop.stats().enters() - enters).as("io_uring_enter calls while waiting for a slot").isLessThan(50);
        holder.write(new byte[16]);
        assertThat(waiting.get(STUCK_SECONDS, TimeUnit.SECONDS)).isEqualTo(5);
    }

    /** Closing the runtime ends what waits for a slot as well as what is in flight, whatever the API style. */
    @Test
    void closingTheRuntimeEndsEveryRequestThatWaitsForASlot() throws Exception {
        long deferredBefore = loop.stats().tableFull();
        AtomicReference<Throwable> call = new AtomicReference<>();
        AtomicReference<Throwable> chain = new AtomicReference<>();
        Thread caller = Thread.ofVirtual().start(() -> {
            try {
                loop.call(Op.read(target.readFd(), arena.allocate(8), -1));
            } catch (Throwable t) {
                call.set(t);
            }
        });
        Thread chainer = Thread.ofVirtual().start(() -> {
            try {
                loop.chain(Op.read(target.readFd(), arena.allocate(8), -1)).then(Op.nop()).call();
            } catch (Throwable t) {
                chain.set(t);
            }
        });
        CompletableFuture<Integer> future = loop.submitAsync(Op.read(target.readFd(), arena.allocate(8), -1));
        AtomicReference<Throwable> callback = new AtomicReference<>();
        loop.submit(Op.read(target.readFd(), arena.allocate(8), -1), new CompletionHandler() {
            @Override
            public void complete(int result, int flags) {
                callback.set(new AssertionError("completed: " + result));
            }

            @Override
            public void failed(Throwable cause) {
                callback.set(cause);
            }
        });
        awaitCondition(() -> loop.stats().tableFull() >= deferredBefore + 4);
        uring.close();
        for (Thread t : new Thread[] {caller, chainer}) {
            t.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
            assertThat(t.isAlive()).as("a blocked caller returned after the runtime closed").isFalse();
        }
        assertThat(call.get()).isInstanceOf(java.io.IOException.class).hasMessageContaining("closed");
        assertThat(chain.get()).isInstanceOf(java.io.IOException.class).hasMessageContaining("closed");
        assertThat(future).isCompletedExceptionally();
        assertThat(callback.get()).isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        assertDataLeftUnread();
        held = new CompletableFuture<?>[0];         // ended by the close
    }

    /**
     * A waiter whose handler throws when it fails — CompletionHandler's default — once its op fails to prepare:
     * the loop logs that and goes on to the waiters behind it.
     */
    @Test
    void aWaiterWhoseHandlerThrowsLeavesTheLoopAndTheWaitersBehindItRunning() throws Exception {
        long deferredBefore = loop.stats().tableFull();
        loop.submit((sqe, scratch) -> {
            throw new IllegalArgumentException("an op that cannot be prepared");
        }, (result, flags) -> { });
        CompletableFuture<Integer> behind = OnVirtualThread.supply(() -> loop.call(Op.nop(5)));
        awaitCondition(() -> loop.stats().tableFull() >= deferredBefore + 2);
        freeTheHeldSlots();
        assertThat(behind.get(STUCK_SECONDS, TimeUnit.SECONDS)).isEqualTo(5);
        assertThat(loop.stats().handlerFailures()).isEqualTo(1);
    }

    /** A close fails such a waiter too: it still cancels what is in flight and waits for it. */
    @Test
    void aCloseThatFailsAWaiterWhoseHandlerThrowsStillCancelsWhatIsInFlight() throws Exception {
        long deferredBefore = loop.stats().tableFull();
        loop.submit(Op.nop(5), (result, flags) -> { });
        awaitCondition(() -> loop.stats().tableFull() > deferredBefore);
        uring.close();
        for (CompletableFuture<?> f : held) {
            assertThat(f).failsWithin(0, TimeUnit.SECONDS).withThrowableThat().havingCause()
                    .isInstanceOf(ErrnoException.class)
                    .satisfies(e -> assertThat(((ErrnoException) e).errno()).isEqualTo(Errno.ECANCELED));
        }
        held = new CompletableFuture<?>[0];         // ended by the close
    }

    @Test
    void closingAGuardWhoseRequestsHoldEverySlotCancelsThemThroughAControlSlot() throws Exception {
        freeTheHeldSlots();
        Pipe guarded = Pipe.open();
        FdGuard guard = new FdGuard(loop, guarded.readFd());
        Thread[] readers = new Thread[2];
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        for (int i = 0; i < readers.length; i++) {
            MemorySegment buffer = arena.allocate(8);
            readers[i] = Thread.ofVirtual().start(() -> {
                try {
                    loop.call(Op.read(guard.fd(), buffer, -1), guard, false);
                } catch (Throwable t) {
                    thrown.compareAndSet(null, t);
                }
            });
        }
        awaitCondition(() -> loop.stats().inFlight() == 2);
        // Every ordinary slot is taken by a read of the guard's fd: the cancel by fd that the close needs
        // must take a control slot, or the close waits for ever.
        guard.close().get(STUCK_SECONDS, TimeUnit.SECONDS);
        for (Thread reader : readers) {
            reader.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
            assertThat(reader.isAlive()).isFalse();
        }
        assertThat(thrown.get()).isInstanceOf(ErrnoException.class)
                .satisfies(e -> assertThat(((ErrnoException) e).errno()).isIn(Errno.ECANCELED, Errno.EINTR));
        guarded.closeWriteEnd();        // the guard closed the read end
    }

    @Test
    void aCloseFailsAGuardedCallThatWaitsForASlotAtOnceAndDoesNotWaitForIt() throws Exception {
        Pipe guarded = Pipe.open();
        guarded.write(DATA);
        FdGuard guard = new FdGuard(loop, guarded.readFd());
        MemorySegment buffer = arena.allocate(8);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        long deferredBefore = loop.stats().tableFull();
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                loop.call(Op.read(guard.fd(), buffer, -1), guard, false);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        awaitCondition(() -> loop.stats().tableFull() > deferredBefore);
        guard.close().get(STUCK_SECONDS, TimeUnit.SECONDS);
        reader.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
        assertThat(reader.isAlive()).as("the close woke the call while every slot was still taken").isFalse();
        assertThat(thrown.get()).isInstanceOf(ClosedChannelException.class);
        assertThat(buffer.toArray(JAVA_BYTE)).as("never read").containsOnly((byte) 0);
        guarded.closeWriteEnd();
    }

    /** The target pipe still holds its data: a marker written now is read back behind it (no read blocks). */
    private void assertDataLeftUnread() {
        target.write((byte) '|');
        assertThat(new String(target.read(64), StandardCharsets.US_ASCII)).isEqualTo("data|");
    }

    private void freeTheHeldSlots() throws Exception {
        holder.write(new byte[16]);
        CompletableFuture.allOf(held).get(STUCK_SECONDS, TimeUnit.SECONDS);
    }
}
