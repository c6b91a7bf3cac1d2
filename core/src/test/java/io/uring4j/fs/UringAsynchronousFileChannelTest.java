package io.uring4j.fs;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.Await;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.Fields;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import com.sun.nio.file.ExtendedOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static io.uring4j.testkit.Await.awaitCondition;
import static io.uring4j.testkit.Patterns.pattern;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The asynchronous contract against UringAsynchronousFileChannel, and its handlers' own thread rule. */
@BothEngines
class UringAsynchronousFileChannelTest extends AsynchronousFileChannelContract {
    private static final int STEPS = 40;

    @UringRuntime(loops = 2)
    private static Uring uring;

    @Override
    AsynchronousFileChannel open(Path path, Set<? extends OpenOption> options) throws IOException {
        return UringAsynchronousFileChannel.open(uring, path, options, null);
    }

    /** One step of a chain: which thread started it, which ran its handler, and the bytes it read. */
    private record Step(Thread started, Thread handled, byte[] read) {
    }

    /**
     * Reads {@code steps} blocks of 100 bytes, each started by the handler of the one before (the first by this
     * thread), into new heap or direct buffers; the steps in order once all are done.
     */
    private static List<Step> readChain(AsynchronousFileChannel ch, int steps, boolean direct) throws Exception {
        return readChain(ch, 0, steps, direct).get(30, TimeUnit.SECONDS);
    }

    /** As {@link #readChain(AsynchronousFileChannel, int, boolean)} from {@code base}, without waiting for it. */
    private static CompletableFuture<List<Step>> readChain(AsynchronousFileChannel ch, long base, int steps,
                                                           boolean direct) {
        return chain(ch, base, steps, 100,
                () -> direct ? ByteBuffer.allocateDirect(100) : ByteBuffer.allocate(100), false);
    }

    /**
     * Reads or writes {@code steps} blocks of {@code size} bytes, each started by the handler of the one before (the
     * first by this thread), each through a new buffer of {@code buffers}; the steps in order once all are done (a
     * write's with nothing read).
     */
    private static List<Step> chain(AsynchronousFileChannel ch, int steps, int size, Supplier<ByteBuffer> buffers,
                                    boolean write) throws Exception {
        return chain(ch, 0, steps, size, buffers, write).get(30, TimeUnit.SECONDS);
    }

    /** As {@link #chain(AsynchronousFileChannel, int, int, Supplier, boolean)} from {@code base}, not waited for. */
    private static CompletableFuture<List<Step>> chain(AsynchronousFileChannel ch, long base, int steps, int size,
                                                       Supplier<ByteBuffer> buffers, boolean write) {
        List<Step> done = new ArrayList<>();
        CompletableFuture<List<Step>> all = new CompletableFuture<>();
        new Object() {
            void next(int i) {
                ByteBuffer buffer = buffers.get();
                Thread starter = Thread.currentThread();
                CompletionHandler<Integer, Void> handler = new CompletionHandler<>() {
                    @Override
                    public void completed(Integer n, Void unused) {
                        byte[] got = new byte[write ? 0 : n];
                        buffer.flip().get(got);
                        done.add(new Step(starter, Thread.currentThread(), got));
                        if (i + 1 < steps) {
                            next(i + 1);
                        } else {
                            all.complete(done);
                        }
                    }

                    @Override
                    public void failed(Throwable t, Void unused) {
                        all.completeExceptionally(t);
                    }
                };
                if (write) {
                    ch.write(buffer, base + (long) i * size, null, handler);
                } else {
                    ch.read(buffer, base + (long) i * size, null, handler);
                }
            }
        }.next(0);
        return all;
    }

    /**
     * Each handler starts the next operation, one at a time: after the first, an operation is made on its
     * starter's thread and its handler called there, at most 16 deep, then one goes through the executor and
     * the count starts again. Every read still gets its own bytes, heap buffer or direct.
     */
    @Test
    void aChainOneAtATimeRunsOnTheHandlersThreadSixteenDeep() throws Exception {
        byte[] data = pattern(41, STEPS * 100);
        Path path = Files.write(dir.resolve("chain"), data);
        for (boolean direct : new boolean[]{false, true}) {
            try (AsynchronousFileChannel ch = open(path, Set.of(READ, WRITE))) {
                List<Step> steps = readChain(ch, STEPS, direct);
                for (int i = 0; i < STEPS; i++) {
                    assertThat(steps.get(i).read()).isEqualTo(Arrays.copyOfRange(data, i * 100, i * 100 + 100));
                }
                assertThat(steps.getFirst().handled()).as("the caller's thread calls no handler")
                        .isNotSameAs(steps.getFirst().started());
                for (int i = 1; i < STEPS; i++) {
                    boolean here = steps.get(i).handled() == steps.get(i).started();
                    assertThat(here).as("step %d on its starter's thread", i).isEqualTo(i % 16 != 0);
                }
            }
        }
    }

    /**
     * Eight chains at once, as a server keeps several reads in flight: a handler's read is made on its thread
     * whatever else of the channel is in flight, as the JDK's pool thread makes it, 16 deep as one chain alone.
     * Through the ring, each step cost a hand-over to the loop, a new handler thread, and a copy on the loop's
     * CPU for every chain.
     */
    @Test
    void chainsInFlightTogetherRunOnTheirHandlersThreads() throws Exception {
        int chains = 8;
        byte[] data = pattern(45, chains * STEPS * 100);
        Path path = Files.write(dir.resolve("chains"), data);
        try (AsynchronousFileChannel ch = open(path, Set.of(READ))) {
            List<CompletableFuture<List<Step>>> all = new ArrayList<>();
            for (int c = 0; c < chains; c++) {
                all.add(readChain(ch, (long) c * STEPS * 100, STEPS, c % 2 == 0));
            }
            for (int c = 0; c < chains; c++) {
                List<Step> steps = all.get(c).get(30, TimeUnit.SECONDS);
                for (int i = 0; i < STEPS; i++) {
                    int from = (c * STEPS + i) * 100;
                    assertThat(steps.get(i).read()).as("chain %d step %d", c, i)
                            .isEqualTo(Arrays.copyOfRange(data, from, from + 100));
                }
                for (int i = 1; i < STEPS; i++) {
                    boolean here = steps.get(i).handled() == steps.get(i).started();
                    assertThat(here).as("chain %d step %d on its starter's thread", c, i).isEqualTo(i % 16 != 0);
                }
            }
        }
    }

    /**
     * A chain of O_DIRECT writes, one at a time, from the default handlers (virtual threads): each after the first is
     * a pwrite on its starter's thread, as a lone virtual thread's O_DIRECT write is in {@link UringFileChannel}, and
     * its handler is called there. Through the ring, each step cost a hand-over to the loop and back and a new
     * handler thread, about twice the JDK's time per write.
     */
    @Test
    void aChainOfDirectWritesRunsOnTheHandlersThread() throws Exception {
        assumeFalse("false".equalsIgnoreCase(System.getProperty("uring4j.fs.writesInPlace")),
                "the writes go through the ring (-During4j.fs.writesInPlace=false): no write completes in place");
        int block = (int) Files.getFileStore(dir).getBlockSize();
        Path path = Files.write(dir.resolve("direct-chain"), new byte[STEPS * block]);
        try (AsynchronousFileChannel ch = open(path, Set.of(READ, WRITE, ExtendedOpenOption.DIRECT))) {
            List<Step> steps = chain(ch, 16, block,
                    () -> ByteBuffer.allocateDirect(2 * block).alignedSlice(block).limit(block), true);
            for (int i = 1; i < steps.size(); i++) {
                assertThat(steps.get(i).handled()).as("step %d on its starter's thread", i)
                        .isSameAs(steps.get(i).started());
            }
        }
    }

    /**
     * With an executor that runs each handler where it is given — on the event loop that completed its operation,
     * or on the thread that started it if the operation completed first — every step of a chain still completes.
     */
    @Test
    void aChainOnAnExecutorThatRunsHandlersInPlaceCompletes() throws Exception {
        byte[] data = pattern(43, 800);
        Path path = Files.write(dir.resolve("same-thread"), data);
        ExecutorService sameThread = new AbstractExecutorService() {
            @Override
            public void execute(Runnable command) {
                command.run();
            }

            @Override
            public void shutdown() {
            }

            @Override
            public List<Runnable> shutdownNow() {
                return List.of();
            }

            @Override
            public boolean isShutdown() {
                return false;
            }

            @Override
            public boolean isTerminated() {
                return false;
            }

            @Override
            public boolean awaitTermination(long timeout, TimeUnit unit) {
                return true;
            }
        };
        try (AsynchronousFileChannel ch = UringAsynchronousFileChannel.open(uring, path, Set.of(READ), sameThread)) {
            List<Step> steps = readChain(ch, 8, false);
            for (int i = 0; i < 8; i++) {
                assertThat(steps.get(i).read()).isEqualTo(Arrays.copyOfRange(data, i * 100, i * 100 + 100));
            }
        }
    }

    /**
     * O_DIRECT with heap buffers larger than the pooled stand-ins: the stand-in is aligned as O_DIRECT asks, both
     * for operations through the ring (futures) and for those made on a handler's thread.
     */
    @Test
    void directIoWithLargeHeapBuffers() throws Exception {
        byte[] data = pattern(44, 256 * 1024);
        Path path = dir.resolve("direct");
        Set<OpenOption> options = Set.of(READ, WRITE, StandardOpenOption.CREATE, ExtendedOpenOption.DIRECT);
        try (AsynchronousFileChannel ch = open(path, options)) {
            assertThat(ch.write(ByteBuffer.wrap(data, 0, 128 * 1024), 0).get(30, TimeUnit.SECONDS)).isEqualTo(128 * 1024);
            ByteBuffer back = ByteBuffer.allocate(128 * 1024);
            assertThat(ch.read(back, 0).get(30, TimeUnit.SECONDS)).isEqualTo(128 * 1024);
            assertThat(back.array()).isEqualTo(Arrays.copyOf(data, 128 * 1024));

            Recorder<Integer> chained = new Recorder<>();
            ByteBuffer second = ByteBuffer.wrap(data, 128 * 1024, 128 * 1024);
            ch.write(ByteBuffer.allocate(4096), 128 * 1024, null, new CompletionHandler<Integer, Void>() {
                @Override
                public void completed(Integer n, Void unused) {
                    ch.write(second, 128 * 1024, "second", chained);
                }

                @Override
                public void failed(Throwable t, Void unused) {
                    chained.failed(t, null);
                }
            });
            assertThat(chained.outcome.get(30, TimeUnit.SECONDS)).isEqualTo(128 * 1024);
        }
        assertThat(Files.readAllBytes(path)).isEqualTo(data);
    }

    /** A handler called on the starting handler's thread throws: the exception does not come out of the start. */
    @Test
    void whatAHandlerCalledInPlaceThrowsStaysWithIt() throws Exception {
        Path path = Files.write(dir.resolve("throws"), pattern(42, 64));
        try (AsynchronousFileChannel ch = open(path, Set.of(READ))) {
            CompletableFuture<Throwable> startOutcome = new CompletableFuture<>();
            ch.read(ByteBuffer.allocate(8), 0, null, new CompletionHandler<Integer, Void>() {
                @Override
                public void completed(Integer n, Void unused) {
                    try {
                        ch.read(ByteBuffer.allocate(8), 8, null, new CompletionHandler<Integer, Void>() {
                            @Override
                            public void completed(Integer m, Void unused) {
                                throw new IllegalStateException("a handler's own failure");
                            }

                            @Override
                            public void failed(Throwable t, Void unused) {
                            }
                        });
                        startOutcome.complete(null);
                    } catch (Throwable t) {
                        startOutcome.complete(t);
                    }
                }

                @Override
                public void failed(Throwable t, Void unused) {
                    startOutcome.complete(t);
                }
            });
            assertThat(startOutcome.get(30, TimeUnit.SECONDS)).isNull();
        }
    }

    /**
     * A lock asked for while the channel closes, once close has closed (or not found) the JDK channel that locks go
     * to but before the file is closing: no JDK channel may be opened then, or it would outlive the close, holding
     * its lock — in the JDK's JVM-wide lock table too, where every later lock of the file overlaps it. Close is
     * stopped there, at the monitor of the file's fd guard, which this test holds.
     */
    @Test
    void aLockAskedForWhileTheChannelClosesOpensNoJdkChannelAfterIt() throws Exception {
        Path path = Files.write(dir.resolve("closing-locked"), pattern(3, 100));
        UringAsynchronousFileChannel ch = UringAsynchronousFileChannel.open(uring, path, Set.of(READ, WRITE), null);
        AsyncFile file = Fields.read(UringAsynchronousFileChannel.class, "file", ch);
        Object guard = Fields.read(AsyncFile.class, "guard", file);
        CompletableFuture<Void> closed = new CompletableFuture<>();
        Thread closer;
        synchronized (guard) {
            closer = Thread.ofPlatform().start(() -> {
                try {
                    ch.close();
                    closed.complete(null);
                } catch (Throwable t) {
                    closed.completeExceptionally(t);
                }
            });
            awaitCondition(() -> Await.someoneBlockedOn(guard));
            assertThatThrownBy(() -> ch.tryLock()).isInstanceOf(ClosedChannelException.class);
        }
        closed.get(30, TimeUnit.SECONDS);
        closer.join();
        try (FileChannel other = FileChannel.open(path, WRITE); FileLock lock = other.tryLock()) {
            assertThat(lock).as("the file is not locked after the close").isNotNull();
        }
    }
}
