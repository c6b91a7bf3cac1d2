package io.uring4j.fs;

import io.uring4j.ring.FaultyEngine;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.FaultRuns;
import com.sun.nio.file.ExtendedOpenOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.uring4j.testkit.FaultRuns.RUN_NANOS;
import static io.uring4j.testkit.FaultRuns.SEED;
import static io.uring4j.testkit.FaultRuns.assertNamesAnInjectedErrno;
import static io.uring4j.testkit.FaultRuns.checked;
import static io.uring4j.testkit.FaultRuns.faulty;
import static io.uring4j.testkit.FaultRuns.goesOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The java.nio.file layer under the faults of {@code FaultInjectionTest} ({@link FaultyEngine}: enters failing,
 * requests failing with ENOMEM, EAGAIN or EBADF, short transfers): {@link UringFileSystemProvider}'s file system on
 * a runtime over a faulty engine, driven through {@code Files.write} and {@code readAllBytes}, streams read and
 * written in 8 KiB pieces, channels forced and closed, appends, asynchronous channels, transferTo and transferFrom,
 * copies, moves and listings, by platform and virtual threads at once (a virtual thread's reads and writes take
 * other routes than a platform thread's); and one channel read by many threads together. Each worker keeps a model
 * of its own directory: an operation either succeeds with exactly the model's bytes, or fails with an IOException
 * naming an injected errno and leaves each file it wrote in a state a failure explains (its old content, or a
 * prefix of the new one, as the JDK's platform provider reads it back); and after the runtime's close no fd or
 * native byte (nor a lease of the file layer's temporary buffers) is left.
 *
 * <p>Only what goes through the ring meets a fault: a page-cache read or write made in place does not, so reads
 * often follow a sync and a drop from the page cache. {@code -During4j.fs.readsInPlace=false
 * -During4j.fs.writesInPlace=false -During4j.fs.nowaitReads=false} sends every read and write through the ring.
 * Copies from file to file, moves and listings are the platform's, checked here for the model's sake.
 */
class FileSystemFaultsTest {
    private static final String[] NAMES = {"a", "b", "c", "d"};
    private static final int PIECE = 8192;
    /** A multiple of any O_DIRECT alignment a file system here asks. */
    private static final int BLOCK = 4096;

    @TempDir
    Path dir;

    @BeforeAll
    static void probeKernelAndWarmUpTheJdk() throws Exception {
        FaultRuns.probeKernelAndWarmUpTheJdk();
    }

    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void filesKeepTheirContentOrFailByName(String engineName) throws Exception {
        FaultyEngine faulty = faulty(engineName);
        checked(faulty, 2, 8, TempBuffers::keptBytes, (uring, canaries) -> {
            UringFiles was = SharedFiles.use(UringFiles.of(uring));
            try {
                FileSystem fs = new UringFileSystemProvider(FileSystems.getDefault().provider()).fileSystem();
                long end = System.nanoTime() + RUN_NANOS;
                List<CompletableFuture<Integer>> workers = new ArrayList<>();
                for (int w = 0; w < 6; w++) {
                    Path real = Files.createDirectory(dir.resolve("w" + w));
                    Worker worker = new Worker(fs.getPath(real.toString()), real, new SplittableRandom(SEED + w));
                    CompletableFuture<Integer> done = new CompletableFuture<>();
                    Runnable body = () -> {
                        try {
                            done.complete(worker.run(end, faulty));
                        } catch (Throwable t) {
                            done.completeExceptionally(t);
                        }
                    };
                    (w % 3 == 0 ? Thread.ofPlatform() : Thread.ofVirtual()).start(body);
                    workers.add(done);
                }
                for (CompletableFuture<Integer> worker : workers) {
                    assertThat(worker.get(60, TimeUnit.SECONDS)).as("operations of a worker").isPositive();
                }
            } finally {
                SharedFiles.use(was);
            }
        });
        assertThat(faulty.requestFaults()).as("%s", faulty).isPositive();
    }

    /**
     * One FileChannel of the provider's read by many platform and virtual threads at once, with heap and direct
     * buffers. Now and then the file is dropped from the page cache, so that reads miss and go through the ring.
     * (Virtual threads reading one channel together are batched on their carriers only where the runtime's engine
     * is the kernel's itself: those rings are the batch's own, and no fault reaches them.)
     */
    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void aSharedChannelsReadersGetTheFileOrFailByName(String engineName) throws Exception {
        FaultyEngine faulty = faulty(engineName);
        byte[] content = new byte[1 << 20];
        new SplittableRandom(SEED).nextBytes(content);
        Path real = Files.write(dir.resolve("shared"), content);
        checked(faulty, 2, 8, TempBuffers::keptBytes, (uring, canaries) -> {
            UringFiles was = SharedFiles.use(UringFiles.of(uring));
            int fd = LibC.open(real.toString(), LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
            assertThat(fd).as("open %s", real).isNotNegative();
            FileSystem fs = new UringFileSystemProvider(FileSystems.getDefault().provider()).fileSystem();
            try (FileChannel ch = FileChannel.open(fs.getPath(real.toString()), StandardOpenOption.READ)) {
                long end = System.nanoTime() + RUN_NANOS;
                List<CompletableFuture<Integer>> readers = new ArrayList<>();
                for (int t = 0; t < 12; t++) {
                    SplittableRandom rnd = new SplittableRandom(SEED + t);
                    CompletableFuture<Integer> done = new CompletableFuture<>();
                    Runnable body = () -> {
                        try {
                            done.complete(readAtRandom(ch, content, rnd, fd, end, faulty, canaries));
                        } catch (Throwable e) {
                            done.completeExceptionally(e);
                        }
                    };
                    (t % 4 == 0 ? Thread.ofPlatform() : Thread.ofVirtual()).start(body);
                    readers.add(done);
                }
                for (CompletableFuture<Integer> reader : readers) {
                    assertThat(reader.get(60, TimeUnit.SECONDS)).as("reads of a thread").isPositive();
                }
            } finally {
                LibC.close(fd);
                SharedFiles.use(was);
            }
        });
        assertThat(faulty.requestFaults()).as("%s", faulty).isPositive();
    }

    private static int readAtRandom(FileChannel ch, byte[] content, SplittableRandom rnd, int fd, long end,
                                    FaultyEngine faulty, FaultRuns.Canaries canaries) throws IOException {
        int reads = 0;
        while (goesOn(end, faulty::requestFaults)) {
            if (rnd.nextInt(64) == 0) {
                // best effort: the other readers may read pages back in at once
                assertThat(FsTestKit.fadviseDontNeed(fd, 0)).as("posix_fadvise DONTNEED").isZero();
            }
            int len = 1 + rnd.nextInt(rnd.nextBoolean() ? 4096 : 65536);
            int pos = rnd.nextInt(content.length);
            boolean direct = rnd.nextBoolean();
            ByteBuffer buffer = direct ? canaries.arena().allocate(len).asByteBuffer() : ByteBuffer.allocate(len);
            try {
                int n = ch.read(buffer, pos);
                assertThat(n).as("a read of %d at %d", len, pos).isBetween(1, Math.min(len, content.length - pos));
                for (int i = 0; i < n; i++) {
                    if (buffer.get(i) != content[pos + i]) {
                        assertThat(buffer.get(i)).as("byte %d of a read of %d at %d", i, len, pos)
                                .isEqualTo(content[pos + i]);
                    }
                }
            } catch (IOException e) {
                assertNamesAnInjectedErrno(e);
            }
            if (direct) {
                canaries.fill(MemorySegment.ofBuffer(buffer));
            }
            reads++;
        }
        return reads;
    }

    /** One thread's files, in a directory of its own, and the model of their content (absent: no such file). */
    private static final class Worker {
        private final Path ours;
        private final Path real;
        private final SplittableRandom rnd;
        private final TreeMap<String, byte[]> model = new TreeMap<>();

        Worker(Path ours, Path real, SplittableRandom rnd) {
            this.ours = ours;
            this.real = real;
            this.rnd = rnd;
        }

        int run(long end, FaultyEngine faulty) throws Exception {
            int ops = 0;
            while (goesOn(end, faulty::requestFaults)) {
                String name = NAMES[rnd.nextInt(NAMES.length)];
                String other = NAMES[rnd.nextInt(NAMES.length)];
                switch (rnd.nextInt(13)) {
                    case 0 -> write(name);
                    case 1 -> stream(name);
                    case 2 -> channel(name);
                    case 3, 4 -> read(name);
                    case 5 -> transfer(name, other);
                    case 6 -> copy(name, other);
                    case 7 -> move(name, other);
                    case 8 -> append(name);
                    case 9 -> asynchronousWrite(name);
                    case 10 -> asynchronousRead(name);
                    case 11 -> direct(name);
                    default -> list();
                }
                ops++;
            }
            for (String name : NAMES) {
                expectOnDisk(name, model.get(name));
            }
            return ops;
        }

        private byte[] randomContent() {
            int size = switch (rnd.nextInt(4)) {
                case 0 -> rnd.nextInt(PIECE);
                case 1 -> PIECE * (1 + rnd.nextInt(8));       // whole pieces
                default -> rnd.nextInt(1 << 18);
            };
            byte[] data = new byte[size];
            rnd.nextBytes(data);
            return data;
        }

        /** Files.write: a stream of the provider's, in the JDK's 8 KiB pieces. */
        private void write(String name) throws IOException {
            byte[] data = randomContent();
            try {
                Files.write(ours.resolve(name), data);
                model.put(name, data);
            } catch (IOException e) {
                failedWriting(e, name, data);
            }
        }

        /** Files.write with APPEND: O_APPEND writes, whose rest after a short one goes to the end too. */
        private void append(String name) throws IOException {
            byte[] old = model.getOrDefault(name, new byte[0]);
            if (old.length > 1 << 20) {
                return;
            }
            byte[] data = randomContent();
            try {
                Files.write(ours.resolve(name), data, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                failedWriting(e, name, old, data);
                return;
            }
            byte[] now = Arrays.copyOf(old, old.length + data.length);
            System.arraycopy(data, 0, now, old.length, data.length);
            model.put(name, now);
        }

        /**
         * An AsynchronousFileChannel of the provider's, written in pieces one after the other (every one a request),
         * then forced.
         */
        private void asynchronousWrite(String name) throws Exception {
            byte[] data = randomContent();
            try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(ours.resolve(name),
                    StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                int piece = 1 + rnd.nextInt(4 * PIECE);
                ByteBuffer buffer = ByteBuffer.wrap(data);
                while (buffer.hasRemaining()) {
                    int at = buffer.position();
                    ByteBuffer part = buffer.slice(at, Math.min(piece, buffer.remaining()));
                    buffer.position(at + waitFor(ch.write(part, at)));
                }
                ch.force(rnd.nextBoolean());
            } catch (IOException e) {
                failedWriting(e, name, data);
                return;
            }
            model.put(name, data);
        }

        /** An AsynchronousFileChannel of the provider's, read in pieces one after the other. */
        private void asynchronousRead(String name) throws Exception {
            byte[] expected = model.get(name);
            if (expected == null) {
                return;
            }
            if (rnd.nextBoolean()) {
                dropFromPageCache(name);
            }
            try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(ours.resolve(name),
                    StandardOpenOption.READ)) {
                ByteBuffer buffer = rnd.nextBoolean() ? ByteBuffer.allocate(expected.length + 1)
                        : ByteBuffer.allocateDirect(expected.length + 1);
                int piece = 1 + rnd.nextInt(4 * PIECE);
                while (true) {
                    int at = buffer.position();
                    int n = waitFor(ch.read(buffer.slice(at, Math.min(piece, buffer.remaining())), at));
                    if (n < 0) {
                        break;
                    }
                    assertThat(n).as("a read at %d of a file of %d", at, expected.length).isPositive();
                    buffer.position(at + n);
                }
                byte[] got = new byte[buffer.flip().remaining()];
                buffer.get(got);
                assertThat(got).as("%s read back", name).isEqualTo(expected);
            } catch (IOException e) {
                assertNamesAnInjectedErrno(e);
            }
        }

        /**
         * An O_DIRECT channel of the provider's: opened through the ring (which learns its alignment there too),
         * written in aligned blocks from an aligned buffer, then read back whole; every transfer a request.
         */
        private void direct(String name) throws IOException {
            byte[] data = new byte[BLOCK * rnd.nextInt(1, 17)];
            rnd.nextBytes(data);
            ByteBuffer buffer = ByteBuffer.allocateDirect(data.length + BLOCK).alignedSlice(BLOCK);
            buffer.put(data).flip();
            try (FileChannel ch = FileChannel.open(ours.resolve(name), StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    ExtendedOpenOption.DIRECT)) {
                while (buffer.hasRemaining()) {
                    ch.write(buffer, buffer.position());
                }
            } catch (IOException e) {
                failedWriting(e, name, data);
                return;
            }
            model.put(name, data);
            try (FileChannel ch = FileChannel.open(ours.resolve(name), StandardOpenOption.READ,
                    ExtendedOpenOption.DIRECT)) {
                buffer.clear();
                while (buffer.hasRemaining() && ch.read(buffer, buffer.position()) > 0) {
                    assertThat(buffer.position() % BLOCK).as("an O_DIRECT read's end").isZero();
                }
                assertThat(buffer.flip()).as("%s read back through O_DIRECT", name).isEqualTo(ByteBuffer.wrap(data));
            } catch (IOException e) {
                assertNamesAnInjectedErrno(e);
            }
        }

        private static int waitFor(Future<Integer> transfer) throws Exception {
            try {
                return transfer.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : e;
            }
        }

        /** Files.newOutputStream, written in 8 KiB pieces and closed. */
        private void stream(String name) throws IOException {
            byte[] data = randomContent();
            try (OutputStream out = Files.newOutputStream(ours.resolve(name))) {
                for (int at = 0; at < data.length; at += PIECE) {
                    out.write(data, at, Math.min(PIECE, data.length - at));
                }
            } catch (IOException e) {
                failedWriting(e, name, data);
                return;
            }
            model.put(name, data);
        }

        /** A FileChannel of the provider's, written through a stream in 8 KiB pieces, forced and closed. */
        private void channel(String name) throws IOException {
            byte[] data = randomContent();
            try (FileChannel ch = FileChannel.open(ours.resolve(name), StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                OutputStream out = Channels.newOutputStream(ch);
                for (int at = 0; at < data.length; at += PIECE) {
                    out.write(data, at, Math.min(PIECE, data.length - at));
                }
                ch.force(rnd.nextBoolean());
            } catch (IOException e) {
                failedWriting(e, name, data);
                return;
            }
            model.put(name, data);
        }

        /** Files.readAllBytes, or a stream of the provider's read in 8 KiB pieces. */
        private void read(String name) throws Exception {
            byte[] expected = model.get(name);
            if (expected == null) {
                return;
            }
            if (rnd.nextBoolean()) {
                dropFromPageCache(name);
            }
            try {
                byte[] got;
                if (rnd.nextBoolean()) {
                    got = Files.readAllBytes(ours.resolve(name));
                } else {
                    try (InputStream in = Files.newInputStream(ours.resolve(name))) {
                        got = readInPieces(in);
                    }
                }
                assertThat(got).as("%s read back", name).isEqualTo(expected);
            } catch (IOException e) {
                assertNamesAnInjectedErrno(e);
            }
        }

        /**
         * Synced and dropped from the page cache, so that the reads find it missing and go through the ring (the
         * faults' seam), not only in place. Up to a page may stay: a file of less is left as it is.
         */
        private void dropFromPageCache(String name) throws Exception {
            Path path = real.resolve(name);
            if (Files.size(path) < 4096) {
                return;
            }
            int fd = LibC.open(path.toString(), LibC.O_RDONLY | LibC.O_CLOEXEC, 0);
            assertThat(fd).as("open %s", path).isNotNegative();
            try {
                assertThat(LibC.fsync(fd, true)).as("fsync %s", path).isZero();
                FsTestKit.dropFromPageCache(fd, 0);
            } finally {
                LibC.close(fd);
            }
        }

        private static byte[] readInPieces(InputStream in) throws IOException {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] piece = new byte[PIECE];
            int n;
            while ((n = in.read(piece, 0, PIECE)) >= 0) {
                all.write(piece, 0, n);
            }
            return all.toByteArray();
        }

        /** transferTo or transferFrom between two FileChannels of the provider's, into a truncated target. */
        private void transfer(String from, String to) throws Exception {
            byte[] data = model.get(from);
            if (data == null || from.equals(to)) {
                return;
            }
            if (rnd.nextInt(4) == 0) {
                transferToTheEnd(from, to, data);
                return;
            }
            try (FileChannel src = FileChannel.open(ours.resolve(from), StandardOpenOption.READ);
                 FileChannel dst = FileChannel.open(ours.resolve(to), StandardOpenOption.CREATE,
                         StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                boolean pull = rnd.nextBoolean();
                long done = 0;
                while (done < data.length) {
                    long n = pull ? dst.transferFrom(src, done, data.length - done)
                            : src.transferTo(done, data.length - done, dst);
                    assertThat(n).as("a transfer of %d bytes at %d", data.length - done, done).isPositive();
                    done += n;
                }
                if (pull) {
                    assertThat(src.position()).as("the source's position after transferFrom").isEqualTo(done);
                }
            } catch (IOException e) {
                failedWriting(e, to, data);
                return;
            }
            model.put(to, data);
        }

        /**
         * transferTo a target opened to append: no splice there, a copy through a buffer of the file layer's, whose
         * reads of a source dropped from the page cache go through the ring.
         */
        private void transferToTheEnd(String from, String to, byte[] data) throws Exception {
            byte[] old = model.getOrDefault(to, new byte[0]);
            if (old.length > 1 << 20) {
                return;
            }
            if (rnd.nextBoolean()) {
                dropFromPageCache(from);
            }
            try (FileChannel src = FileChannel.open(ours.resolve(from), StandardOpenOption.READ);
                 FileChannel dst = FileChannel.open(ours.resolve(to), StandardOpenOption.CREATE,
                         StandardOpenOption.APPEND)) {
                long done = 0;
                while (done < data.length) {
                    long n = src.transferTo(done, data.length - done, dst);
                    assertThat(n).as("a transfer of %d bytes at %d", data.length - done, done).isPositive();
                    done += n;
                }
                assertThat(dst.position()).as("the appending target's position").isEqualTo(old.length + done);
            } catch (IOException e) {
                failedWriting(e, to, old, data);
                return;
            }
            byte[] now = Arrays.copyOf(old, old.length + data.length);
            System.arraycopy(data, 0, now, old.length, data.length);
            model.put(to, now);
        }

        /** Files.copy from a file to a stream of the provider's: its streams at both ends. */
        private void copy(String from, String to) throws IOException {
            byte[] data = model.get(from);
            if (data == null || from.equals(to)) {
                return;
            }
            if (rnd.nextBoolean()) {
                Files.copy(ours.resolve(from), ours.resolve(to), StandardCopyOption.REPLACE_EXISTING);
                model.put(to, data);
                return;
            }
            try (OutputStream out = Files.newOutputStream(ours.resolve(to))) {
                assertThat(Files.copy(ours.resolve(from), out)).as("bytes copied").isEqualTo(data.length);
            } catch (IOException e) {
                failedWriting(e, to, data);
                return;
            }
            model.put(to, data);
        }

        private void move(String from, String to) throws IOException {
            byte[] data = model.get(from);
            if (data == null || from.equals(to)) {
                return;
            }
            Files.move(ours.resolve(from), ours.resolve(to), StandardCopyOption.REPLACE_EXISTING);
            model.remove(from);
            model.put(to, data);
        }

        private void list() throws IOException {
            Set<String> names;
            try (Stream<Path> files = Files.list(ours)) {
                names = files.map(p -> {
                    assertThat(p.getFileSystem()).as("a listed path's file system").isSameAs(ours.getFileSystem());
                    return p.getFileName().toString();
                }).collect(Collectors.toSet());
            }
            assertThat(names).as("the directory's names").isEqualTo(model.keySet());
        }

        /**
         * A write of {@code data} to {@code name}, truncated first, failed: by name, and leaving either the old
         * content or a prefix of {@code data} (what the JDK's provider reads back, which the model takes from then on).
         */
        private void failedWriting(IOException e, String name, byte[] data) throws IOException {
            failedWriting(e, name, new byte[0], data);
        }

        /** As above, for a write of {@code data} after {@code base}: the old content, or base and a prefix of data. */
        private void failedWriting(IOException e, String name, byte[] base, byte[] data) throws IOException {
            assertNamesAnInjectedErrno(e);
            byte[] old = model.get(name);
            Path path = real.resolve(name);
            byte[] now = Files.exists(path) ? Files.readAllBytes(path) : null;
            boolean unchanged = Arrays.equals(old, now);
            int written = now == null ? -1 : now.length - base.length;
            boolean prefix = written >= 0 && written <= data.length
                    && Arrays.equals(now, 0, base.length, base, 0, base.length)
                    && Arrays.equals(now, base.length, now.length, data, 0, written);
            assertThat(unchanged || prefix).as("%s after a failed write of %d bytes after %d (%s): %s bytes, was %s",
                    name, data.length, base.length, e, now == null ? "no" : now.length,
                    old == null ? "none" : old.length).isTrue();
            if (now == null) {
                model.remove(name);
            } else {
                model.put(name, now);
            }
        }

        private void expectOnDisk(String name, byte[] expected) throws IOException {
            Path path = real.resolve(name);
            byte[] now = Files.exists(path) ? Files.readAllBytes(path) : null;
            assertThat(now).as("%s at the end", name).isEqualTo(expected);
        }
    }
}
