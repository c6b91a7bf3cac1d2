package io.uring4j.fs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channel;
import java.nio.channels.ClosedChannelException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.uring4j.fs.OpenFlags.O_CREAT;
import static io.uring4j.fs.OpenFlags.O_RDWR;
import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An open of the JDK delegate that waits (a device's, or a FIFO's without its peer) holds up neither the channel's
 * close nor — past the close — the other callers, and what it opens after the close is closed, not kept.
 */
class JdkDelegateTest {
    private static final long BOUND_SECONDS = 10;

    @TempDir
    Path tmp;

    /** An open that waits does not hold up the close, and what it opens after the close is closed, not kept. */
    @Test
    void aWaitingOpenDoesNotHoldUpClose() throws Exception {
        AsyncFile file = UringFiles.shared().open(tmp.resolve("f"), O_RDWR | O_CREAT, 0600);
        JdkDelegate<Channel> delegate = new JdkDelegate<>(file, true, true);
        StuckOpen open = new StuckOpen();
        CompletableFuture<Channel> first = call(() -> delegate.get(open));
        try {
            assertThat(open.opening.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            call(() -> {
                delegate.closeWithFile();
                return null;
            }).get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(file.isOpen()).isFalse();
        } finally {
            open.release.countDown();
        }
        assertThatThrownBy(() -> first.get(BOUND_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(AsynchronousCloseException.class);
        assertThat(open.opened.isOpen()).as("opened after the close: closed by its opener").isFalse();
        assertThatThrownBy(() -> delegate.get(options -> new FakeChannel()))
                .isExactlyInstanceOf(ClosedChannelException.class);
    }

    /** A caller waiting for another's open (one open at a time: no second delegate) is ended by the close. */
    @Test
    void closeEndsTheCallersWaitingForAnOpen() throws Exception {
        AsyncFile file = UringFiles.shared().open(tmp.resolve("f"), O_RDWR | O_CREAT, 0600);
        JdkDelegate<Channel> delegate = new JdkDelegate<>(file, true, true);
        StuckOpen open = new StuckOpen();
        CompletableFuture<Channel> first = call(() -> delegate.get(open));
        CompletableFuture<Channel> second = new CompletableFuture<>();
        try {
            assertThat(open.opening.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            Thread waiter = Thread.ofPlatform().daemon().start(() -> complete(second, () -> delegate.get(options -> {
                throw new AssertionError("a second open while the first is under way");
            })));
            awaitCondition(() -> waiter.getState() == Thread.State.WAITING);
            call(() -> {
                delegate.closeWithFile();
                return null;
            }).get(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThatThrownBy(() -> second.get(BOUND_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(AsynchronousCloseException.class);
        } finally {
            open.release.countDown();
        }
        assertThatThrownBy(() -> first.get(BOUND_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(AsynchronousCloseException.class);
    }

    /** An open that waits until released, as a FIFO's for a peer or a device's. */
    private static final class StuckOpen implements JdkDelegate.Opener<Channel> {
        final CountDownLatch opening = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final FakeChannel opened = new FakeChannel();

        @Override
        public Channel open(Set<OpenOption> options) {
            opening.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return opened;
        }
    }

    private interface Call<T> {
        T run() throws Exception;
    }

    private static <T> CompletableFuture<T> call(Call<T> call) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> complete(f, call));
        return f;
    }

    private static <T> void complete(CompletableFuture<T> f, Call<T> call) {
        try {
            f.complete(call.run());
        } catch (Throwable e) {
            f.completeExceptionally(e);
        }
    }

    private static final class FakeChannel implements Channel {
        private final AtomicBoolean open = new AtomicBoolean(true);

        @Override
        public boolean isOpen() {
            return open.get();
        }

        @Override
        public void close() {
            open.set(false);
        }
    }
}
