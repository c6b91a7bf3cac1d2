package io.uring4j.fs;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedWriter;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.fs.FsTestKit.awaitBlocked;
import static io.uring4j.fs.FsTestKit.mkfifo;
import static io.uring4j.testkit.Patterns.pattern;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code Files} helpers as the JDK's provider defines them, run against the JDK's ({@link JdkProviderFilesTest})
 * and uring4j's ({@link UringProviderFilesTest}) file system with the same expectations.
 */
abstract class FilesContract {
    @TempDir
    Path tmp;

    /** A directory of the file system under test. */
    Path dir;

    abstract FileSystem fileSystem();

    @BeforeEach
    void resolveDir() {
        dir = fileSystem().getPath(tmp.toString());
    }

    /**
     * A directory stream is a SecureDirectoryStream (Linux), as libraries that delete trees safely require
     * (Guava's MoreFiles.deleteRecursively): its entries are this file system's paths, and reading, attributes,
     * sub-streams, deletes and moves work relative to the open directory.
     */
    @Test
    void aDirectoryStreamIsSecureAndWorksRelativeToItsDirectory() throws Exception {
        Path tree = Files.createDirectory(dir.resolve("tree"));
        Files.writeString(tree.resolve("a.txt"), CONTENT);
        Path sub = Files.createDirectory(tree.resolve("sub"));
        Files.writeString(sub.resolve("b.txt"), CONTENT);
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(tree)) {
            assertThat(stream).isInstanceOf(SecureDirectoryStream.class);
            SecureDirectoryStream<Path> secure = (SecureDirectoryStream<Path>) stream;
            List<Path> entries = new ArrayList<>();
            secure.forEach(entries::add);
            assertThat(entries).extracting(p -> p.getFileName().toString()).containsExactlyInAnyOrder("a.txt", "sub");
            assertThat(entries).allSatisfy(p -> assertThat(p.getFileSystem()).isSameAs(fileSystem()));

            Path a = fileSystem().getPath("a.txt");
            try (SeekableByteChannel ch = secure.newByteChannel(a, Set.of(READ))) {
                ByteBuffer buf = ByteBuffer.allocate(64);
                ch.read(buf);
                assertThat(new String(buf.array(), 0, buf.position())).isEqualTo(CONTENT);
            }
            assertThat(secure.getFileAttributeView(fileSystem().getPath("sub"), BasicFileAttributeView.class)
                    .readAttributes().isDirectory()).isTrue();
            try (SecureDirectoryStream<Path> inSub = secure.newDirectoryStream(fileSystem().getPath("sub"))) {
                inSub.deleteFile(fileSystem().getPath("b.txt"));
            }
            secure.deleteDirectory(fileSystem().getPath("sub"));
            secure.move(a, secure, fileSystem().getPath("c.txt"));
        }
        try (var left = Files.list(tree)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("c.txt");
        }
    }

    /** One call of a Files helper on {@code file}, which holds {@link #CONTENT} unless the call writes it. */
    @FunctionalInterface
    private interface Helper {
        void call(Path file) throws Exception;
    }

    private static final String CONTENT = "uring4j\nio_uring\n";

    /**
     * The helpers the JDK made uninterruptible (JDK-8205612, OpenJDK's Files/CallWithInterruptSet): with the
     * thread's interrupt status set they complete, and the status stays set.
     */
    @ParameterizedTest(name = "virtual thread: {0}")
    @ValueSource(booleans = {true, false})
    void helpersCompleteWithTheInterruptStatusSet(boolean virtual) throws Exception {
        byte[] bytes = CONTENT.getBytes();
        List<Helper> readers = List.of(
                f -> assertThat(Files.readAllBytes(f)).isEqualTo(bytes),
                f -> assertThat(Files.readString(f)).isEqualTo(CONTENT),
                f -> assertThat(Files.readAllLines(f)).containsExactly("uring4j", "io_uring"),
                f -> {
                    try (InputStream in = Files.newInputStream(f)) {
                        assertThat(in.readAllBytes()).isEqualTo(bytes);
                    }
                },
                f -> {
                    try (var in = Files.newBufferedReader(f)) {
                        assertThat(in.readLine()).isEqualTo("uring4j");
                    }
                });
        List<Helper> writers = List.of(
                f -> Files.write(f, bytes),
                f -> Files.writeString(f, CONTENT),
                f -> Files.write(f, List.of("uring4j", "io_uring")),
                f -> {
                    try (OutputStream out = Files.newOutputStream(f)) {
                        out.write(bytes);
                    }
                },
                f -> {
                    try (BufferedWriter out = Files.newBufferedWriter(f)) {
                        out.write(CONTENT);
                    }
                });
        for (int i = 0; i < readers.size(); i++) {
            Path file = Files.writeString(dir.resolve("read" + i), CONTENT);
            assertThat(callInterrupted(virtual, readers.get(i), file)).as("reader %d", i).isNull();
        }
        for (int i = 0; i < writers.size(); i++) {
            Path file = dir.resolve("write" + i);
            assertThat(callInterrupted(virtual, writers.get(i), file)).as("writer %d", i).isNull();
            assertThat(Files.readString(file)).as("writer %d", i).isEqualTo(CONTENT);
        }
    }

    /** Runs {@code helper} on a thread whose interrupt status is set: its failure, or null; asserts the status kept. */
    private static Throwable callInterrupted(boolean virtual, Helper helper, Path file) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread t = (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
            Thread.currentThread().interrupt();
            try {
                helper.call(file);
            } catch (Throwable e) {
                failure.set(e);
            }
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        t.join();
        assertThat(stillInterrupted.get()).as("interrupt status kept").isTrue();
        return failure.get();
    }

    /** Files.newByteChannel's channel is not one of them: an interrupt closes it, as any FileChannel's. */
    @Test
    void aByteChannelStaysInterruptible() throws Exception {
        Path file = Files.writeString(dir.resolve("data"), CONTENT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread.ofVirtual().start(() -> {
            try (SeekableByteChannel ch = Files.newByteChannel(file)) {
                Thread.currentThread().interrupt();
                ch.read(ByteBuffer.allocate(8));
            } catch (Throwable e) {
                failure.set(e);
            }
        }).join();
        assertThat(failure.get()).isExactlyInstanceOf(ClosedByInterruptException.class);
    }

    /** An interrupt while a stream's read waits for a FIFO's writer neither ends the read nor loses the data. */
    @Test
    void anInterruptDoesNotEndAStreamsBlockedRead() throws Throwable {
        Path fifo = mkfifo(tmp.resolve("fifo"));
        // The platform provider's channel: a writer that keeps the FIFO open, so the stream opens at once.
        try (FileChannel writer = FileChannel.open(fifo, READ, WRITE);
             InputStream in = Files.newInputStream(dir.resolve("fifo"))) {
            BlockedReader reader = BlockedReader.interrupted(() -> {
                byte[] b = new byte[16];
                return Arrays.copyOf(b, in.read(b));            // one write of 16 bytes: one read
            });
            writer.write(ByteBuffer.wrap(pattern(40, 16)));
            assertThat(reader.outcome()).isEqualTo(pattern(40, 16));
        }
    }

    /**
     * An interrupt while {@code Files.newByteChannel}'s channel waits in a read for a FIFO's writer closes the
     * channel and ends the read with ClosedByInterruptException; the status stays set.
     */
    @Test
    void anInterruptEndsAByteChannelsBlockedRead() throws Throwable {
        Path fifo = mkfifo(tmp.resolve("fifo"));
        // The platform provider's channel: a writer that keeps the FIFO open, so the channel opens at once.
        try (FileChannel writer = FileChannel.open(fifo, READ, WRITE);
             SeekableByteChannel ch = Files.newByteChannel(dir.resolve("fifo"))) {
            BlockedReader reader = BlockedReader.interrupted(() -> ch.read(ByteBuffer.allocate(16)));
            assertThat(reader.outcome()).isExactlyInstanceOf(ClosedByInterruptException.class);
            assertThat(ch.isOpen()).isFalse();
        }
    }

    /**
     * {@code Files.readAllBytes}'s read, waiting for a FIFO's writer, goes on through an interrupt and returns what
     * the writer wrote before closing; the status stays set.
     */
    @Test
    void anInterruptDoesNotEndReadAllBytesBlockedRead() throws Throwable {
        Path fifo = mkfifo(tmp.resolve("fifo"));
        BlockedReader reader;
        try (FileChannel writer = FileChannel.open(fifo, READ, WRITE)) {
            reader = BlockedReader.interrupted(() -> Files.readAllBytes(dir.resolve("fifo")));
            writer.write(ByteBuffer.wrap(pattern(42, 16)));
        }
        assertThat(reader.outcome()).isEqualTo(pattern(42, 16));
    }

    /** A platform thread's read of a FIFO, interrupted once it waits: what it returned or threw. */
    private record BlockedReader(Thread thread, AtomicReference<Object> result) {
        interface Read {
            Object read() throws Exception;
        }

        /** Starts {@code read} on a platform thread and interrupts it once it is blocked in its read. */
        static BlockedReader interrupted(Read read) throws InterruptedException {
            AtomicReference<Object> result = new AtomicReference<>();
            Thread thread = Thread.ofPlatform().start(() -> {
                try {
                    result.set(read.read());
                } catch (Throwable e) {
                    result.set(e);
                }
                if (!Thread.currentThread().isInterrupted()) {
                    result.set(new AssertionError("interrupt status lost; the read gave " + result.get()));
                }
            });
            awaitBlocked(thread);
            thread.interrupt();
            return new BlockedReader(thread, result);
        }

        /** Waits for the read to end: what it returned or threw (an AssertionError had the status been cleared). */
        Object outcome() throws InterruptedException {
            thread.join();
            return result.get();
        }
    }

    /**
     * A FIFO's stream (OpenJDK's Files/InputStreamTest): {@code available()} answers, {@code skip} reads, and
     * {@code readAllBytes()} reads to the writer's close — no position is asked of a file that has none. (JDK 25
     * counts none of what the pipe holds as available.)
     */
    @Test
    void aFifosStreamReadsToTheEnd() throws Throwable {
        Path fifo = mkfifo(tmp.resolve("fifo"));
        CountDownLatch checkedEmpty = new CountDownLatch(1);
        CountDownLatch wroteFirst = new CountDownLatch(1);
        CountDownLatch checkedFirst = new CountDownLatch(1);
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = Thread.ofPlatform().start(() -> {
            try (FileChannel out = FileChannel.open(fifo, WRITE)) {
                checkedEmpty.await();
                out.write(ByteBuffer.wrap(pattern(41, 100)));
                wroteFirst.countDown();
                checkedFirst.await();
                out.write(ByteBuffer.wrap(pattern(41, 100, 50)));
            } catch (Throwable e) {
                writerFailure.set(e);
            }
        });
        try (InputStream in = Files.newInputStream(dir.resolve("fifo"))) {
            assertThat(in.available()).isZero();
            checkedEmpty.countDown();
            wroteFirst.await();
            assertThat(in.available()).isZero();
            assertThat(in.skip(10)).isEqualTo(10);
            assertThat(in.readNBytes(5)).isEqualTo(pattern(41, 10, 5));
            checkedFirst.countDown();
            assertThat(in.readAllBytes()).isEqualTo(pattern(41, 15, 135));
            assertThat(in.available()).isZero();
        } finally {
            checkedEmpty.countDown();
            checkedFirst.countDown();
            writer.join();
        }
        assertThat(writerFailure.get()).isNull();
    }

    /** Files.readAllBytes on a FIFO reads to the writer's close (it asks the size, 0, and reads on). */
    @Test
    void readAllBytesOfAFifo() throws Throwable {
        Path fifo = mkfifo(tmp.resolve("fifo"));
        Thread writer = Thread.ofPlatform().start(() -> {
            try (FileChannel out = FileChannel.open(fifo, WRITE)) {
                out.write(ByteBuffer.wrap(pattern(42, 70_000)));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertThat(Files.readAllBytes(dir.resolve("fifo"))).isEqualTo(pattern(42, 70_000));
        writer.join();
    }

    @Test
    void streamOptionsFollowTheJdkRules() {
        Path file = dir.resolve("options");
        assertThatThrownBy(() -> Files.newInputStream(file, WRITE))
                .isExactlyInstanceOf(UnsupportedOperationException.class).hasMessage("'WRITE' not allowed");
        assertThatThrownBy(() -> Files.newInputStream(file, java.nio.file.StandardOpenOption.APPEND))
                .isExactlyInstanceOf(UnsupportedOperationException.class).hasMessage("'APPEND' not allowed");
        assertThatThrownBy(() -> Files.newOutputStream(file, READ))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("READ not allowed");
        assertThatThrownBy(() -> Files.newInputStream(file))
                .isExactlyInstanceOf(java.nio.file.NoSuchFileException.class).hasMessage(file.toString());
    }
}
