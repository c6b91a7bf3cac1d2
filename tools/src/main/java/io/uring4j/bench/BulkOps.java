package io.uring4j.bench;

import io.uring4j.fs.UringFileSystemProvider;
import io.uring4j.fs.UringFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The matrix's sequential and bulk rows: whole-file operations through {@code java.nio.file.Files} on paths of
 * uring4j's file-system provider (what {@code -Djava.nio.file.spi.DefaultFileSystemProvider} installs) against the
 * same calls on the platform's paths, from 1 and 8 platform or virtual threads, each thread on files of its own of
 * {@value #SIZE} bytes. An op is one whole file: read, copied, sent, written (and forced, as a search engine or a log
 * makes its writes durable: through a channel opened for it), or renamed.
 */
final class BulkOps implements AutoCloseable {
    static final int SIZE = 512 << 10;
    private static final int CHUNK = 8 << 10;

    /** What one op does. */
    enum Kind {
        READ_ALL_BYTES("readAllBytes"), COPY("copy"), TRANSFER_TO_SOCKET("transferTo socket"),
        INPUT_STREAM("inputStream 8K"), OUTPUT_STREAM_FORCE("outputStream 8K+force"), WRITE_FORCE("write+force"),
        MOVE("move");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    record Row(String name, Kind kind, boolean platform, int threads) {
    }

    static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            for (boolean platform : new boolean[]{true, false}) {
                for (int threads : new int[]{1, 8}) {
                    rows.add(new Row("bulk " + (platform ? "PT" : "VT") + " x" + threads + " " + kind.label, kind,
                            platform, threads));
                }
            }
        }
        return rows;
    }

    /** The row of that name, as {@link #rows} names it. */
    static Optional<Row> row(String name) {
        return rows().stream().filter(r -> r.name().equals(name)).findFirst();
    }

    private final Row row;
    private final Path dir;
    private final byte[] data = new byte[SIZE];
    private final List<SocketChannel> senders = new ArrayList<>();
    private final List<Thread> drainers = new ArrayList<>();
    private final boolean[] moved;
    private volatile boolean stop;

    private BulkOps(Row row, Path dir) {
        this.row = row;
        this.dir = dir;
        this.moved = new boolean[row.threads()];
    }

    /** The row's files (and, for transferTo, one loopback connection per thread with a platform thread draining it). */
    static BulkOps open(Row row) throws IOException {
        BulkOps ops = new BulkOps(row, Files.createTempDirectory("uring4j-bulk-"));
        try {
            new java.util.Random(42).nextBytes(ops.data);
            for (int i = 0; i < row.threads(); i++) {
                Files.write(ops.dir.resolve("src" + i), ops.data);
            }
            if (row.kind() == Kind.TRANSFER_TO_SOCKET) {
                ops.connect();
            }
            return ops;
        } catch (IOException | RuntimeException e) {
            ops.close();
            throw e;
        }
    }

    private void connect() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            for (int i = 0; i < row.threads(); i++) {
                senders.add(SocketChannel.open(server.getLocalAddress()));
                SocketChannel receiver = server.accept();
                drainers.add(Thread.ofPlatform().daemon().name("uring4j-bulk-drain-" + i).start(() -> drain(receiver)));
            }
        }
    }

    private static void drain(SocketChannel receiver) {
        ByteBuffer sink = ByteBuffer.allocateDirect(1 << 20);
        try (receiver) {
            while (receiver.read(sink.clear()) >= 0) {
                // discard
            }
        } catch (IOException e) {
            // the sender closed: done
        }
    }

    /** Ops per second on uring4j's paths ({@code ours}) or the platform's, after the matrix's warm-up. */
    Matrix.Sample measure(boolean ours, Matrix matrix, int seconds) throws IOException, InterruptedException {
        FileSystemProvider provider = ours ? Ours.PROVIDER : platform();
        Path base = ours ? Ours.PROVIDER.fileSystem().getPath(dir.toString()) : dir;
        matrix.warmUp((nanos, counters) -> run(provider, base, nanos));
        return run(provider, base, seconds * 1_000_000_000L);
    }

    private Matrix.Sample run(FileSystemProvider provider, Path base, long nanos) throws InterruptedException {
        stop = false;
        long cpu = Counters.processCpuNanos();
        AtomicLong done = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < row.threads(); i++) {
            int index = i;
            Runnable loop = () -> {
                try {
                    while (!stop) {
                        op(base, index);
                        done.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                    stop = true;
                }
            };
            threads.add((row.platform() ? Thread.ofPlatform() : Thread.ofVirtual()).start(loop));
        }
        long ops;
        long elapsed;
        try {
            Thread.sleep(nanos / 1_000_000);
        } finally {
            ops = done.get();
            elapsed = System.nanoTime() - start;
            cpu = Counters.processCpuNanos() - cpu;
            stop = true;
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            throw new BenchException(row.name() + " on " + provider.getClass().getSimpleName() + ": " + failure.get(),
                    failure.get());
        }
        return Matrix.Sample.of(ops, elapsed, cpu);
    }

    private void op(Path base, int i) throws IOException {
        Path src = base.resolve("src" + i);
        Path dst = base.resolve("dst" + i);
        switch (row.kind()) {
            case READ_ALL_BYTES -> check(Files.readAllBytes(src).length);
            case COPY -> Files.copy(src, dst, StandardCopyOption.REPLACE_EXISTING);
            case TRANSFER_TO_SOCKET -> {
                try (FileChannel ch = FileChannel.open(src)) {
                    for (long at = 0; at < SIZE; ) {
                        at += ch.transferTo(at, SIZE - at, senders.get(i));
                    }
                }
            }
            case INPUT_STREAM -> {
                byte[] chunk = new byte[CHUNK];
                long total = 0;
                try (InputStream in = Files.newInputStream(src)) {
                    for (int n; (n = in.read(chunk)) > 0; ) {
                        total += n;
                    }
                }
                check(total);
            }
            case OUTPUT_STREAM_FORCE -> {
                try (OutputStream out = Files.newOutputStream(dst)) {
                    for (int at = 0; at < SIZE; at += CHUNK) {
                        out.write(data, at, CHUNK);
                    }
                }
                force(dst);
            }
            case WRITE_FORCE -> {
                Files.write(dst, data);
                force(dst);
            }
            case MOVE -> {
                Files.move(moved[i] ? dst : src, moved[i] ? src : dst);
                moved[i] = !moved[i];
            }
        }
    }

    private static void force(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    private void check(long n) {
        if (n != SIZE) {
            throw new BenchException(row.name() + ": read " + n + " bytes, expected " + SIZE);
        }
    }

    @Override
    public void close() throws IOException {
        for (SocketChannel s : senders) {
            s.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** The platform's provider, whichever is this JVM's default: the bench may itself run under the flag. */
    private static FileSystemProvider platform() {
        FileSystemProvider initial = FileSystems.getDefault().provider();
        return initial instanceof UringFileSystemProvider u ? u.platform() : initial;
    }

    /**
     * uring4j's provider, this JVM's default or one of its own, made on first use: a forked JDK side ({@code --bulk})
     * starts no runtime. The shared runtime is started with it: until it is up, the provider's streams are the
     * platform's.
     */
    private static final class Ours {
        static final UringFileSystemProvider PROVIDER;

        static {
            PROVIDER = FileSystems.getDefault().provider() instanceof UringFileSystemProvider u ? u
                    : new UringFileSystemProvider(FileSystems.getDefault().provider());
            try {
                UringFiles.shared();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
