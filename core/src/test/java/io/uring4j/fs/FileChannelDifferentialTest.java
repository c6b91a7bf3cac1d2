package io.uring4j.fs;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.fs.Differential.outcome;
import static io.uring4j.fs.Differential.state;
import static io.uring4j.fs.FsTestKit.awaitBlocked;
import static io.uring4j.fs.FsTestKit.mkfifo;
import static java.nio.file.StandardOpenOption.*;

/**
 * Seeded random programs run against the JDK's FileChannel and UringFileChannel, each on a file of its own with
 * the same content; every step's outcome (return value, buffer state, exception class and message), the channel
 * state after it (open, position, size, lock validity) and the files' contents must be the same. Steps include
 * calls made with the thread's interrupt status set, and — on a FIFO, where a read reliably blocks — reads that
 * another thread interrupts, closes under, or feeds. See {@link Differential} for replaying a seed.
 */
@BothEngines
class FileChannelDifferentialTest {
    private static final int STEPS = 120;
    private static final int FIFO_STEPS = 40;
    @UringRuntime(loops = 2)
    private static Uring uring;

    @TempDir
    Path dir;

    /** One implementation's channels and files; the two sides are driven by the same random choices. */
    private static final class Side {
        final boolean jdk;
        final Path dir;
        final Path main;
        final Path peerPath;
        FileChannel ch;
        FileChannel peer;
        final List<FileLock> locks = new ArrayList<>();

        Side(boolean jdk, Path dir) throws IOException {
            this.jdk = jdk;
            this.dir = Files.createDirectories(dir);
            this.main = dir.resolve("main");
            this.peerPath = dir.resolve("peer");
        }

        FileChannel open(Path path, Set<? extends OpenOption> options) throws IOException {
            return jdk ? FileChannel.open(path, options) : UringFileChannel.open(uring, path, options);
        }
    }

    @FunctionalInterface
    private interface Step {
        Object run(Side s) throws Exception;
    }

    /** Runs {@code step} on both sides and compares what it did; on a new thread, interrupted first, if asked. */
    private static void both(Differential d, Side[] sides, String what, Step step, Thread.Builder interruptedOn)
            throws InterruptedException {
        String[] out = new String[2];
        for (int i = 0; i < 2; i++) {
            Side s = sides[i];
            Callable<Object> call = () -> step.run(s);
            out[i] = interruptedOn == null ? outcome(call)
                    : Differential.onThread(interruptedOn instanceof Thread.Builder.OfVirtual, true, call);
            out[i] = out[i].replace(s.dir.toString(), "$DIR");
        }
        d.same(what, out[0], out[1]);
    }

    private static void both(Differential d, Side[] sides, String what, Step step) throws InterruptedException {
        both(d, sides, what, step, null);
    }

    // ---- the random program on a regular file ---------------------------------------------------------------------

    @Test
    void randomProgramsOnAFile() throws Exception {
        for (long seed : Differential.seeds(12)) {
            Path root = dir.resolve("program-" + seed);
            Side[] sides = {new Side(true, root.resolve("jdk")), new Side(false, root.resolve("ours"))};
            try {
                new FileProgram(seed, sides).run();
            } finally {
                for (Side s : sides) {
                    closeQuietly(s.ch);
                    closeQuietly(s.peer);
                }
            }
        }
    }

    private static final List<Set<OpenOption>> OPTIONS = List.of(Set.of(READ, WRITE), Set.of(READ, WRITE),
            Set.of(READ), Set.of(WRITE), Set.of(APPEND), Set.of(WRITE, APPEND), Set.of(READ, WRITE, DSYNC),
            Set.of(READ, WRITE, SYNC), Set.of(READ, WRITE, TRUNCATE_EXISTING), Set.of(READ, APPEND));

    private static final class FileProgram {
        final Random r;
        final Differential d;
        final Side[] sides;
        /** The file's size as the last step left it (the same on both sides, or the program has failed). */
        long size;

        FileProgram(long seed, Side[] sides) {
            this.r = new Random(seed);
            this.d = new Differential(seed);
            this.sides = sides;
        }

        void run() throws Exception {
            byte[] initial = random(r.nextInt(4) == 0 ? 0 : r.nextInt(100_000));
            byte[] peerInitial = random(r.nextInt(50_000));
            for (Side s : sides) {
                Files.write(s.main, initial);
                Files.write(s.peerPath, peerInitial);
                s.peer = s.open(s.peerPath, Set.of(READ, WRITE));
            }
            size = initial.length;
            reopen();
            for (int i = 0; i < STEPS; i++) {
                if (!sides[0].peer.isOpen() || !sides[1].peer.isOpen()) {
                    both(d, sides, "reopen peer", s -> {
                        closeQuietly(s.peer);
                        s.peer = s.open(s.peerPath, Set.of(READ, WRITE));
                        return s.peer.size();
                    });
                }
                int op = r.nextInt(100);
                if (op >= 90) {
                    Thread.Builder thread = r.nextBoolean() ? Thread.ofVirtual() : Thread.ofPlatform();
                    step(r.nextInt(88), thread);
                } else if (op >= 88 || !sides[0].ch.isOpen() && r.nextInt(3) == 0) {
                    reopen();
                } else {
                    step(op, null);
                }
                compareState();
                if (i % 30 == 29) {
                    compareContents();
                }
            }
            compareContents();
        }

        void reopen() throws Exception {
            Set<OpenOption> options = OPTIONS.get(r.nextInt(OPTIONS.size()));
            both(d, sides, "open " + options, s -> {
                closeQuietly(s.ch);
                s.locks.clear();
                try {
                    s.ch = s.open(s.main, options);
                } catch (IllegalArgumentException e) {
                    s.ch = s.open(s.main, Set.of(READ, WRITE));
                    throw e;
                }
                return s.ch.size();
            });
            size = sides[0].ch.size();
        }

        /** Op {@code op} (0..87) with random arguments, on both sides. */
        void step(int op, Thread.Builder interruptedOn) throws Exception {
            String prefix = interruptedOn == null ? "" : "interrupted " + (interruptedOn instanceof Thread.Builder.OfVirtual
                    ? "virtual " : "platform ");
            if (op < 12) {
                Buf b = buf(false);
                run(prefix + "read(" + b + ")", s -> {
                    ByteBuffer bb = b.make();
                    return s.ch.read(bb) + " " + state(bb);
                }, interruptedOn);
            } else if (op < 20) {
                Buf b = buf(false);
                long at = position();
                run(prefix + "read(" + b + ", " + at + ")", s -> {
                    ByteBuffer bb = b.make();
                    return s.ch.read(bb, at) + " " + state(bb);
                }, interruptedOn);
            } else if (op < 26) {
                Bufs b = bufs(false);
                run(prefix + "read(" + b + ")", s -> {
                    ByteBuffer[] bbs = b.make();
                    return s.ch.read(bbs, b.offset, b.length) + " " + state(bbs);
                }, interruptedOn);
            } else if (op < 38) {
                Buf b = buf(true);
                run(prefix + "write(" + b + ")", s -> {
                    ByteBuffer bb = b.make();
                    return s.ch.write(bb) + " " + state(bb);
                }, interruptedOn);
            } else if (op < 46) {
                Buf b = buf(true);
                long at = position();
                run(prefix + "write(" + b + ", " + at + ")", s -> {
                    ByteBuffer bb = b.make();
                    return s.ch.write(bb, at) + " " + state(bb);
                }, interruptedOn);
            } else if (op < 52) {
                Bufs b = bufs(true);
                run(prefix + "write(" + b + ")", s -> {
                    ByteBuffer[] bbs = b.make();
                    return s.ch.write(bbs, b.offset, b.length) + " " + state(bbs);
                }, interruptedOn);
            } else if (op < 56) {
                run(prefix + "position()", s -> s.ch.position(), interruptedOn);
            } else if (op < 62) {
                long to = position();
                run(prefix + "position(" + to + ")", s -> s.ch.position(to) == s.ch, interruptedOn);
            } else if (op < 64) {
                run(prefix + "size()", s -> s.ch.size(), interruptedOn);
            } else if (op < 68) {
                long to = r.nextInt(20) == 0 ? -1 : (long) (r.nextDouble() * (size + 1000));
                run(prefix + "truncate(" + to + ")", s -> s.ch.truncate(to) == s.ch, interruptedOn);
            } else if (op < 70) {
                boolean meta = r.nextBoolean();
                run(prefix + "force(" + meta + ")", s -> {
                    s.ch.force(meta);
                    return "done";
                }, interruptedOn);
            } else if (op < 74) {
                long at = position();
                long count = count();
                run(prefix + "transferTo(" + at + ", " + count + ", peer)", s -> s.ch.transferTo(at, count, s.peer),
                        interruptedOn);
            } else if (op < 78) {
                long at = position();
                long count = count();
                run(prefix + "transferFrom(peer, " + at + ", " + count + ")",
                        s -> s.ch.transferFrom(s.peer, at, count), interruptedOn);
            } else if (op < 80) {
                long to = r.nextInt(60_000);
                run(prefix + "peer.position(" + to + ")", s -> s.peer.position(to) == s.peer, interruptedOn);
            } else if (op < 85) {
                long at = r.nextInt(20) == 0 ? -1 : r.nextInt(3000);
                long length = r.nextInt(5) == 0 ? Long.MAX_VALUE - Math.max(at, 0) : r.nextInt(3000);
                boolean shared = r.nextBoolean();
                boolean tryLock = r.nextBoolean();
                run(prefix + (tryLock ? "tryLock(" : "lock(") + at + ", " + length + ", " + shared + ")", s -> {
                    FileLock lock = tryLock ? s.ch.tryLock(at, length, shared) : s.ch.lock(at, length, shared);
                    if (lock == null) {
                        return "null";
                    }
                    s.locks.add(lock);
                    return describe(s, lock);
                }, interruptedOn);
            } else if (op < 87) {
                int which = r.nextInt(4);
                run(prefix + "release lock " + which, s -> {
                    if (s.locks.isEmpty()) {
                        return "no lock";
                    }
                    FileLock lock = s.locks.get(which % s.locks.size());
                    lock.release();
                    return describe(s, lock);
                }, interruptedOn);
            } else {
                run(prefix + "close()", s -> {
                    s.ch.close();
                    return s.ch.isOpen();
                }, interruptedOn);
            }
        }

        void run(String what, Step step, Thread.Builder interruptedOn) throws Exception {
            both(d, sides, what, step, interruptedOn);
        }

        static String describe(Side s, FileLock lock) {
            return "lock " + lock.position() + "+" + lock.size() + (lock.isShared() ? " shared" : "")
                    + (lock.isValid() ? " valid" : " invalid") + (lock.channel() == s.ch ? "" : " OF ANOTHER CHANNEL");
        }

        /** Open, position, size, the peer's position and each lock's validity, after every step. */
        void compareState() throws Exception {
            both(d, sides, "  state", s -> {
                StringBuilder st = new StringBuilder();
                st.append(s.ch.isOpen() ? "open" : "closed");
                if (s.ch.isOpen()) {
                    st.append(" position ").append(outcome(s.ch::position)).append(" size ").append(outcome(s.ch::size));
                }
                st.append(" peer ").append(s.peer.isOpen() ? outcome(s.peer::position) : "closed");
                st.append(" locks");
                for (FileLock lock : s.locks) {
                    st.append(lock.isValid() ? " valid" : " invalid");
                }
                return st;
            });
            if (sides[0].ch.isOpen()) {
                size = sides[0].ch.size();
            }
        }

        void compareContents() throws Exception {
            both(d, sides, "  contents", s -> Files.size(s.main) + "#" + Arrays.hashCode(Files.readAllBytes(s.main))
                    + " peer " + Files.size(s.peerPath) + "#" + Arrays.hashCode(Files.readAllBytes(s.peerPath)));
        }

        /** A file position: mostly within or a little past the file, sometimes negative. */
        long position() {
            return switch (r.nextInt(20)) {
                case 0 -> -1;
                case 1 -> 0;
                case 2 -> size;
                case 3 -> size + r.nextInt(10_000);
                default -> (long) (r.nextDouble() * (size + 2000));
            };
        }

        long count() {
            return switch (r.nextInt(12)) {
                case 0 -> -1;
                case 1 -> 0;
                case 2 -> Long.MAX_VALUE;
                default -> r.nextInt(r.nextBoolean() ? 5000 : 150_000);
            };
        }

        int capacity() {
            return switch (r.nextInt(8)) {
                case 0 -> 0;
                case 1 -> 1;
                case 2 -> 1 + r.nextInt(64);
                case 3, 4 -> 1 + r.nextInt(4096);
                case 5, 6 -> 4096 + r.nextInt(70_000);
                default -> (int) Math.min(size + 1 + r.nextInt(1000), 300_000);
            };
        }

        Buf buf(boolean forWriting) {
            int cap = capacity();
            int pos = r.nextInt(4) == 0 ? r.nextInt(cap + 1) : 0;
            int lim = r.nextInt(4) == 0 ? pos + r.nextInt(cap - pos + 1) : cap;
            int kind = r.nextInt(forWriting ? 4 : 20) == 3 ? 3 : r.nextInt(3);     // read-only: 1 in 4 writes, 1 in 20 reads
            return new Buf(kind, cap, pos, lim, r.nextLong());
        }

        Bufs bufs(boolean forWriting) {
            int n = 1 + r.nextInt(5);
            Buf[] bs = new Buf[n];
            for (int i = 0; i < n; i++) {
                bs[i] = buf(forWriting);
            }
            int offset = r.nextInt(n);
            int length = r.nextInt(10) == 0 ? n - offset + 1 : r.nextInt(n - offset + 1);
            return new Bufs(bs, offset, length);
        }

        byte[] random(int length) {
            byte[] b = new byte[length];
            r.nextBytes(b);
            return b;
        }
    }

    /**
     * A buffer to make afresh on each side: kind 0 heap, 1 direct, 2 a heap slice at an array offset, 3 read-only
     * heap; filled with bytes from {@code fill}.
     */
    record Buf(int kind, int capacity, int position, int limit, long fill) {
        ByteBuffer make() {
            byte[] content = new byte[capacity];
            new Random(fill).nextBytes(content);
            ByteBuffer b = switch (kind) {
                case 1 -> ByteBuffer.allocateDirect(capacity).put(content).clear();
                case 2 -> {
                    byte[] larger = new byte[capacity + 7];
                    System.arraycopy(content, 0, larger, 7, capacity);
                    yield ByteBuffer.wrap(larger, 7, capacity).slice();
                }
                case 3 -> ByteBuffer.wrap(content).asReadOnlyBuffer();
                default -> ByteBuffer.wrap(content);
            };
            return b.limit(limit).position(position);
        }

        @Override
        public String toString() {
            return new String[] {"heap", "direct", "slice", "read-only"}[kind] + " " + position + "/" + limit + "/" + capacity;
        }
    }

    record Bufs(Buf[] bufs, int offset, int length) {
        ByteBuffer[] make() {
            return Arrays.stream(bufs).map(Buf::make).toArray(ByteBuffer[]::new);
        }

        @Override
        public String toString() {
            return Arrays.toString(bufs) + ", " + offset + ", " + length;
        }
    }

    // ---- the asynchronous channel ------------------------------------------------------------------------------

    /**
     * The same kind of program against the JDK's AsynchronousFileChannel and UringAsynchronousFileChannel:
     * positional reads and writes through futures and through completion handlers (compared on what they deliver,
     * the exception a future's get wraps included), size, truncate, force, locks and close.
     */
    @Test
    void randomProgramsOnAnAsynchronousChannel() throws Exception {
        for (long seed : Differential.seeds(8)) {
            Path root = dir.resolve("async-" + seed);
            AsyncSide[] sides = {new AsyncSide(true, root.resolve("jdk")), new AsyncSide(false, root.resolve("ours"))};
            try {
                new AsyncProgram(seed, sides).run();
            } finally {
                for (AsyncSide s : sides) {
                    if (s.ch != null) {
                        s.ch.close();
                    }
                }
            }
        }
    }

    private static final class AsyncSide {
        final boolean jdk;
        final Path file;
        java.nio.channels.AsynchronousFileChannel ch;
        final List<FileLock> locks = new ArrayList<>();

        AsyncSide(boolean jdk, Path dir) throws IOException {
            this.jdk = jdk;
            this.file = Files.createDirectories(dir).resolve("file");
        }

        void open(Set<OpenOption> options) throws IOException {
            ch = jdk ? java.nio.channels.AsynchronousFileChannel.open(file, options, null)
                    : UringAsynchronousFileChannel.open(uring, file, options, null);
        }
    }

    @FunctionalInterface
    private interface AsyncStep {
        Object run(AsyncSide s) throws Exception;
    }

    private static final class AsyncProgram {
        private static final List<Set<OpenOption>> ASYNC_OPTIONS = List.of(Set.of(READ, WRITE), Set.of(READ, WRITE),
                Set.of(READ), Set.of(WRITE), Set.of(READ, WRITE, DSYNC), Set.of(READ, APPEND));
        final Random r;
        final Differential d;
        final AsyncSide[] sides;
        /** A FileProgram for its argument choices (sizes, positions, buffers); its sides are not used. */
        final FileProgram args;

        AsyncProgram(long seed, AsyncSide[] sides) {
            this.r = new Random(seed);
            this.d = new Differential(seed);
            this.sides = sides;
            this.args = new FileProgram(seed ^ 0x5DEECE66DL, null);
        }

        void both(String what, AsyncStep step) {
            String[] out = new String[2];
            for (int i = 0; i < 2; i++) {
                AsyncSide s = sides[i];
                out[i] = outcome(() -> step.run(s));
            }
            d.same(what, out[0], out[1]);
        }

        void reopen() {
            Set<OpenOption> options = ASYNC_OPTIONS.get(r.nextInt(ASYNC_OPTIONS.size()));
            both("open " + options, s -> {
                if (s.ch != null) {
                    s.ch.close();
                }
                s.locks.clear();
                try {
                    s.open(options);
                } catch (IllegalArgumentException | UnsupportedOperationException e) {
                    s.open(Set.of(READ, WRITE));
                    throw e;
                }
                return s.ch.size();
            });
        }

        void run() throws Exception {
            byte[] initial = args.random(r.nextInt(100_000));
            for (AsyncSide s : sides) {
                Files.write(s.file, initial);
            }
            args.size = initial.length;
            reopen();
            for (int i = 0; i < STEPS; i++) {
                int op = r.nextInt(100);
                if (op < 20) {
                    Buf b = args.buf(false);
                    long at = args.position();
                    boolean handler = r.nextBoolean();
                    both((handler ? "read(" : "read future(") + b + ", " + at + ")", s -> {
                        ByteBuffer bb = b.make();
                        return await(s, handler, bb, at, true) + " " + state(bb);
                    });
                } else if (op < 45) {
                    Buf b = args.buf(true);
                    long at = args.position();
                    boolean handler = r.nextBoolean();
                    both((handler ? "write(" : "write future(") + b + ", " + at + ")", s -> {
                        ByteBuffer bb = b.make();
                        return await(s, handler, bb, at, false) + " " + state(bb);
                    });
                } else if (op < 52) {
                    both("size()", s -> s.ch.size());
                } else if (op < 60) {
                    long to = r.nextInt(20) == 0 ? -1 : (long) (r.nextDouble() * (args.size + 1000));
                    both("truncate(" + to + ")", s -> s.ch.truncate(to) == s.ch);
                } else if (op < 64) {
                    boolean meta = r.nextBoolean();
                    both("force(" + meta + ")", s -> {
                        s.ch.force(meta);
                        return "done";
                    });
                } else if (op < 80) {
                    long at = r.nextInt(20) == 0 ? -1 : r.nextInt(3000);
                    long length = r.nextInt(5) == 0 ? Long.MAX_VALUE - Math.max(at, 0) : r.nextInt(3000);
                    boolean shared = r.nextBoolean();
                    boolean tryLock = r.nextBoolean();
                    both((tryLock ? "tryLock(" : "lock(") + at + ", " + length + ", " + shared + ")", s -> {
                        FileLock lock = tryLock ? s.ch.tryLock(at, length, shared)
                                : s.ch.lock(at, length, shared).get(20, java.util.concurrent.TimeUnit.SECONDS);
                        if (lock == null) {
                            return "null";
                        }
                        s.locks.add(lock);
                        return "lock " + lock.position() + "+" + lock.size() + (lock.isShared() ? " shared" : "")
                                + (lock.acquiredBy() == s.ch ? "" : " OF ANOTHER CHANNEL");
                    });
                } else if (op < 86) {
                    int which = r.nextInt(4);
                    both("release lock " + which, s -> {
                        if (s.locks.isEmpty()) {
                            return "no lock";
                        }
                        FileLock lock = s.locks.get(which % s.locks.size());
                        lock.release();
                        return lock.isValid();
                    });
                } else if (op < 89) {
                    both("close()", s -> {
                        s.ch.close();
                        return s.ch.isOpen();
                    });
                } else {
                    reopen();
                }
                both("  state", s -> {
                    StringBuilder st = new StringBuilder(s.ch.isOpen() ? "open size " + outcome(s.ch::size) : "closed");
                    for (FileLock lock : s.locks) {
                        st.append(lock.isValid() ? " valid" : " invalid");
                    }
                    return st;
                });
                if (sides[0].ch.isOpen()) {
                    args.size = sides[0].ch.size();
                }
            }
            for (AsyncSide s : sides) {
                s.ch.close();
            }
            both("  contents", s -> Files.size(s.file) + "#" + Arrays.hashCode(Files.readAllBytes(s.file)));
        }

        /** A read or write through a future or a handler: its result, or the exception it failed with. */
        static Object await(AsyncSide s, boolean handler, ByteBuffer b, long at, boolean read) throws Exception {
            if (!handler) {
                var f = read ? s.ch.read(b, at) : s.ch.write(b, at);
                try {
                    return f.get(20, java.util.concurrent.TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw cause(e);
                }
            }
            java.util.concurrent.CompletableFuture<Integer> done = new java.util.concurrent.CompletableFuture<>();
            java.nio.channels.CompletionHandler<Integer, String> h = new java.nio.channels.CompletionHandler<>() {
                @Override
                public void completed(Integer result, String attachment) {
                    done.complete(result);
                }

                @Override
                public void failed(Throwable exc, String attachment) {
                    done.completeExceptionally(exc);
                }
            };
            if (read) {
                s.ch.read(b, at, "a", h);
            } else {
                s.ch.write(b, at, "a", h);
            }
            try {
                return done.get(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw cause(e);
            }
        }

        /** What failed the operation (a future's get wraps it): compared as the caller of either API sees it. */
        static Exception cause(java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                return x;
            }
            throw (Error) e.getCause();
        }
    }

    // ---- a FIFO: reads that block, and what ends them ----------------------------------------------------------

    /**
     * On a FIFO a read with nothing written blocks for sure. The program writes and reads through the channel
     * (and writes from outside, through a holder that keeps the pipe alive across reopens), tracks what the pipe
     * holds, and when it is empty starts a read on another thread and, once it is blocked, interrupts that thread,
     * closes the channel, or writes: the outcome, the reader's interrupt status and the channel's state afterwards
     * must match. The JDK's FileChannel cannot wake a virtual thread blocked in read(2), so its reader is a
     * platform thread; ours is either.
     */
    @Test
    void randomProgramsOnAFifo() throws Throwable {
        for (long seed : Differential.seeds(6)) {
            Path root = dir.resolve("fifo-" + seed);
            Side[] sides = {new Side(true, root.resolve("jdk")), new Side(false, root.resolve("ours"))};
            FileChannel[] holders = new FileChannel[2];
            try {
                for (int i = 0; i < 2; i++) {
                    mkfifo(sides[i].main);
                    holders[i] = FileChannel.open(sides[i].main, READ, WRITE);
                }
                new FifoProgram(seed, sides, holders).run();
            } finally {
                for (int i = 0; i < 2; i++) {
                    closeQuietly(sides[i].ch);
                    closeQuietly(holders[i]);
                }
            }
        }
    }

    private static final class FifoProgram {
        final Random r;
        final Differential d;
        final Side[] sides;
        final FileChannel[] holders;
        /** Bytes in the pipe, written and not yet read. */
        int pending;

        FifoProgram(long seed, Side[] sides, FileChannel[] holders) {
            this.r = new Random(seed);
            this.d = new Differential(seed);
            this.sides = sides;
            this.holders = holders;
        }

        void run() throws Exception {
            both(d, sides, "open", s -> (s.ch = s.open(s.main, Set.of(READ, WRITE))).size());
            for (int i = 0; i < FIFO_STEPS; i++) {
                if (!sides[0].ch.isOpen()) {
                    both(d, sides, "reopen", s -> (s.ch = s.open(s.main, Set.of(READ, WRITE))).isOpen());
                }
                int op = r.nextInt(20);
                if (op < 4 && pending < 50_000) {
                    int n = r.nextInt(4097);
                    byte[] data = random(n);
                    boolean direct = r.nextBoolean();
                    both(d, sides, "write " + n + (direct ? " direct" : " heap"), s -> s.ch.write(buffer(data, direct)));
                    pending += n;
                } else if (op < 6 && pending < 50_000) {
                    int n = 1 + r.nextInt(4096);
                    byte[] data = random(n);
                    feed(data);
                    pending += n;
                } else if (op < 10 && pending > 0) {
                    int k = r.nextInt(6000);
                    boolean scatter = r.nextBoolean();
                    both(d, sides, "read " + k + (scatter ? " scattering" : ""), s -> read(s.ch, k, scatter));
                    pending -= Math.min(k, pending);
                } else if (op < 14) {
                    blockedRead();
                } else if (op < 16) {
                    int k = r.nextInt(100);
                    Thread.Builder thread = r.nextBoolean() ? Thread.ofVirtual() : Thread.ofPlatform();
                    both(d, sides, "interrupted read " + k, s -> read(s.ch, k, false), thread);
                } else {
                    long at = r.nextInt(3) - 1;
                    String[] names = {"read(_, " + at + ")", "write(_, " + at + ")", "position()", "position(" + at + ")",
                            "size()", "truncate(" + at + ")", "force(true)", "transferTo(" + at + ", 10, holder)"};
                    int which = r.nextInt(names.length);
                    both(d, sides, names[which], s -> switch (which) {
                        case 0 -> s.ch.read(ByteBuffer.allocate(8), at);
                        case 1 -> s.ch.write(ByteBuffer.allocate(8), at);
                        case 2 -> s.ch.position();
                        case 3 -> s.ch.position(at) == s.ch;
                        case 4 -> s.ch.size();
                        case 5 -> s.ch.truncate(at) == s.ch;
                        case 6 -> {
                            s.ch.force(true);
                            yield "done";
                        }
                        default -> {
                            try (FileChannel sink = FileChannel.open(s.dir.resolve("sink"), WRITE, CREATE)) {
                                yield s.ch.transferTo(at, 10, sink);
                            }
                        }
                    });
                }
                both(d, sides, "  state", s -> s.ch.isOpen() + " pending " + pending);
            }
            // What is left in the pipe, through the holders: what the channels left unread (nothing lost or stolen).
            byte[][] left = new byte[2][];
            for (int i = 0; i < 2; i++) {
                ByteBuffer b = ByteBuffer.allocate(pending);
                while (b.hasRemaining()) {
                    holders[i].read(b);
                }
                left[i] = b.array();
            }
            d.same("left in the pipe", Arrays.toString(left[0]), Arrays.toString(left[1]));
        }

        /**
         * A read into an empty pipe on another thread (platform for the JDK's channel, either for ours); once it
         * blocks, an interrupt, a close, or bytes from the holder end it.
         */
        void blockedRead() throws Exception {
            if (pending > 0) {
                both(d, sides, "drain " + pending, s -> read(s.ch, pending, false));
                pending = 0;
            }
            int k = 1 + r.nextInt(5000);
            boolean scatter = r.nextBoolean();
            boolean virtual = r.nextBoolean();
            int action = r.nextInt(3);
            byte[] data = random(1 + r.nextInt(4096));
            String[] actions = {"interrupt", "close", "write " + data.length};
            String[] out = new String[2];
            for (int i = 0; i < 2; i++) {
                Side s = sides[i];
                AtomicReference<String> result = new AtomicReference<>();
                Runnable body = () -> {
                    String o = outcome(() -> read(s.ch, k, scatter));
                    result.set(o + " (interrupted: " + Thread.currentThread().isInterrupted() + ")");
                };
                Thread reader = (!s.jdk && virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(body);
                awaitBlocked(reader);
                switch (action) {
                    case 0 -> reader.interrupt();
                    case 1 -> s.ch.close();
                    default -> holders[i].write(ByteBuffer.wrap(data));
                }
                reader.join();
                out[i] = result.get() + " open " + s.ch.isOpen();
            }
            d.same("blocked read " + k + (scatter ? " scattering" : "") + (virtual ? " (ours virtual)" : "")
                    + ", then " + actions[action], out[0], out[1]);
            if (action == 2) {
                pending = data.length - Math.min(k, data.length);
            }
        }

        void feed(byte[] data) throws IOException {
            for (FileChannel holder : holders) {
                holder.write(ByteBuffer.wrap(data));
            }
        }

        byte[] random(int length) {
            byte[] b = new byte[length];
            r.nextBytes(b);
            return b;
        }
    }

    /** A read of up to {@code k} bytes into a heap buffer, or scattering into a heap and a direct one. */
    private static String read(FileChannel ch, int k, boolean scatter) throws IOException {
        if (scatter) {
            ByteBuffer[] bs = {ByteBuffer.allocate(k / 2), ByteBuffer.allocateDirect(k - k / 2)};
            return ch.read(bs) + " " + state(bs);
        }
        ByteBuffer b = ByteBuffer.allocate(k);
        return ch.read(b) + " " + state(b);
    }

    private static ByteBuffer buffer(byte[] data, boolean direct) {
        return direct ? ByteBuffer.allocateDirect(data.length).put(data).flip() : ByteBuffer.wrap(data);
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing at the end of a program: what matters was compared already
            }
        }
    }
}
