package io.uring4j.net;

import io.uring4j.fs.Differential;
import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.fs.Differential.outcome;
import static io.uring4j.fs.Differential.state;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random programs run against the JDK's SocketChannel and UringSocketChannel, each connected over
 * loopback to a JDK peer (the channel under test is the connecting side or the accepted one, from a JDK or a
 * uring4j server channel): writes, reads, shutdowns, options, addresses, close, calls on an interrupted thread,
 * reads blocked until another thread interrupts, closes, shuts the input down or the peer writes, closes or
 * resets; every outcome — return value, buffer state, exception class and message, interrupt status, channel
 * state — must match. See {@link Differential} for replaying a seed.
 *
 * <p>What TCP leaves to timing is settled before each step, from the kernel's own account
 * ({@code /proc/net/tcp6}): the bytes the peer wrote are all in the channel's receive queue before a read (so
 * its count is exact), and a FIN or RST from the peer has arrived before the next call.
 */
@BothEngines
class SocketChannelDifferentialTest {
    private static final int STEPS = 70;
    /** What the peer may have written and the channel not read yet: well within any receive buffer we set. */
    private static final int MAX_PENDING = 16 * 1024;
    private static final long HANG_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    @UringRuntime(loops = 2)
    private static Uring uring;

    private enum Peer { OPEN, CLOSED, RESET }

    /** One implementation's connection: the channel under test and its JDK peer (non-blocking, so it never hangs). */
    private static final class Side {
        final boolean jdk;
        SocketChannel ch;
        SocketChannel peer;
        /** Whether the channel under test is the connecting end (else the accepted one). */
        boolean client;
        int serverPort;
        int clientPort;
        /** What the last write wrote: a write after the peer's FIN draws a RST only if it sent something. */
        long lastWritten;
        /** Bytes the peer wrote that the channel has not read. */
        int pending;
        Peer peerState = Peer.OPEN;
        boolean peerOutputShut;
        boolean inputShut;
        boolean outputShut;
        /**
         * The buffer sizes set on this connection: the kernel tunes the others as traffic goes (the two sides'
         * differ by timing), so for those only "some" is compared.
         */
        final java.util.Set<SocketOption<?>> sizesSet = new java.util.HashSet<>();

        Side(boolean jdk) {
            this.jdk = jdk;
        }

        void connect(boolean client) throws IOException {
            closeAll();
            this.client = client;
            if (client) {
                try (ServerSocketChannel server = ServerSocketChannel.open().bind(LOOPBACK)) {
                    ch = jdk ? SocketChannel.open() : UringSocketChannel.open(uring);
                    ch.connect(server.getLocalAddress());
                    peer = server.accept();
                }
            } else {
                try (ServerSocketChannel server = (jdk ? ServerSocketChannel.open() : UringServerSocketChannel.open(uring))
                        .bind(LOOPBACK)) {
                    peer = SocketChannel.open(server.getLocalAddress());
                    ch = server.accept();
                }
            }
            serverPort = ((InetSocketAddress) (client ? peer : ch).getLocalAddress()).getPort();
            clientPort = ((InetSocketAddress) (client ? ch : peer).getLocalAddress()).getPort();
            peer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            peer.configureBlocking(false);
            pending = 0;
            peerState = Peer.OPEN;
            peerOutputShut = inputShut = outputShut = false;
            sizesSet.clear();
        }

        void closeAll() throws IOException {
            for (SocketChannel c : new SocketChannel[] {ch, peer}) {
                if (c != null) {
                    c.close();
                }
            }
        }

        /** An endpoint with its port named by role, since the two sides' ports differ. */
        String endpoint(SocketAddress a) {
            if (!(a instanceof InetSocketAddress inet)) {
                return String.valueOf(a);
            }
            String role = inet.getPort() == serverPort ? "server" : inet.getPort() == clientPort ? "client" : "other";
            return inet.getAddress().getClass().getSimpleName() + " " + inet.toString()
                    .replace(":" + inet.getPort(), ":" + role);
        }

        /** Writes all of {@code data} from the peer. */
        void peerWrite(byte[] data) throws IOException, InterruptedException {
            ByteBuffer b = ByteBuffer.wrap(data);
            long deadline = System.nanoTime() + HANG_NANOS;
            while (b.hasRemaining()) {
                if (peer.write(b) == 0) {
                    assertThat(System.nanoTime() - deadline).as("peer write stuck").isNegative();
                    Thread.sleep(1);
                }
            }
        }

        /**
         * Reads at the peer until {@code done} says the channel's writer has finished and {@code expected()}
         * bytes arrived; what it read.
         */
        byte[] peerRead(Thread writer, AtomicLong written) throws IOException, InterruptedException {
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            ByteBuffer b = ByteBuffer.allocate(64 * 1024);
            long deadline = System.nanoTime() + HANG_NANOS;
            while (writer.isAlive() || got.size() < written.get()) {
                int n = peer.read(b.clear());
                if (n > 0) {
                    got.write(b.array(), 0, n);
                } else if (n < 0) {
                    break;
                } else {
                    assertThat(System.nanoTime() - deadline).as("peer read stuck").isNegative();
                    Thread.sleep(1);
                }
            }
            return got.toByteArray();
        }

        /** The peer's read once the channel's output is shut down: end of stream. */
        String peerReadsEnd() throws IOException, InterruptedException {
            ByteBuffer b = ByteBuffer.allocate(16);
            long deadline = System.nanoTime() + HANG_NANOS;
            int n;
            while ((n = peer.read(b)) == 0) {
                assertThat(System.nanoTime() - deadline).as("peer never saw the end").isNegative();
                Thread.sleep(1);
            }
            return "peer read " + n;
        }

        /**
         * Waits until the kernel's state is what the model says: the peer's bytes are all in the channel's receive
         * queue, and a peer's FIN or RST has arrived.
         */
        void settle() throws IOException, InterruptedException {
            if (!ch.isOpen() || inputShut && peerState == Peer.OPEN) {
                return;
            }
            long deadline = System.nanoTime() + HANG_NANOS;
            String seen;
            while (!settled(seen = TcpTable.entry(clientPort, serverPort, client))) {
                assertThat(System.nanoTime() - deadline).as("socket never settled at %s (%s), table: %s", pending, peerState,
                        seen).isNegative();
                Thread.sleep(1);
            }
        }

        private boolean settled(String entry) {
            return switch (peerState) {
                // Both ends shut their output: the socket left the table for TIME_WAIT, its queue readable as it was.
                case OPEN -> entry == null ? outputShut && peerOutputShut : TcpTable.receiveQueue(entry) == pending;
                // The FIN takes a sequence number, counted in the queue until a read has seen it.
                case CLOSED -> entry == null || !TcpTable.established(entry)
                        && TcpTable.receiveQueue(entry) - pending >= 0 && TcpTable.receiveQueue(entry) - pending <= 1;
                case RESET -> entry == null;
            };
        }
    }

    /** The kernel's TCP table: this connection's line, its state and its receive queue. */
    private static final class TcpTable {
        private static final Path TCP6 = Path.of("/proc/net/tcp6");

        /** The line of the socket with these ports (the client's or the server's end), or null if none (closed). */
        static String entry(int clientPort, int serverPort, boolean clientEnd) throws IOException {
            String local = String.format(":%04X", clientEnd ? clientPort : serverPort);
            String remote = String.format(":%04X", clientEnd ? serverPort : clientPort);
            for (String line : Files.readAllLines(TCP6)) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 4 && f[1].endsWith(local) && f[2].endsWith(remote) && !f[3].equals("06")) {
                    return line;
                }
            }
            return null;
        }

        static int receiveQueue(String entry) {
            String queues = entry.trim().split("\\s+")[4];
            return Integer.parseInt(queues.substring(queues.indexOf(':') + 1), 16);
        }

        static boolean established(String entry) {
            return entry.trim().split("\\s+")[3].equals("01");
        }
    }

    @FunctionalInterface
    private interface Step {
        Object run(Side s) throws Exception;
    }

    @Test
    void randomProgramsOnAConnection() throws Exception {
        for (long seed : Differential.seeds(6)) {
            Side[] sides = {new Side(true), new Side(false)};
            try {
                new Program(seed, sides).run();
            } finally {
                for (Side s : sides) {
                    s.closeAll();
                }
            }
        }
    }

    private static final class Program {
        final Random r;
        final Differential d;
        final Side[] sides;
        final long seed;

        Program(long seed, Side[] sides) {
            this.seed = seed;
            this.r = new Random(seed);
            this.d = new Differential(seed);
            this.sides = sides;
        }

        void run() throws Exception {
            connect();
            for (int i = 0; i < STEPS; i++) {
                Side s0 = sides[0];
                if ((!s0.ch.isOpen() || s0.peerState != Peer.OPEN) && r.nextInt(3) == 0) {
                    connect();
                }
                for (Side s : sides) {
                    try {
                        s.settle();
                    } catch (AssertionError e) {
                        throw new AssertionError("seed " + seed + ", before step " + i + ": " + e.getMessage(), e);
                    }
                }
                int op = r.nextInt(100);
                Thread.Builder interruptedOn = null;
                if (op >= 90) {
                    interruptedOn = r.nextBoolean() ? Thread.ofVirtual() : Thread.ofPlatform();
                    op = r.nextInt(80);
                }
                step(op, interruptedOn);
                both("  state", s -> (s.ch.isOpen() ? "open" : "closed") + " connected " + s.ch.isConnected()
                        + " pending " + s.pending + " peer " + s.peerState, null);
            }
        }

        void connect() throws Exception {
            boolean client = r.nextBoolean();
            both(client ? "connect" : "accept", s -> {
                s.connect(client);
                return s.endpoint(s.ch.getLocalAddress()) + " -> " + s.endpoint(s.ch.getRemoteAddress());
            }, null);
        }

        void step(int op, Thread.Builder interruptedOn) throws Exception {
            Side s0 = sides[0];
            boolean open = s0.ch.isOpen();
            if (op < 15) {
                write(interruptedOn);
            } else if (op < 30 && (s0.pending > 0 || s0.inputShut || s0.peerOutputShut || s0.peerState != Peer.OPEN
                    || !open)) {
                read(interruptedOn);
            } else if (op < 40 && open && s0.peerState == Peer.OPEN && !s0.peerOutputShut && s0.pending < MAX_PENDING
                    && interruptedOn == null) {
                byte[] data = random(1 + r.nextInt(MAX_PENDING - s0.pending));
                both("peer writes " + data.length, s -> {
                    s.peerWrite(data);
                    s.pending += data.length;
                    return "done";
                }, null);
            } else if (op < 50 && open && s0.peerState == Peer.OPEN && !s0.peerOutputShut && !s0.inputShut
                    && interruptedOn == null) {
                blockedRead();
            } else if (op < 54) {
                run("shutdownInput()", s -> {
                    s.ch.shutdownInput();
                    s.inputShut = true;
                    return "done";
                }, interruptedOn);
            } else if (op < 58) {
                run("shutdownOutput()", s -> {
                    s.ch.shutdownOutput();
                    s.outputShut = true;
                    return "done";
                }, interruptedOn);
                if (s0.outputShut && s0.peerState == Peer.OPEN) {
                    both("peer reads", Side::peerReadsEnd, null);
                }
            } else if (op < 70) {
                option(interruptedOn);
            } else if (op < 76) {
                run("addresses", s -> s.endpoint(s.ch.getLocalAddress()) + " -> " + s.endpoint(s.ch.getRemoteAddress())
                        + " connected " + s.ch.isConnected() + " pending " + s.ch.isConnectionPending()
                        + " blocking " + s.ch.isBlocking(), interruptedOn);
            } else if (op < 80 && s0.peerState == Peer.OPEN && interruptedOn == null) {
                boolean reset = r.nextBoolean();
                drain();
                both(reset ? "peer resets" : "peer closes", s -> {
                    if (reset) {
                        s.peer.setOption(StandardSocketOptions.SO_LINGER, 0);
                    }
                    s.peer.close();
                    s.peerState = reset ? Peer.RESET : Peer.CLOSED;
                    return "done";
                }, null);
            } else if (op < 80 || op < 84) {
                run("close()", s -> {
                    s.ch.close();
                    return s.ch.isOpen();
                }, interruptedOn);
            }
        }

        /** A write of random buffers while the peer reads it all (a write that fits nowhere blocks otherwise). */
        void write(Thread.Builder interruptedOn) throws Exception {
            int n = r.nextInt(4) == 0 ? 1 + r.nextInt(4) : 0;
            Buf[] bufs = new Buf[Math.max(n, 1)];
            Side s0 = sides[0];
            // After the peer's FIN a write is sent whole before the RST it draws comes back, if it is small.
            int max = s0.peerState == Peer.CLOSED ? 1000 / bufs.length : r.nextInt(3) == 0 ? 200_000 : 5000;
            for (int i = 0; i < bufs.length; i++) {
                bufs[i] = buf(max);
            }
            boolean gathering = n > 0;
            // An interrupted write closes the channel at once (a RST if it had unread bytes): reading at the peer
            // meanwhile would see that or not by timing; nothing is written, so nothing needs reading.
            // So does a closed channel, not reading, refuse to write; the peer may have seen a RST from its close.
            boolean peerReads = s0.peerState == Peer.OPEN && interruptedOn == null && s0.ch.isOpen();
            String what = (interruptedOn == null ? "" : "interrupted ") + "write" + (gathering ? " gathering " : " ")
                    + Arrays.toString(bufs);
            both(what, s -> {
                ByteBuffer[] bbs = Arrays.stream(bufs).map(Buf::make).toArray(ByteBuffer[]::new);
                AtomicLong written = new AtomicLong();
                AtomicReference<String> result = new AtomicReference<>();
                Callable<Object> call = () -> {
                    s.lastWritten = 0;
                    long w = gathering ? s.ch.write(bbs) : s.ch.write(bbs[0]);
                    written.set(w);
                    s.lastWritten = w;
                    return w + " " + state(bbs);
                };
                Runnable body = () -> {
                    if (interruptedOn != null) {
                        Thread.currentThread().interrupt();
                    }
                    result.set(outcome(call) + (interruptedOn != null ? " (interrupted: "
                            + Thread.currentThread().isInterrupted() + ")" : ""));
                };
                // A platform thread: the JDK's channel returns short writes on virtual threads when the socket buffer
                // fills (its socket is non-blocking then), which is timing; on a platform thread it writes all.
                Thread writer = (interruptedOn != null ? interruptedOn : Thread.ofPlatform()).start(body);
                String received = "";
                if (peerReads) {
                    byte[] got = s.peerRead(writer, written);
                    received = " peer got " + got.length + "#" + Integer.toHexString(Arrays.hashCode(got));
                }
                if (!writer.join(java.time.Duration.ofNanos(HANG_NANOS))) {
                    return "still blocked";
                }
                return result.get() + received;
            }, null);
            for (Side s : sides) {
                if (s.peerState == Peer.CLOSED && s.lastWritten > 0) {
                    s.peerState = Peer.RESET;      // data after a FIN draws a RST; settle waits for it
                }
            }
        }

        void read(Thread.Builder interruptedOn) throws Exception {
            Side s0 = sides[0];
            int k = switch (r.nextInt(4)) {
                case 0 -> 0;
                case 1 -> 1 + r.nextInt(Math.max(s0.pending, 1));
                default -> 1 + r.nextInt(s0.pending + 2000);
            };
            boolean scatter = r.nextInt(3) == 0;
            boolean direct = r.nextBoolean();
            boolean readOnly = r.nextInt(20) == 0;
            run("read " + k + (scatter ? " scattering" : direct ? " direct" : " heap") + (readOnly ? " read-only" : ""), s -> {
                String o;
                if (scatter) {
                    ByteBuffer[] bs = {ByteBuffer.allocate(k / 3), ByteBuffer.allocate(0), ByteBuffer.allocateDirect(k - k / 3)};
                    if (readOnly) {
                        bs[0] = bs[0].asReadOnlyBuffer();
                    }
                    long n = s.ch.read(bs);
                    s.pending -= (int) Math.max(n, 0);
                    o = n + " " + state(bs);
                } else {
                    ByteBuffer b = direct ? ByteBuffer.allocateDirect(k) : ByteBuffer.allocate(k);
                    if (readOnly) {
                        b = b.asReadOnlyBuffer();
                    }
                    int n = s.ch.read(b);
                    s.pending -= Math.max(n, 0);
                    o = n + " " + state(b);
                }
                if (s.peerState == Peer.RESET) {
                    s.pending = 0;      // a reset drops what was queued
                }
                return o;
            }, interruptedOn);
        }

        /** Reads what the peer wrote, so that a read now would block. */
        void drain() throws Exception {
            if (sides[0].pending > 0 && sides[0].ch.isOpen() && !sides[0].inputShut) {
                both("drain", s -> {
                    ByteBuffer b = ByteBuffer.allocate(s.pending);
                    int n = s.ch.read(b);
                    s.pending -= n;
                    return n + " " + state(b);
                }, null);
            }
        }

        /**
         * A read with nothing to read, on another thread; once it blocks, an interrupt, a close, a shutdownInput,
         * or the peer's write, shutdownOutput, close or reset ends it.
         */
        void blockedRead() throws Exception {
            drain();
            int k = 1 + r.nextInt(5000);
            boolean virtual = r.nextBoolean();
            boolean scatter = r.nextInt(3) == 0;
            int action = r.nextInt(7);
            byte[] data = random(1 + r.nextInt(4096));
            String[] actions = {"interrupt", "close", "shutdownInput", "peer writes " + data.length,
                    "peer shuts output", "peer closes", "peer resets"};
            both("blocked read " + k + (scatter ? " scattering" : "") + (virtual ? " on virtual" : " on platform")
                    + ", then " + actions[action], s -> {
                AtomicReference<String> result = new AtomicReference<>();
                Thread reader = (virtual ? Thread.ofVirtual() : Thread.ofPlatform()).start(() -> {
                    String o = outcome(() -> {
                        if (scatter) {
                            ByteBuffer[] bs = {ByteBuffer.allocate(k / 2), ByteBuffer.allocateDirect(k - k / 2)};
                            return s.ch.read(bs) + " " + state(bs);
                        }
                        ByteBuffer b = ByteBuffer.allocate(k);
                        return s.ch.read(b) + " " + state(b);
                    });
                    result.set(o + " (interrupted: " + Thread.currentThread().isInterrupted() + ")");
                });
                awaitBlocked(reader);
                switch (action) {
                    case 0 -> reader.interrupt();
                    case 1 -> s.ch.close();
                    case 2 -> {
                        s.ch.shutdownInput();
                        s.inputShut = true;
                    }
                    case 3 -> {
                        s.peerWrite(data);
                        s.pending = data.length - Math.min(k, data.length);
                    }
                    case 4 -> {
                        s.peer.shutdownOutput();
                        s.peerOutputShut = true;
                    }
                    default -> {
                        if (action == 6) {
                            s.peer.setOption(StandardSocketOptions.SO_LINGER, 0);
                        }
                        s.peer.close();
                        s.peerState = action == 6 ? Peer.RESET : Peer.CLOSED;
                    }
                }
                reader.join(TimeUnit.NANOSECONDS.toMillis(HANG_NANOS));
                return (reader.isAlive() ? "still blocked" : result.get()) + " open " + s.ch.isOpen();
            }, null);
        }

        void option(Thread.Builder interruptedOn) throws Exception {
            List<SocketOption<?>> names = List.of(StandardSocketOptions.TCP_NODELAY, StandardSocketOptions.SO_KEEPALIVE,
                    StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_REUSEADDR,
                    StandardSocketOptions.SO_REUSEPORT, StandardSocketOptions.SO_LINGER);
            @SuppressWarnings("unchecked")
            SocketOption<Object> name = (SocketOption<Object>) names.get(r.nextInt(names.size()));
            Object value = switch (name.name()) {
                case "SO_SNDBUF" -> pick(-1, 0, 4096, 65_536, 1 << 20);
                // Not smaller: the peer's bytes must fit in the receive queue for reads to have exact counts.
                case "SO_RCVBUF" -> pick(-1, 65_536, 1 << 20);
                case "SO_LINGER" -> pick(-2, -1, 0, 3, 70_000);
                default -> r.nextBoolean();
            };
            boolean set = r.nextBoolean();
            boolean nullValue = set && r.nextInt(10) == 0;
            run((set ? "setOption(" + name + ", " + (nullValue ? null : value) + ")" : "getOption(" + name + ")"), s -> {
                if (set) {
                    s.ch.setOption(name, nullValue ? null : value);
                    s.sizesSet.add(name);
                }
                Object got = s.ch.getOption(name);
                boolean tuned = (name.name().equals("SO_SNDBUF") || name.name().equals("SO_RCVBUF"))
                        && !s.sizesSet.contains(name);
                return tuned && (Integer) got > 0 ? "some (tuned by the kernel)" : got;
            }, interruptedOn);
        }

        Object pick(Object... values) {
            return values[r.nextInt(values.length)];
        }

        void run(String what, Step step, Thread.Builder interruptedOn) throws InterruptedException {
            both((interruptedOn == null ? "" : interruptedOn instanceof Thread.Builder.OfVirtual
                    ? "interrupted virtual " : "interrupted platform ") + what, step, interruptedOn);
        }

        void both(String what, Step step, Thread.Builder interruptedOn) throws InterruptedException {
            String[] out = new String[2];
            for (int i = 0; i < 2; i++) {
                Side s = sides[i];
                Callable<Object> call = () -> step.run(s);
                out[i] = interruptedOn == null ? outcome(call)
                        : Differential.onThread(interruptedOn instanceof Thread.Builder.OfVirtual, true, call);
            }
            d.same(what, out[0], out[1]);
        }

        Buf buf(int max) {
            int cap = r.nextInt(6) == 0 ? 0 : 1 + r.nextInt(max);
            int pos = r.nextInt(4) == 0 ? r.nextInt(cap + 1) : 0;
            return new Buf(r.nextInt(3), cap, pos, r.nextLong());
        }

        byte[] random(int length) {
            byte[] b = new byte[length];
            r.nextBytes(b);
            return b;
        }
    }

    /** A buffer to make afresh on each side: kind 0 heap, 1 direct, 2 read-only heap. */
    record Buf(int kind, int capacity, int position, long fill) {
        ByteBuffer make() {
            byte[] content = new byte[capacity];
            new Random(fill).nextBytes(content);
            ByteBuffer b = switch (kind) {
                case 1 -> ByteBuffer.allocateDirect(capacity).put(content).clear();
                case 2 -> ByteBuffer.wrap(content).asReadOnlyBuffer();
                default -> ByteBuffer.wrap(content);
            };
            return b.position(position);
        }

        @Override
        public String toString() {
            return new String[] {"heap", "direct", "read-only"}[kind] + " " + position + "/" + capacity;
        }
    }

    /**
     * Waits until {@code thread} is blocked in a read: parked in a uring4j blocking call or read wait, or in the
     * JDK's poller, or in a native read or poll (a platform thread on the JDK's channel). A state, not a duration.
     */
    static void awaitBlocked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + HANG_NANOS;
        while (!blocked(thread)) {
            assertThat(System.nanoTime() - deadline).as("thread never blocked: " + thread.getState()).isNegative();
            assertThat(thread.isAlive()).as("thread ended before blocking").isTrue();
            Thread.sleep(1);
        }
    }

    private static boolean blocked(Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        return switch (thread.getState()) {
            case WAITING, TIMED_WAITING -> Arrays.stream(stack).anyMatch(f ->
                    f.getClassName().equals("io.uring4j.runtime.BlockingCall")
                            || f.getClassName().equals("io.uring4j.net.ReadWait")
                            || f.getClassName().startsWith("sun.nio.ch."));
            // The JDK's channels' native calls only: a thread loading a class reads its jar natively too.
            case RUNNABLE -> stack.length > 0 && stack[0].isNativeMethod()
                    && stack[0].getClassName().startsWith("sun.nio.ch.")
                    && (stack[0].getMethodName().contains("read") || stack[0].getMethodName().contains("poll"));
            default -> false;
        };
    }
}
