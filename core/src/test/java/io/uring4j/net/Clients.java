package io.uring4j.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/** JDK-socket clients for the server tests: independent of the code under test. */
final class Clients {
    /** The integrity test, for each server style: this many connections at once ... */
    static final int INTEGRITY_CONNECTIONS = 100;
    /** ... each echoing this many random bytes. */
    static final long INTEGRITY_BYTES = 10L << 20;
    private Clients() {
    }

    static byte[] random(long seed, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /**
     * The integrity check: {@code connections} clients at once, each echoing {@code size} random bytes
     * (its own seed) through {@code server} in chunks of {@code chunk}; every byte must come back in order. Fails
     * if the whole run takes longer than {@code limitSeconds}.
     */
    static void echoConcurrently(InetSocketAddress server, int connections, long size, int chunk, long limitSeconds)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limitSeconds);
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                long seed = i;
                done.add(clients.submit(() -> {
                    echoAndCheck(server, seed, size, chunk);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * Sends {@code size} random bytes (seeded) from one virtual thread in chunks of {@code chunk} while this
     * thread reads the echo and compares it with the same stream, regenerated: nothing is held whole.
     */
    static void echoAndCheck(InetSocketAddress server, long seed, long size, int chunk) throws Exception {
        try (SocketChannel ch = SocketChannel.open(server)) {
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    RandomStream out = new RandomStream(seed, size, chunk);
                    for (int n; (n = out.next()) > 0; ) {
                        writeFully(ch, ByteBuffer.wrap(out.piece, 0, n));
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            checkEcho(ch, new RandomStream(seed, size, chunk), size);
            writer.join();
        }
    }

    private static void checkEcho(SocketChannel ch, RandomStream expected, long size) throws IOException {
        ByteBuffer in = ByteBuffer.allocate(64 << 10);
        int have = 0;
        int at = 0;
        for (long got = 0; got < size; ) {
            in.clear();
            int r = ch.read(in);
            if (r < 0) {
                fail("EOF after " + got + " of " + size + " bytes");
            }
            for (int i = 0; i < r; ) {
                if (at == have) {
                    have = expected.next();
                    at = 0;
                }
                int k = Math.min(r - i, have - at);
                int bad = Arrays.mismatch(in.array(), i, i + k, expected.piece, at, at + k);
                if (bad >= 0) {
                    fail("first differing byte at offset " + (got + i + bad) + " of " + size);
                }
                i += k;
                at += k;
            }
            got += r;
        }
    }

    /** A seeded random byte stream, produced a piece at a time, the same way at both ends. */
    private static final class RandomStream {
        final byte[] piece;
        private final SplittableRandom random;
        private long left;

        RandomStream(long seed, long size, int chunk) {
            random = new SplittableRandom(seed);
            piece = new byte[chunk];
            left = size;
        }

        /** Fills {@link #piece} with the next bytes; returns how many count (0 at the end). */
        int next() {
            int n = (int) Math.min(piece.length, left);
            random.nextBytes(piece);
            left -= n;
            return n;
        }
    }

    /** A blocking channel's write may return early on a virtual thread: loop until all is written. */
    static int writeFully(SocketChannel ch, ByteBuffer buf) throws IOException {
        int n = buf.remaining();
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
        return n;
    }

    static byte[] readFully(SocketChannel ch, int n) throws IOException {
        ByteBuffer in = ByteBuffer.allocate(n);
        while (in.hasRemaining()) {
            if (ch.read(in) < 0) {
                throw new IOException("EOF after " + in.position() + " of " + n + " bytes");
            }
        }
        return in.array();
    }
}
