package io.uring4j.fs;

import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.ChildJvm;
import io.uring4j.testkit.ThreadSyscalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.uring4j.fs.FsTestKit.mkfifo;
import static io.uring4j.testkit.Await.awaitCondition;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * map, lock and transferTo on a FIFO whose peer has gone, through the JDK's channels and the provider's side by
 * side: the JDK's answer each at once (a FIFO's lock is the inode's, its map is empty, its transfer has no
 * positions), never waiting for a peer — so the provider's JDK delegate, opened for them on the same FIFO, must not
 * wait for one either.
 */
@BothEngines
class FifoDelegateTest {
    private static final long BOUND_SECONDS = 10;

    @TempDir
    Path tmp;

    private FileSystem fs;
    private Path fifo;
    /** Both ends of the FIFO, so that a channel's open for one end does not wait; closed before the calls. */
    private int holder = -1;

    @BeforeEach
    void setUp() throws Throwable {
        UringFiles.shared();
        fs = new UringFileSystemProvider(FileSystems.getDefault().provider()).fileSystem();
        fifo = mkfifo(tmp.resolve("fifo"));
        holder = LibC.open(fifo.toString(), LibC.O_RDWR | LibC.O_NONBLOCK | LibC.O_CLOEXEC, 0);
        assertThat(holder).as("open(%s)", fifo).isNotNegative();
    }

    @AfterEach
    void tearDown() {
        dropHolder();
    }

    private void dropHolder() {
        if (holder >= 0) {
            LibC.close(holder);
            holder = -1;
        }
    }

    private Path path(String which) {
        return (which.equals("jdk") ? FileSystems.getDefault() : fs).getPath(fifo.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring4j"})
    void aReadOnlyFifoWithoutWriterLocksMapsAndTransfersAtOnce(String which) throws Exception {
        try (FileChannel ch = FileChannel.open(path(which), READ)) {
            dropHolder();
            FileLock lock = bounded(() -> ch.tryLock(0, Long.MAX_VALUE, true));
            assertThat(lock.isValid()).isTrue();
            assertThat(lock.channel()).isSameAs(ch);
            lock.release();
            bounded(() -> ch.lock(0, 10, true)).release();
            assertThat(bounded(() -> ch.map(FileChannel.MapMode.READ_ONLY, 0, 0)).capacity()).isZero();
            try (FileChannel target = FileChannel.open(tmp.resolve("target"), StandardOpenOption.CREATE, WRITE)) {
                assertThat(bounded(() -> {
                    try {
                        return ch.transferTo(0, 10, target);
                    } catch (IOException e) {
                        return e.getMessage();
                    }
                })).as("a FIFO has no positions").isEqualTo("Illegal seek");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring4j"})
    void aWriteOnlyFifoWithoutReaderLocksAtOnce(String which) throws Exception {
        try (FileChannel ch = FileChannel.open(path(which), WRITE)) {
            dropHolder();
            FileLock lock = bounded(() -> ch.tryLock());
            assertThat(lock.isValid()).isTrue();
            lock.release();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring4j"})
    void anAsynchronousChannelLocksAFifoWithoutWriterAtOnce(String which) throws Exception {
        try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(path(which), READ)) {
            dropHolder();
            FileLock lock = bounded(() -> ch.tryLock(0, Long.MAX_VALUE, true));
            assertThat(lock.isValid()).isTrue();
            lock.release();
            bounded(() -> ch.lock(0, 10, true).get()).release();
        }
    }

    /**
     * A shared lock of the FIFO waits while another process holds it exclusively, outside every lock of the
     * channel's: closing the channel ends the wait with AsynchronousCloseException, as the JDK's close does.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring4j"})
    void closeEndsALockWaitingForAnotherProcesss(String which) throws Exception {
        Process child = ChildJvm.start(LockHolder.class, "-Dfifo=" + fifo);
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream()));
            assertThat(out.readLine()).isEqualTo("locked");
            FileChannel ch = FileChannel.open(path(which), READ);
            dropHolder();
            CompletableFuture<FileLock> lock = new CompletableFuture<>();
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    lock.complete(ch.lock(0, Long.MAX_VALUE, true));
                } catch (Throwable e) {
                    lock.completeExceptionally(e);
                }
            });
            awaitCondition(() -> {
                try {
                    return ThreadSyscalls.waitingForLock();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            bounded(() -> {
                ch.close();
                return null;
            });
            assertThatThrownBy(() -> lock.get(BOUND_SECONDS, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(AsynchronousCloseException.class);
        } finally {
            child.getOutputStream().close();            // its end: the child's lock goes with it
            assertThat(child.waitFor(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** The child's part: locks the FIFO exclusively, says so, and holds the lock until its stdin ends. */
    static final class LockHolder {
        public static void main(String[] args) throws IOException {
            try (FileChannel ch = FileChannel.open(Path.of(System.getProperty("fifo")), READ, WRITE);
                 FileLock lock = ch.lock()) {
                System.out.println("locked");
                System.out.flush();
                System.in.readAllBytes();
            }
        }
    }

    /**
     * {@code call} on another thread, which must return within the bound; if it does not, a writer and a reader
     * open the FIFO for a moment so that a thread waiting in an open of it can go on, and the test fails.
     */
    private <T> T bounded(Callable<T> call) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            try {
                result.complete(call.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get(BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            String stack = stack(t);
            int peer = LibC.open(fifo.toString(), LibC.O_RDWR | LibC.O_NONBLOCK | LibC.O_CLOEXEC, 0);
            t.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            LibC.close(peer);
            throw new AssertionError("still waiting after " + BOUND_SECONDS + " s: " + stack, e);
        }
    }

    private static String stack(Thread t) {
        StringBuilder b = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            b.append("\n\tat ").append(e);
        }
        return b.toString();
    }
}
