package io.uring4j.fs;

import io.uring4j.ring.Pipe;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.fs.FsTestKit.mkfifo;
import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drop-in FileChannel on a loop whose every slot is taken by requests of someone else (reads of a pipe no one
 * writes): interrupting a thread blocked in a read, or closing the channel under it, returns at once — as the
 * JDK's channel does — and wakes the blocked thread, instead of waiting for a slot to free.
 */
@BothEngines
class ChannelSlotWaitTest {
    private static final long STUCK_SECONDS = 10;

    @TempDir
    Path dir;

    private Uring uring;
    private EventLoop loop;
    private Arena arena;
    private Pipe holder;
    private CompletableFuture<?>[] held;
    private UringFileChannel channel;

    @BeforeEach
    void fillTheTable() throws Throwable {
        uring = Uring.builder().loops(1).maxInFlight(2).build();
        loop = uring.loop();
        arena = Arena.ofShared();
        // Read and write: opening a FIFO for reading alone would wait for a writer. (Opened first: the open
        // itself is a request.)
        channel = UringFileChannel.open(uring, mkfifo(dir.resolve("fifo")), StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        holder = Pipe.open();
        held = new CompletableFuture<?>[] {
                loop.submitAsync(Op.read(holder.readFd(), arena.allocate(8), -1)),
                loop.submitAsync(Op.read(holder.readFd(), arena.allocate(8), -1))};
        awaitCondition(() -> loop.stats().inFlight() == 2);
    }

    @AfterEach
    void freeTheTable() throws Exception {
        channel.close();
        holder.write(new byte[16]);
        CompletableFuture.allOf(held).get(STUCK_SECONDS, TimeUnit.SECONDS);
        uring.close();
        holder.close();
        arena.close();
    }

    @Test
    void interruptingAReaderThatWaitsForASlotReturnsAtOnceAndClosesTheChannel() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread reader = blockedReader(thrown);
        Thread interrupter = Thread.ofPlatform().start(reader::interrupt);
        interrupter.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
        assertThat(interrupter.isAlive()).as("Thread.interrupt() returned while every slot was taken").isFalse();
        reader.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
        assertThat(reader.isAlive()).as("the interrupted reader returned").isFalse();
        assertThat(thrown.get()).isInstanceOf(ClosedByInterruptException.class);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void closingAChannelWhoseReaderWaitsForASlotReturnsAtOnceAndWakesTheReader() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread reader = blockedReader(thrown);
        Thread closer = Thread.ofPlatform().start(() -> {
            try {
                channel.close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        closer.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
        assertThat(closer.isAlive()).as("close() returned while every slot was taken").isFalse();
        reader.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
        assertThat(reader.isAlive()).as("the close woke the reader").isFalse();
        assertThat(thrown.get()).isInstanceOf(AsynchronousCloseException.class);
    }

    /** A virtual thread reading the FIFO, once its read waits for a slot. */
    private Thread blockedReader(AtomicReference<Throwable> thrown) throws InterruptedException {
        long deferredBefore = loop.stats().tableFull();
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                channel.read(ByteBuffer.allocateDirect(8));
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        awaitCondition(() -> loop.stats().tableFull() > deferredBefore);
        return reader;
    }
}
