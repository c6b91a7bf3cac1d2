package io.uring4j.fs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.fs.FsTestKit.mkfifo;
import static io.uring4j.testkit.Patterns.pattern;
import static java.nio.file.StandardOpenOption.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The AsynchronousFileChannel contract, run against the JDK's ({@link JdkAsynchronousFileChannelTest}) and
 * uring4j's ({@link UringAsynchronousFileChannelTest}) with the same concrete expectations.
 */
abstract class AsynchronousFileChannelContract {
    @TempDir
    Path dir;

    abstract AsynchronousFileChannel open(Path path, Set<? extends OpenOption> options) throws IOException;

    final AsynchronousFileChannel open(Path path, OpenOption... options) throws IOException {
        return open(path, new HashSet<>(Arrays.asList(options)));
    }

    private static <V> V get(Future<V> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    private static Throwable failureOf(Future<?> f) {
        return assertThatThrownBy(() -> get(f)).isInstanceOf(ExecutionException.class).actual().getCause();
    }

    /** A handler that records its outcome, and the thread it ran on. */
    static final class Recorder<V> implements CompletionHandler<V, String> {
        final CompletableFuture<V> outcome = new CompletableFuture<>();
        volatile String attachment;
        volatile Thread thread;

        @Override
        public void completed(V result, String a) {
            attachment = a;
            thread = Thread.currentThread();
            outcome.complete(result);
        }

        @Override
        public void failed(Throwable exc, String a) {
            attachment = a;
            thread = Thread.currentThread();
            outcome.completeExceptionally(exc);
        }
    }

    @Test
    void openRules() throws Exception {
        Path existing = Files.write(dir.resolve("existing"), pattern(1, 10));
        assertThatThrownBy(() -> open(existing, WRITE, APPEND)).isExactlyInstanceOf(UnsupportedOperationException.class)
                .hasMessage("APPEND not allowed");
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> open(missing, READ)).isExactlyInstanceOf(NoSuchFileException.class)
                .hasMessage(missing.toString());
        try (AsynchronousFileChannel ch = open(existing)) {
            assertThat(get(ch.read(ByteBuffer.allocate(20), 0))).isEqualTo(10);
            assertThatThrownBy(() -> ch.write(ByteBuffer.allocate(1), 0))
                    .isExactlyInstanceOf(NonWritableChannelException.class);
        }
        try (AsynchronousFileChannel ch = open(existing, WRITE, TRUNCATE_EXISTING)) {
            assertThat(ch.size()).isZero();
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1), 0))
                    .isExactlyInstanceOf(NonReadableChannelException.class);
        }
    }

    @Test
    void futuresReadAndWriteAtPositions() throws Exception {
        Path path = dir.resolve("data");
        long far = 3L << 30;
        try (AsynchronousFileChannel ch = open(path, READ, WRITE, CREATE)) {
            ByteBuffer big = ByteBuffer.wrap(pattern(2, 200_000));
            assertThat(get(ch.write(big, 100))).isEqualTo(200_000);
            assertThat(big.hasRemaining()).isFalse();
            ByteBuffer direct = ByteBuffer.allocateDirect(10).put(pattern(3, 10)).flip();
            assertThat(get(ch.write(direct, far))).isEqualTo(10);
            assertThat(ch.size()).isEqualTo(far + 10);

            ByteBuffer back = ByteBuffer.allocate(200_000);
            assertThat(get(ch.read(back, 100))).isEqualTo(200_000);
            assertThat(back.array()).isEqualTo(pattern(2, 200_000));
            ByteBuffer tail = ByteBuffer.allocateDirect(100).position(5);
            assertThat(get(ch.read(tail, far + 4))).isEqualTo(6);
            assertThat(tail.position()).isEqualTo(11);
            assertThat(get(ch.read(ByteBuffer.allocate(8), far + 10))).as("EOF").isEqualTo(-1);
            assertThat(get(ch.read(ByteBuffer.allocate(0), far + 10))).as("no room").isZero();
            assertThat(get(ch.write(ByteBuffer.allocate(0), 0))).isZero();

            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1), -1)).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Negative position");
            assertThatThrownBy(() -> ch.write(ByteBuffer.allocate(1), -1)).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Negative position");
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1).asReadOnlyBuffer(), 0))
                    .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("Read-only buffer");
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1), 0, "a", null))
                    .isExactlyInstanceOf(NullPointerException.class).hasMessage("'handler' is null");
        }
    }

    @Test
    void handlersGetTheResultAndAttachmentOffTheCallersThread() throws Exception {
        Path path = Files.write(dir.resolve("h"), pattern(4, 1000));
        try (AsynchronousFileChannel ch = open(path, READ, WRITE)) {
            Recorder<Integer> read = new Recorder<>();
            ByteBuffer dst = ByteBuffer.allocate(600);
            ch.read(dst, 500, "att", read);
            assertThat(read.outcome.get(30, TimeUnit.SECONDS)).isEqualTo(500);
            assertThat(read.attachment).isEqualTo("att");
            assertThat(read.thread.getName()).doesNotStartWith("uring4j-loop");
            assertThat(Arrays.copyOf(dst.array(), 500)).isEqualTo(pattern(4, 500, 500));
            Recorder<Integer> write = new Recorder<>();
            ch.write(ByteBuffer.allocateDirect(16), 2000, "w", write);
            assertThat(write.outcome.get(30, TimeUnit.SECONDS)).isEqualTo(16);
            assertThat(ch.size()).isEqualTo(2016);
        }
    }

    @Test
    void sizeTruncateForce() throws Exception {
        Path path = Files.write(dir.resolve("t"), pattern(5, 1000));
        try (AsynchronousFileChannel ch = open(path, READ, WRITE)) {
            assertThat(ch.truncate(5000)).isSameAs(ch);
            assertThat(ch.size()).isEqualTo(1000);
            ch.truncate(10);
            assertThat(ch.size()).isEqualTo(10);
            assertThatThrownBy(() -> ch.truncate(-1)).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Negative size");
            ch.force(true);
            ch.force(false);
        }
        try (AsynchronousFileChannel ro = open(path, READ)) {
            assertThatThrownBy(() -> ro.truncate(0)).isExactlyInstanceOf(NonWritableChannelException.class);
        }
    }

    /** The JDK's size, force and truncate do not look at the interrupt status: they complete, and it stays set. */
    @ParameterizedTest(name = "virtual thread: {0}")
    @ValueSource(booleans = {true, false})
    void sizeTruncateForceCompleteWithTheInterruptStatusSet(boolean virtual) throws Exception {
        Path path = Files.write(dir.resolve("i"), pattern(8, 1000));
        try (AsynchronousFileChannel ch = open(path, READ, WRITE)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
            (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
                Thread.currentThread().interrupt();
                try {
                    assertThat(ch.size()).isEqualTo(1000);
                    ch.force(true);
                    ch.truncate(100);
                    assertThat(ch.size()).isEqualTo(100);
                } catch (Throwable t) {
                    failure.set(t);
                }
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }).join();
            assertThat(failure.get()).isNull();
            assertThat(stillInterrupted.get()).as("interrupt status kept").isTrue();
            assertThat(ch.isOpen()).isTrue();
            assertThat(ch.size()).isEqualTo(100);
        }
    }

    @Test
    void aClosedChannelFailsThroughFuturesAndHandlers() throws Exception {
        Path path = Files.write(dir.resolve("c"), pattern(6, 10));
        AsynchronousFileChannel ch = open(path, READ, WRITE);
        ch.close();
        ch.close();
        assertThat(ch.isOpen()).isFalse();
        assertThat(failureOf(ch.read(ByteBuffer.allocate(4), 0))).isExactlyInstanceOf(ClosedChannelException.class);
        assertThat(failureOf(ch.write(ByteBuffer.allocate(4), 0))).isExactlyInstanceOf(ClosedChannelException.class);
        assertThat(failureOf(ch.lock())).isExactlyInstanceOf(ClosedChannelException.class);
        Recorder<Integer> r = new Recorder<>();
        ch.read(ByteBuffer.allocate(4), 0, "x", r);
        assertThatThrownBy(() -> r.outcome.get(30, TimeUnit.SECONDS)).cause()
                .isExactlyInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(ch::size).isExactlyInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(() -> ch.force(true)).isExactlyInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(() -> ch.truncate(0)).as("the JDK's quirk").isExactlyInstanceOf(AsynchronousCloseException.class);
        assertThatThrownBy(ch::tryLock).isExactlyInstanceOf(ClosedChannelException.class);
    }

    @Test
    void aFifoHasNoPositions() throws Throwable {
        Path fifo = mkfifo(dir.resolve("fifo"));
        try (AsynchronousFileChannel ch = open(fifo, READ, WRITE)) {
            assertThat(failureOf(ch.write(ByteBuffer.allocate(8), 0))).isExactlyInstanceOf(IOException.class)
                    .hasMessage("Illegal seek");
            assertThat(failureOf(ch.read(ByteBuffer.allocateDirect(8), 0))).isExactlyInstanceOf(IOException.class)
                    .hasMessage("Illegal seek");
            assertThat(ch.size()).isZero();
        }
    }

    /** A terminal (a pty's master side) refuses positions too: the reads and writes fail at once. */
    @Test
    void aTerminalHasNoPositions() throws Throwable {
        Path ptmx = Path.of("/dev/ptmx");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(ptmx) && Files.isWritable(ptmx),
                "no pseudo-terminals here");
        try (AsynchronousFileChannel ch = open(ptmx, READ, WRITE)) {
            assertThat(failureOf(ch.read(ByteBuffer.allocate(8), 0))).isExactlyInstanceOf(IOException.class)
                    .hasMessage("Illegal seek");
            assertThat(failureOf(ch.read(ByteBuffer.allocateDirect(8), 3))).isExactlyInstanceOf(IOException.class)
                    .hasMessage("Illegal seek");
            assertThat(failureOf(ch.write(ByteBuffer.wrap(pattern(9, 8)), 0))).isExactlyInstanceOf(IOException.class)
                    .hasMessage("Illegal seek");
            assertThat(ch.size()).isZero();
        }
    }

    @Test
    void locksBelongToTheChannel() throws Exception {
        Path path = Files.write(dir.resolve("l"), pattern(7, 100));
        AsynchronousFileChannel ch = open(path, READ, WRITE);
        FileLock lock = get(ch.lock(0, 10, false));
        assertThat(lock.acquiredBy()).isSameAs(ch);
        assertThat(lock.channel()).isNull();
        assertThatThrownBy(() -> ch.tryLock(5, 10, true)).isExactlyInstanceOf(OverlappingFileLockException.class);
        Recorder<FileLock> other = new Recorder<>();
        ch.lock(20, 10, true, "l", other);
        FileLock shared = other.outcome.get(30, TimeUnit.SECONDS);
        assertThat(shared.isShared()).isTrue();
        assertThat(shared.acquiredBy()).isSameAs(ch);
        lock.release();
        assertThat(lock.isValid()).isFalse();
        ch.close();
        assertThat(shared.isValid()).isFalse();
        try (AsynchronousFileChannel ro = open(path, READ)) {
            assertThatThrownBy(() -> ro.lock(0, 1, false)).isExactlyInstanceOf(NonWritableChannelException.class);
        }
    }
}
