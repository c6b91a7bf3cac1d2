package io.uring4j.fs;

import com.sun.nio.file.ExtendedOpenOption;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.fs.FsTestKit.*;
import static io.uring4j.testkit.Patterns.pattern;
import static java.nio.file.StandardOpenOption.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The FileChannel contract, written once and run against the JDK's FileChannel ({@link JdkFileChannelTest}) and
 * uring4j's ({@link UringFileChannelTest}). Every expectation is a concrete value — data, positions, sizes,
 * exception classes and messages — so both passing means both behave identically.
 */
abstract class FileChannelContract {
    private static final long GIB = 1L << 30;

    @TempDir
    Path dir;

    /** Opens a channel of the implementation under test. */
    abstract FileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException;

    /**
     * Whether a virtual thread blocked in a read can be woken by interrupt or close. The JDK's cannot: its
     * NativeThreadSet signals only platform threads, so close waits until the read returns by itself.
     */
    abstract boolean wakesBlockedVirtualThreads();

    /**
     * Whether one transfer between two files moves every requested byte. The JDK's may stop short (its
     * copy_file_range returns what one pass moved), which the transfer methods' contract allows.
     */
    abstract boolean transfersWholeCounts();

    /** One transfer where whole counts are promised, else as many as it takes until one moves nothing. */
    private long transferred(long count, Transfer step) throws IOException {
        long done = step.from(0);
        while (!transfersWholeCounts() && done < count) {
            long n = step.from(done);
            if (n <= 0) {
                break;
            }
            done += n;
        }
        return done;
    }

    /** A transfer that continues after {@code done} bytes. */
    private interface Transfer {
        long from(long done) throws IOException;
    }

    private Thread.Builder blockingThread(boolean virtual) {
        if (virtual) {
            org.junit.jupiter.api.Assumptions.assumeTrue(wakesBlockedVirtualThreads(),
                    "this FileChannel cannot wake a virtual thread blocked in read(2)");
            return Thread.ofVirtual();
        }
        return Thread.ofPlatform();
    }

    final FileChannel open(Path path, OpenOption... options) throws IOException {
        return open(path, new HashSet<>(Arrays.asList(options)));
    }

    private Path file(String name, byte[] content) throws IOException {
        return Files.write(dir.resolve(name), content);
    }

    private static ByteBuffer heap(byte[] bytes) {
        return ByteBuffer.wrap(bytes);
    }

    private static ByteBuffer direct(byte[] bytes) {
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    private static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate().flip();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static void assertThrows(ThrowingCallable call, Class<? extends Throwable> type, String message) {
        var a = assertThatThrownBy(call).isExactlyInstanceOf(type);
        if (message == null) {
            a.hasMessage(null);
        } else {
            a.hasMessage(message);
        }
    }

    // ---- opening ---------------------------------------------------------------------------------------------

    @Test
    void openOptionsFollowTheJdkRules() throws Exception {
        Path existing = file("existing", pattern(1, 100));
        Path missing = dir.resolve("missing");
        assertThrows(() -> open(existing, READ, APPEND), IllegalArgumentException.class, "READ + APPEND not allowed");
        assertThrows(() -> open(existing, APPEND, TRUNCATE_EXISTING), IllegalArgumentException.class,
                "APPEND + TRUNCATE_EXISTING not allowed");
        assertThrows(() -> open(missing, READ), NoSuchFileException.class, missing.toString());
        assertThrows(() -> open(missing, WRITE), NoSuchFileException.class, missing.toString());
        assertThrows(() -> open(existing, WRITE, CREATE_NEW), FileAlreadyExistsException.class, existing.toString());
        assertThrows(() -> open(dir.resolve("."), WRITE, CREATE_NEW), FileAlreadyExistsException.class,
                dir.resolve(".").toString());
        assertThrows(() -> open(dir, WRITE), FileSystemException.class, dir + ": Is a directory");
        assertThrows(() -> open(dir, WRITE, CREATE_NEW), FileAlreadyExistsException.class, dir.toString());
        OpenOption custom = new OpenOption() {
            @Override
            public String toString() {
                return "CUSTOM";
            }
        };
        assertThrows(() -> open(existing, READ, custom), UnsupportedOperationException.class, "CUSTOM not supported");
        assertThatThrownBy(() -> open(existing, new OpenOption[] {READ, null})).isInstanceOf(NullPointerException.class);
        assertThrows(() -> open(missing, Set.of(WRITE, CREATE), PosixFilePermissions.asFileAttribute(Set.of()),
                        new FileAttribute<String>() {
                            public String name() {
                                return "dos:hidden";
                            }

                            public String value() {
                                return "x";
                            }
                        }),
                UnsupportedOperationException.class, "'dos:hidden' not supported as initial attribute");
        assertThat(missing).doesNotExist();

        try (FileChannel ch = open(existing)) {          // no option: READ
            assertThat(ch.read(ByteBuffer.allocate(10))).isEqualTo(10);
            assertThatThrownBy(() -> ch.write(heap(new byte[1]))).isExactlyInstanceOf(NonWritableChannelException.class);
        }
        try (FileChannel ch = open(existing, WRITE, TRUNCATE_EXISTING)) {
            assertThat(ch.size()).isZero();
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1))).isExactlyInstanceOf(NonReadableChannelException.class);
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1), 0)).isExactlyInstanceOf(NonReadableChannelException.class);
        }
        try (FileChannel ch = open(missing, Set.of(WRITE, CREATE_NEW),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r-----")))) {
            assertThat(ch.size()).isZero();
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(missing))).isEqualTo("rw-r-----");
        Path ignored = dir.resolve("read-create");
        assertThrows(() -> open(ignored, READ, CREATE), NoSuchFileException.class, ignored.toString());
    }

    @Test
    void deleteOnCloseUnlinksAndTheChannelStillWorks() throws Exception {
        Path path = file("doomed", pattern(2, 50));
        try (FileChannel ch = open(path, READ, WRITE, DELETE_ON_CLOSE)) {
            ch.write(heap(pattern(3, 10)), 50);
            ByteBuffer all = ByteBuffer.allocate(60);
            assertThat(ch.read(all, 0)).isEqualTo(60);
            assertThat(ch.size()).isEqualTo(60);
        }
        assertThat(path).doesNotExist();
    }

    @Test
    void aDirectoryOpensForReadingButCannotBeRead() throws Exception {
        try (FileChannel ch = open(dir, READ)) {
            assertThrows(() -> ch.read(ByteBuffer.allocate(10)), IOException.class, "Is a directory");
            assertThrows(() -> ch.read(ByteBuffer.allocateDirect(10), 0), IOException.class, "Is a directory");
        }
    }

    // ---- relative and positional reads and writes ----------------------------------------------------------------

    @Test
    void relativeReadsAndWritesMoveThePosition() throws Exception {
        Path path = dir.resolve("rel");
        try (FileChannel ch = open(path, READ, WRITE, CREATE)) {
            assertThat(ch.position()).isZero();
            assertThat(ch.write(heap(pattern(4, 300)))).isEqualTo(300);
            assertThat(ch.write(direct(pattern(5, 200)))).isEqualTo(200);
            assertThat(ch.position()).isEqualTo(500);
            assertThat(ch.size()).isEqualTo(500);

            assertThat(ch.position(100)).isSameAs(ch);
            ByteBuffer heap = ByteBuffer.allocate(150);
            assertThat(ch.read(heap)).isEqualTo(150);
            assertThat(bytes(heap)).isEqualTo(Arrays.copyOfRange(pattern(4, 300), 100, 250));
            ByteBuffer direct = ByteBuffer.allocateDirect(1000);
            assertThat(ch.read(direct)).as("short read at EOF").isEqualTo(250);
            assertThat(ch.position()).isEqualTo(500);
            assertThat(ch.read(direct)).as("at EOF").isEqualTo(-1);
            assertThat(ch.read(ByteBuffer.allocate(0))).as("no room: 0, even at EOF").isZero();
            assertThat(ch.write(ByteBuffer.allocate(0))).isZero();
            assertThat(ch.position()).isEqualTo(500);

            assertThat(ch.position(800).write(heap(new byte[] {9}))).isEqualTo(1);
            assertThat(ch.size()).as("a write past the end leaves a hole").isEqualTo(801);
            assertThat(ch.position()).isEqualTo(801);
            assertThatThrownBy(() -> ch.position(-1)).isExactlyInstanceOf(IllegalArgumentException.class).hasMessage(null);
        }
        byte[] onDisk = Files.readAllBytes(path);
        assertThat(Arrays.copyOfRange(onDisk, 500, 800)).containsOnly(0);
    }

    @Test
    void positionalReadsAndWritesLeaveThePosition() throws Exception {
        Path path = file("pos", pattern(6, 1000));
        try (FileChannel ch = open(path, READ, WRITE)) {
            ch.position(7);
            assertThat(ch.write(direct(pattern(7, 100)), 900)).isEqualTo(100);
            assertThat(ch.size()).isEqualTo(1000);
            assertThat(ch.write(heap(pattern(8, 50)), 2000)).isEqualTo(50);
            assertThat(ch.size()).isEqualTo(2050);
            ByteBuffer b = ByteBuffer.allocate(200);
            assertThat(ch.read(b, 850)).isEqualTo(200);
            assertThat(Arrays.copyOfRange(bytes(b), 50, 150)).isEqualTo(pattern(7, 100));
            assertThat(ch.read(ByteBuffer.allocate(10), 2050)).isEqualTo(-1);
            assertThat(ch.read(ByteBuffer.allocateDirect(10), 5000)).isEqualTo(-1);
            assertThat(ch.read(ByteBuffer.allocate(100), 2040)).isEqualTo(10);
            assertThat(ch.position()).isEqualTo(7);
            assertThrows(() -> ch.read(ByteBuffer.allocate(1), -1), IllegalArgumentException.class, "Negative position");
            assertThrows(() -> ch.write(ByteBuffer.allocate(1), -1), IllegalArgumentException.class, "Negative position");
            assertThrows(() -> ch.read(ByteBuffer.allocate(4).asReadOnlyBuffer(), 0), IllegalArgumentException.class,
                    "Read-only buffer");
            assertThat(ch.write(heap(pattern(9, 4)).asReadOnlyBuffer(), 0)).as("a read-only source is fine").isEqualTo(4);
            ByteBuffer partial = ByteBuffer.allocate(100).position(10).limit(30);
            assertThat(ch.read(partial, 0)).isEqualTo(20);
            assertThat(partial.position()).isEqualTo(30);
        }
    }

    @Test
    void positionsBeyondTwoGigabytesInASparseFile() throws Exception {
        Path path = dir.resolve("sparse");
        long far = 3 * GIB + 17;
        try (FileChannel ch = open(path, READ, WRITE, CREATE_NEW, SPARSE)) {
            assertThat(ch.write(heap(pattern(10, 4096)), far)).isEqualTo(4096);
            assertThat(ch.size()).isEqualTo(far + 4096);
            ch.position(5 * GIB);
            assertThat(ch.write(direct(pattern(11, 10)))).isEqualTo(10);
            assertThat(ch.position()).isEqualTo(5 * GIB + 10);
            assertThat(ch.size()).isEqualTo(5 * GIB + 10);

            ByteBuffer b = ByteBuffer.allocateDirect(4096 + 100);
            assertThat(ch.read(b, far - 100)).isEqualTo(4196);
            byte[] got = bytes(b);
            assertThat(Arrays.copyOfRange(got, 0, 100)).as("the hole reads as zeros").containsOnly(0);
            assertThat(Arrays.copyOfRange(got, 100, 4196)).isEqualTo(pattern(10, 4096));
            ch.position(5 * GIB + 5);
            ByteBuffer tail = ByteBuffer.allocate(100);
            assertThat(ch.read(tail)).isEqualTo(5);
            assertThat(ch.position()).isEqualTo(5 * GIB + 10);
            ch.truncate(2 * GIB + 1);
            assertThat(ch.size()).isEqualTo(2 * GIB + 1);
            assertThat(ch.position()).isEqualTo(2 * GIB + 1);
        }
    }

    @Test
    void scatteringReadsFillBuffersInOrder() throws Exception {
        Path path = file("scatter", pattern(12, 1000));
        try (FileChannel ch = open(path, READ)) {
            ByteBuffer a = ByteBuffer.allocate(100);
            ByteBuffer empty = ByteBuffer.allocate(0);
            ByteBuffer b = ByteBuffer.allocateDirect(300).position(50);
            ByteBuffer c = ByteBuffer.allocate(400).limit(200);
            ByteBuffer[] all = {ByteBuffer.allocate(5), a, empty, b, c, ByteBuffer.allocate(5)};
            ch.position(10);
            assertThat(ch.read(all, 1, 4)).isEqualTo(550);
            assertThat(ch.position()).isEqualTo(560);
            assertThat(bytes(a)).isEqualTo(pattern(12, 10, 100));
            assertThat(Arrays.copyOfRange(bytes(b), 50, 300)).isEqualTo(pattern(12, 110, 250));
            assertThat(bytes(c)).isEqualTo(pattern(12, 360, 200));
            assertThat(all[0].position()).isZero();
            assertThat(all[5].position()).isZero();

            ByteBuffer[] rest = {ByteBuffer.allocate(400), ByteBuffer.allocateDirect(400)};
            assertThat(ch.read(rest)).as("short at EOF").isEqualTo(440);
            assertThat(rest[0].position()).isEqualTo(400);
            assertThat(rest[1].position()).isEqualTo(40);
            assertThat(ch.read(new ByteBuffer[] {ByteBuffer.allocate(10)})).isEqualTo(-1);
            assertThat(ch.read(new ByteBuffer[] {ByteBuffer.allocate(0)})).isZero();
            assertThatThrownBy(() -> ch.read(all, 4, 3)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThrows(() -> ch.read(new ByteBuffer[] {ByteBuffer.allocate(4).asReadOnlyBuffer()}),
                    IllegalArgumentException.class, "Read-only buffer");
        }
    }

    @Test
    void gatheringWritesTakeBuffersInOrder() throws Exception {
        Path path = dir.resolve("gather");
        try (FileChannel ch = open(path, WRITE, CREATE)) {
            ByteBuffer[] srcs = {heap(pattern(13, 100)), direct(pattern(14, 200)), ByteBuffer.allocate(0),
                    heap(pattern(15, 300)).position(100)};
            ch.position(5);
            assertThat(ch.write(srcs)).isEqualTo(500);
            assertThat(ch.position()).isEqualTo(505);
            for (ByteBuffer s : srcs) {
                assertThat(s.hasRemaining()).isFalse();
            }
            assertThat(ch.write(srcs)).isZero();
        }
        byte[] onDisk = Files.readAllBytes(path);
        assertThat(onDisk).hasSize(505);
        assertThat(Arrays.copyOfRange(onDisk, 5, 105)).isEqualTo(pattern(13, 100));
        assertThat(Arrays.copyOfRange(onDisk, 105, 305)).isEqualTo(pattern(14, 200));
        assertThat(Arrays.copyOfRange(onDisk, 305, 505)).isEqualTo(Arrays.copyOfRange(pattern(15, 300), 100, 300));
    }

    @Test
    void appendModeWritesAtTheEnd() throws Exception {
        Path path = file("log", pattern(16, 100));
        try (FileChannel ch = open(path, APPEND)) {
            assertThat(ch.position()).as("append: the position is the size").isEqualTo(100);
            assertThat(ch.write(heap(pattern(17, 10)))).isEqualTo(10);
            assertThat(ch.position()).isEqualTo(110);
            ch.position(0);
            assertThat(ch.write(direct(pattern(18, 5)))).isEqualTo(5);
            assertThat(ch.position()).isEqualTo(115);
            assertThat(ch.write(new ByteBuffer[] {heap(pattern(19, 3)), direct(pattern(20, 2))})).isEqualTo(5);
            assertThat(ch.write(heap(pattern(21, 4)), 0)).as("Linux appends positional writes too").isEqualTo(4);
            assertThat(ch.size()).isEqualTo(124);
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1))).isExactlyInstanceOf(NonReadableChannelException.class);
        }
        byte[] onDisk = Files.readAllBytes(path);
        assertThat(Arrays.copyOfRange(onDisk, 0, 100)).isEqualTo(pattern(16, 100));
        assertThat(Arrays.copyOfRange(onDisk, 100, 110)).isEqualTo(pattern(17, 10));
        assertThat(Arrays.copyOfRange(onDisk, 110, 115)).isEqualTo(pattern(18, 5));
        assertThat(Arrays.copyOfRange(onDisk, 120, 124)).isEqualTo(pattern(21, 4));
    }

    // ---- size, truncate, force --------------------------------------------------------------------------------

    @Test
    void truncateShrinksOnlyAndClampsThePosition() throws Exception {
        Path path = file("trunc", pattern(22, 1000));
        try (FileChannel ch = open(path, READ, WRITE)) {
            ch.position(900);
            assertThat(ch.truncate(2000)).isSameAs(ch);
            assertThat(ch.size()).as("a larger size does not grow the file").isEqualTo(1000);
            assertThat(ch.position()).isEqualTo(900);
            ch.truncate(500);
            assertThat(ch.size()).isEqualTo(500);
            assertThat(ch.position()).isEqualTo(500);
            ch.position(100).truncate(300);
            assertThat(ch.position()).isEqualTo(100);
            assertThrows(() -> ch.truncate(-1), IllegalArgumentException.class, "Negative size");
            ch.force(true);
            ch.force(false);
        }
        try (FileChannel ro = open(path, READ)) {
            assertThatThrownBy(() -> ro.truncate(0)).isExactlyInstanceOf(NonWritableChannelException.class);
            ro.force(true);
        }
        assertThat(Files.size(path)).isEqualTo(300);
    }

    @Test
    void aFullDiskShortensAWriteThenFailsTheNext() throws Exception {
        Path tiny = Files.createDirectory(dir.resolve("tiny"));
        org.junit.jupiter.api.Assumptions.assumeTrue(mountTmpfs(tiny, "64k"),
                "cannot mount a small tmpfs here (needs root): no full disk to test with");
        try {
            try (FileChannel ch = open(tiny.resolve("f"), WRITE, CREATE)) {
                int n = ch.write(ByteBuffer.allocateDirect(256 * 1024));
                assertThat(n).as("a short write").isPositive().isLessThan(256 * 1024);
                assertThrows(() -> ch.write(heap(new byte[4096])), IOException.class, "No space left on device");
                assertThat(ch.size()).isEqualTo(n);
                assertThat(ch.position()).isEqualTo(n);
            }
        } finally {
            unmount(tiny);
        }
    }

    // ---- transfers, map, lock --------------------------------------------------------------------------------------

    /** Both ends of this implementation (uring4j's splice through a pipe), more than a pipe-full at a time. */
    @Test
    void transferBetweenTwoChannelsOfThisKind() throws Exception {
        Path src = file("src2", pattern(29, 300_000));
        Path dst = dir.resolve("dst2");
        try (FileChannel in = open(src, READ); FileChannel out = open(dst, WRITE, CREATE)) {
            out.position(5);
            assertThat(transferred(250_000, done -> in.transferTo(10 + done, 250_000 - done, out)))
                    .isEqualTo(250_000);
            assertThat(out.position()).isEqualTo(250_005);
            assertThat(in.transferTo(299_990, 100, out)).as("clamped at the end").isEqualTo(10);
            assertThat(out.size()).isEqualTo(250_015);
        }
        byte[] copied = Files.readAllBytes(dst);
        assertThat(Arrays.copyOfRange(copied, 5, 250_005)).isEqualTo(pattern(29, 10, 250_000));
        assertThat(Arrays.copyOfRange(copied, 250_005, 250_015)).isEqualTo(pattern(29, 299_990, 10));

        Path back = dir.resolve("back2");
        try (FileChannel out = open(back, READ, WRITE, CREATE); FileChannel in = open(src, READ)) {
            in.position(1000);
            assertThat(transferred(200_000, done -> out.transferFrom(in, 20 + done, 200_000 - done)))
                    .isEqualTo(200_000);
            assertThat(in.position()).isEqualTo(201_000);
            assertThat(transferred(1_000_000, done -> out.transferFrom(in, 200_020 + done, 1_000_000 - done)))
                    .as("the rest").isEqualTo(99_000);
        }
        assertThat(Arrays.copyOfRange(Files.readAllBytes(back), 20, 299_020)).isEqualTo(pattern(29, 1000, 299_000));

        Path log = file("log", pattern(31, 100));
        try (FileChannel in = open(src, READ); FileChannel out = open(log, WRITE, APPEND)) {
            assertThat(transferred(70_000, done -> in.transferTo(done, 70_000 - done, out)))
                    .as("into an append-mode file").isEqualTo(70_000);
        }
        byte[] appended = Files.readAllBytes(log);
        assertThat(appended).hasSize(70_100);
        assertThat(Arrays.copyOfRange(appended, 100, 70_100)).isEqualTo(pattern(29, 0, 70_000));
    }

    /** To a socket, the JDK's: as a web server sends a file. */
    @Test
    void transferToASocket() throws Exception {
        Path src = file("sent", pattern(37, 300_000));
        SocketChannel[] pair = loopbackPair();
        try (SocketChannel sender = pair[0]; SocketChannel receiver = pair[1]; FileChannel in = open(src, READ)) {
            in.position(9);
            long sent = 0;
            while (sent < 250_000) {
                sent += in.transferTo(100 + sent, 250_000 - sent, sender);
            }
            assertThat(in.position()).as("transferTo leaves this position").isEqualTo(9);
            assertThat(in.transferTo(300_000, 10, sender)).as("nothing past the end").isZero();
            sender.shutdownOutput();
            ByteBuffer got = ByteBuffer.allocate(250_001);
            while (receiver.read(got) >= 0) {
                assertThat(got.position()).isLessThanOrEqualTo(250_000);
            }
            assertThat(Arrays.copyOf(got.array(), got.position())).isEqualTo(pattern(37, 100, 250_000));
        }
    }

    @Test
    void anInterruptedTransferToASocketClosesTheChannel() throws Exception {
        Path src = file("interrupted", pattern(41, 10_000));
        SocketChannel[] pair = loopbackPair();
        try (SocketChannel sender = pair[0]; SocketChannel receiver = pair[1]; FileChannel in = open(src, READ)) {
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> in.transferTo(0, 10_000, sender))
                        .isInstanceOf(ClosedByInterruptException.class);
            } finally {
                Thread.interrupted();
            }
            assertThat(in.isOpen()).isFalse();
        }
    }

    /** A connected pair of the JDK's socket channels over loopback: {sender, receiver}. */
    private static SocketChannel[] loopbackPair() throws IOException {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(loopback)) {
            SocketChannel sender = SocketChannel.open(server.getLocalAddress());
            return new SocketChannel[] {sender, server.accept()};
        }
    }

    @Test
    void transferToAndFrom() throws Exception {
        Path src = file("src", pattern(23, 200_000));
        Path dst = dir.resolve("dst");
        try (FileChannel in = open(src, READ); FileChannel out = FileChannel.open(dst, WRITE, CREATE)) {
            in.position(11);
            out.position(3);
            assertThat(in.transferTo(1000, 150_000, out)).isEqualTo(150_000);
            assertThat(in.position()).as("transferTo leaves this position").isEqualTo(11);
            assertThat(out.position()).as("and moves the target's").isEqualTo(150_003);
            assertThat(in.transferTo(199_000, 5000, out)).as("clamped at the end").isEqualTo(1000);
            assertThat(in.transferTo(200_000, 5000, out)).isZero();
            assertThat(in.transferTo(300_000, 5000, out)).isZero();
            assertThrows(() -> in.transferTo(-1, 1, out), IllegalArgumentException.class, null);
            assertThatThrownBy(() -> in.transferTo(0, 1, in)).isInstanceOf(NonWritableChannelException.class);
        }
        byte[] copied = Files.readAllBytes(dst);
        assertThat(Arrays.copyOfRange(copied, 3, 150_003)).isEqualTo(pattern(23, 1000, 150_000));

        Path back = dir.resolve("back");
        try (FileChannel out = open(back, READ, WRITE, CREATE); FileChannel in = FileChannel.open(src, READ)) {
            in.position(100);
            out.position(7);
            assertThat(out.transferFrom(in, 50, 120_000)).isEqualTo(120_000);
            assertThat(in.position()).as("transferFrom moves the source's position").isEqualTo(120_100);
            assertThat(out.position()).as("and leaves this one").isEqualTo(7);
            assertThat(out.transferFrom(in, 500_000, 1_000_000)).as("the rest, past the end").isEqualTo(79_900);
            assertThat(out.size()).isEqualTo(579_900);
            assertThat(out.transferFrom(in, 0, 10)).as("source at its end").isZero();
        }
        byte[] b = Files.readAllBytes(back);
        assertThat(Arrays.copyOfRange(b, 50, 120_050)).isEqualTo(pattern(23, 100, 120_000));
        assertThat(Arrays.copyOfRange(b, 500_000, 579_900)).isEqualTo(pattern(23, 120_100, 79_900));
    }

    @Test
    void mapReadsAndWritesTheFile() throws Exception {
        Path path = file("mapped", pattern(24, 10_000));
        try (FileChannel ch = open(path, READ, WRITE)) {
            MappedByteBuffer ro = ch.map(FileChannel.MapMode.READ_ONLY, 100, 1000);
            assertThat(ro.isReadOnly()).isTrue();
            byte[] got = new byte[1000];
            ro.get(got);
            assertThat(got).isEqualTo(pattern(24, 100, 1000));
            MappedByteBuffer rw = ch.map(FileChannel.MapMode.READ_WRITE, 20_000, 10);
            assertThat(ch.size()).as("mapping past the end grows a writable file").isEqualTo(20_010);
            rw.put(pattern(25, 10));
            ByteBuffer b = ByteBuffer.allocate(10);
            ch.read(b, 20_000);
            assertThat(bytes(b)).isEqualTo(pattern(25, 10));
            assertThrows(() -> ch.map(FileChannel.MapMode.READ_ONLY, 0, 1L << 32), IllegalArgumentException.class,
                    "Size exceeds Integer.MAX_VALUE");
            assertThrows(() -> ch.map(FileChannel.MapMode.READ_ONLY, -1, 1), IllegalArgumentException.class,
                    "Negative position");
        }
        try (FileChannel ro = open(path, READ)) {
            assertThatThrownBy(() -> ro.map(FileChannel.MapMode.READ_WRITE, 0, 1))
                    .isExactlyInstanceOf(NonWritableChannelException.class);
        }
    }

    /**
     * An interrupted map closes the channel, as every blocking operation of the JDK's does; the channel must not
     * stay open with a closed JDK channel behind it (every later map, lock or crowded sync would then fail).
     */
    @Test
    void anInterruptedMapClosesTheChannel() throws Exception {
        Path path = file("map-interrupted", pattern(27, 100));
        try (FileChannel ch = open(path, READ, WRITE)) {
            ch.map(FileChannel.MapMode.READ_ONLY, 0, 10);        // the JDK channel behind uring4j's is open now
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> ch.map(FileChannel.MapMode.READ_ONLY, 0, 10))
                        .isInstanceOf(ClosedByInterruptException.class);
                assertThat(Thread.currentThread().isInterrupted()).as("the interrupt status is kept").isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(ch.isOpen()).isFalse();
            assertThatThrownBy(() -> ch.map(FileChannel.MapMode.READ_ONLY, 0, 10))
                    .isInstanceOf(ClosedChannelException.class);
        }
    }

    @Test
    void locksBelongToTheChannelAndAreCheckedJvmWide() throws Exception {
        Path path = file("locked", pattern(26, 100));
        FileChannel ch = open(path, READ, WRITE);
        FileLock lock = ch.lock(0, 50, false);
        assertThat(lock.channel()).isSameAs(ch);
        assertThat(lock.isValid()).isTrue();
        assertThat(lock.isShared()).isFalse();
        assertThat(lock.position()).isZero();
        assertThat(lock.size()).isEqualTo(50);
        assertThatThrownBy(() -> ch.tryLock(10, 10, false)).isExactlyInstanceOf(OverlappingFileLockException.class);
        try (FileChannel other = FileChannel.open(path, READ, WRITE)) {
            assertThatThrownBy(() -> other.tryLock(0, 10, true)).as("one lock table for the whole JVM")
                    .isExactlyInstanceOf(OverlappingFileLockException.class);
        }
        FileLock second = ch.tryLock(60, 10, true);
        assertThat(second).isNotNull();
        assertThat(second.isShared()).isTrue();
        lock.release();
        assertThat(lock.isValid()).isFalse();
        ch.close();
        assertThat(second.isValid()).as("closing the channel releases its locks").isFalse();
        assertThatThrownBy(second::release).isExactlyInstanceOf(ClosedChannelException.class);
        try (FileChannel ro = open(path, READ)) {
            assertThatThrownBy(() -> ro.lock(0, 1, false)).isExactlyInstanceOf(NonWritableChannelException.class);
            FileLock shared = ro.lock(0, 1, true);
            assertThat(shared.channel()).isSameAs(ro);
        }
    }

    // ---- closed channel ------------------------------------------------------------------------------------------

    @Test
    void aClosedChannelThrowsClosedChannelException() throws Exception {
        Path path = file("closed", pattern(27, 10));
        FileChannel ch = open(path, READ, WRITE);
        ch.close();
        ch.close();
        assertThat(ch.isOpen()).isFalse();
        ByteBuffer b = ByteBuffer.allocate(4);
        List<ThrowingCallable> calls = List.of(
                () -> ch.read(b), () -> ch.read(b, 0), () -> ch.read(new ByteBuffer[] {b}),
                () -> ch.write(b), () -> ch.write(b, 0), () -> ch.write(new ByteBuffer[] {b}),
                ch::position, () -> ch.position(1), ch::size, () -> ch.truncate(0), () -> ch.force(true),
                () -> ch.transferTo(0, 1, FileChannel.open(path, WRITE)),
                () -> ch.transferFrom(FileChannel.open(path, READ), 0, 1),
                () -> ch.map(FileChannel.MapMode.READ_ONLY, 0, 1), ch::lock, ch::tryLock);
        for (ThrowingCallable call : calls) {
            assertThatThrownBy(call).isExactlyInstanceOf(ClosedChannelException.class);
        }
        FileChannel ro = open(path, READ);
        ro.close();
        assertThatThrownBy(() -> ro.write(b)).as("closed is checked before writable")
                .isExactlyInstanceOf(ClosedChannelException.class);
    }

    // ---- O_DIRECT ------------------------------------------------------------------------------------------------

    @Test
    void directIoNeedsBlockAlignment() throws Exception {
        Path path = file("direct", pattern(28, 64 * 1024));
        try (FileChannel ch = open(path, READ, WRITE, ExtendedOpenOption.DIRECT)) {
            int block = (int) Files.getFileStore(path).getBlockSize();
            ByteBuffer aligned = ByteBuffer.allocateDirect(3 * block).alignedSlice(block);
            aligned.limit(block);
            assertThat(ch.read(aligned, block)).isEqualTo(block);
            assertThat(bytes(aligned)).isEqualTo(pattern(28, block, block));
            aligned.flip();
            assertThat(ch.write(aligned, 0)).isEqualTo(block);
            ByteBuffer heap = ByteBuffer.allocate(2 * block);
            assertThat(ch.read(heap, 0)).as("heap buffers of aligned size work").isEqualTo(2 * block);

            ByteBuffer misaligned = ByteBuffer.allocateDirect(3 * block).alignedSlice(block).position(1).limit(block + 1);
            assertThrows(() -> ch.read(misaligned, 0), IOException.class, "Current position of the bytebuffer (1) is"
                    + " not a multiple of the block size (" + block + "): alignment offset = 1");
            assertThrows(() -> ch.read(ByteBuffer.allocate(100), 0), IOException.class,
                    "Number of remaining bytes (100) is not a multiple of the block size (" + block + ")");
            assertThrows(() -> ch.write(ByteBuffer.allocate(block), 7), IOException.class,
                    "Channel position (7) is not a multiple of the block size (" + block + ")");
            ch.position(3);
            assertThrows(() -> ch.read(ByteBuffer.allocate(block)), IOException.class,
                    "Channel position (3) is not a multiple of the block size (" + block + ")");
        }
    }

    // ---- blocking: interrupt and asynchronous close ----------------------------------------------------------

    @ParameterizedTest(name = "virtual thread: {0}")
    @ValueSource(booleans = {true, false})
    void interruptingABlockedReadClosesTheChannel(boolean virtual) throws Throwable {
        Path fifo = mkfifo(dir.resolve("fifo"));
        // A second open of the FIFO keeps it usable after the channel under test is closed.
        try (FileChannel holder = FileChannel.open(fifo, READ, WRITE)) {
            FileChannel ch = open(fifo, READ, WRITE);      // READ alone would wait for a writer
            ByteBuffer buffer = ByteBuffer.allocateDirect(16);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
            Thread reader = blockingThread(virtual).start(() -> {
                try {
                    ch.read(buffer);
                } catch (Throwable t) {
                    failure.set(t);
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                }
            });
            awaitBlocked(reader);
            reader.interrupt();
            reader.join();
            assertThat(failure.get()).isExactlyInstanceOf(ClosedByInterruptException.class);
            assertThat(stillInterrupted.get()).as("interrupt status kept").isTrue();
            assertThat(ch.isOpen()).isFalse();

            // Nothing reaches the buffer afterwards: what is written now is all still in the FIFO.
            holder.write(heap(pattern(29, 16)));
            ByteBuffer echo = ByteBuffer.allocate(16);
            assertThat(holder.read(echo)).isEqualTo(16);
            assertThat(bytes(echo)).isEqualTo(pattern(29, 16));
            assertThat(buffer.position()).isZero();
            byte[] untouched = new byte[16];
            buffer.duplicate().get(untouched);
            assertThat(untouched).containsOnly(0);
        }
    }

    @ParameterizedTest(name = "virtual thread: {0}")
    @ValueSource(booleans = {true, false})
    void closingFromAnotherThreadFailsTheBlockedRead(boolean virtual) throws Throwable {
        Path fifo = mkfifo(dir.resolve("fifo"));
        FileChannel ch = open(fifo, READ, WRITE);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        Thread reader = blockingThread(virtual).start(() -> {
            try {
                ch.read(new ByteBuffer[] {ByteBuffer.allocate(8), ByteBuffer.allocateDirect(8)});
            } catch (Throwable t) {
                failure.set(t);
                interrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        awaitBlocked(reader);
        ch.close();
        reader.join();
        assertThat(failure.get()).isExactlyInstanceOf(AsynchronousCloseException.class);
        assertThat(interrupted.get()).isFalse();
    }

    @Test
    void aFifoHasNoPositions() throws Throwable {
        Path fifo = mkfifo(dir.resolve("fifo"));
        try (FileChannel ch = open(fifo, READ, WRITE)) {
            assertThat(ch.write(heap(pattern(31, 8)))).isEqualTo(8);
            assertThat(ch.size()).isZero();
            assertThrows(() -> ch.read(ByteBuffer.allocate(8), 0), IOException.class, "Illegal seek");
            assertThrows(() -> ch.write(ByteBuffer.allocate(8), 0), IOException.class, "Illegal seek");
            assertThrows(ch::position, IOException.class, "Illegal seek");
            assertThrows(() -> ch.position(3), IOException.class, "Illegal seek");
            ByteBuffer in = ByteBuffer.allocate(8);
            assertThat(ch.read(in)).isEqualTo(8);
            assertThat(bytes(in)).isEqualTo(pattern(31, 8));
        }
    }

    /**
     * A terminal (a pty's master side) has no positions either: the kernel refuses lseek and pread/pwrite with
     * ESPIPE, which the JDK reports at once — nothing is read or written, and no call waits for input.
     */
    @Test
    void aTerminalHasNoPositions() throws Throwable {
        Path ptmx = Path.of("/dev/ptmx");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(ptmx) && Files.isWritable(ptmx),
                "no pseudo-terminals here");
        try (FileChannel ch = open(ptmx, READ, WRITE)) {
            assertThat(ch.size()).isZero();
            assertThrows(ch::position, IOException.class, "Illegal seek");
            assertThrows(() -> ch.position(3), IOException.class, "Illegal seek");
            assertThrows(() -> ch.read(ByteBuffer.allocate(8), 0), IOException.class, "Illegal seek");
            assertThrows(() -> ch.read(ByteBuffer.allocateDirect(8), 5), IOException.class, "Illegal seek");
            assertThrows(() -> ch.write(heap(pattern(32, 8)), 0), IOException.class, "Illegal seek");
            assertThrows(() -> ch.truncate(0), IOException.class, "Illegal seek");
            assertThat(ch.isOpen()).isTrue();
        }
    }

    /** Not every character device lacks positions: /dev/null takes lseek, pread and pwrite. */
    @Test
    void aCharacterDeviceWithPositionsKeepsThem() throws Exception {
        try (FileChannel ch = open(Path.of("/dev/null"), READ, WRITE)) {
            assertThat(ch.position(5)).isSameAs(ch);     // (where it is then is the device's: the JDK asks lseek)
            assertThat(ch.read(ByteBuffer.allocate(8), 0)).isEqualTo(-1);
            assertThat(ch.write(heap(pattern(33, 8)), 3)).isEqualTo(8);
            assertThat(ch.size()).isZero();
        }
    }

    @Test
    void anInterruptedThreadCannotStartAnOperation() throws Exception {
        Path path = file("pre-interrupted", pattern(30, 10));
        FileChannel ch = open(path, READ);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofVirtual().unstarted(() -> {
            Thread.currentThread().interrupt();
            try {
                ch.read(ByteBuffer.allocate(10));
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.start();
        t.join();
        assertThat(failure.get()).isExactlyInstanceOf(ClosedByInterruptException.class);
        assertThat(ch.isOpen()).isFalse();
    }
}
