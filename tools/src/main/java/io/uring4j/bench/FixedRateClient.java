package io.uring4j.bench;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The load of {@code bench http --rate}: one thread offering a fixed number of HTTP/1.1 requests per second, spread
 * in turn over its connections, whatever the server answers (an open loop, as wrk2 offers). A request whose turn
 * comes while its connection still waits for earlier answers is pipelined behind them. Each latency runs from the
 * request's scheduled time, not from when it was written, so a server that stalls is charged for every request it
 * delayed (no coordinated omission). The first second is warm-up for this JVM and is not recorded.
 *
 * <p>Runs in a JVM of its own (on wrk's CPUs under {@code --pin}) and prints one summary line that
 * {@link FixedRate#parse} reads. It waits by spinning on {@code selectNow} when the next request is due within a
 * millisecond, so it keeps its CPU busy at high rates; that CPU is not the server's.
 */
public final class FixedRateClient {
    static final String SUMMARY = "uring4j-fixed-rate";
    private static final long WARMUP_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long HIGHEST_MICROS = TimeUnit.SECONDS.toMicros(60);

    private final Connection[] connections;
    private final Selector selector;
    private final Histogram latencies = new Histogram(HIGHEST_MICROS, 3);
    private long completed;
    private long errors;

    private FixedRateClient(int port, int count) throws IOException {
        selector = Selector.open();
        byte[] request = ("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        connections = new Connection[count];
        for (int i = 0; i < count; i++) {
            SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.configureBlocking(false);
            connections[i] = new Connection(channel, request);
            connections[i].key = channel.register(selector, SelectionKey.OP_READ, connections[i]);
        }
    }

    /** {@code port connections rate seconds}: offers the load for one second of warm-up plus {@code seconds}. */
    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        int connections = Integer.parseInt(args[1]);
        double rate = Double.parseDouble(args[2]);
        int seconds = Integer.parseInt(args[3]);
        FixedRateClient client = new FixedRateClient(port, connections);
        long measured = client.offer(rate, seconds);
        Histogram h = client.latencies;
        System.out.printf(Locale.ROOT, "%s requests=%d measured=%d rate=%.1f mean=%.1f p50=%d p99=%d p99.9=%d max=%d"
                        + " errors=%d%n", SUMMARY, client.completed, measured, measured / (double) seconds,
                h.getMean(), h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getValueAtPercentile(99.9),
                h.getMaxValue(), client.errors);
    }

    /** Offers {@code rate} requests a second until the run ends; returns the answers to measured requests. */
    private long offer(double rate, int seconds) throws IOException {
        long start = System.nanoTime();
        long measureFrom = start + WARMUP_NANOS;
        long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
        long sent = 0;
        long measured = 0;
        while (true) {
            long now = System.nanoTime();
            if (now >= end) {
                break;
            }
            long due;
            while ((due = start + (long) (sent * 1e9 / rate)) <= now) {
                connections[(int) (sent % connections.length)].send(due);
                sent++;
            }
            if (due - now > TimeUnit.MILLISECONDS.toNanos(1)) {
                selector.select(1);
            } else {
                selector.selectNow();
            }
            long answered = System.nanoTime();
            for (SelectionKey key : selector.selectedKeys()) {
                Connection c = (Connection) key.attachment();
                if (key.isValid() && key.isWritable()) {
                    c.flush();
                }
                if (key.isValid() && key.isReadable()) {
                    measured += c.receive(answered, measureFrom);
                }
            }
            selector.selectedKeys().clear();
        }
        for (Connection c : connections) {
            c.channel.close();
        }
        return measured;
    }

    /** One connection: the requests it still has to write, and the scheduled times of those not yet answered. */
    private final class Connection {
        final SocketChannel channel;
        final byte[] request;
        final ByteBuffer out = ByteBuffer.allocateDirect(1 << 16);
        final ByteBuffer in = ByteBuffer.allocateDirect(1 << 16);
        final ResponseParser parser = new ResponseParser();
        SelectionKey key;
        long[] scheduled = new long[64];
        int head;
        int size;
        boolean failed;

        Connection(SocketChannel channel, byte[] request) {
            this.channel = channel;
            this.request = request;
            out.flip();
        }

        void send(long due) throws IOException {
            if (failed) {
                errors++;
                return;
            }
            if (size == scheduled.length) {
                long[] grown = new long[size * 2];
                for (int i = 0; i < size; i++) {
                    grown[i] = scheduled[(head + i) % size];
                }
                scheduled = grown;
                head = 0;
            }
            scheduled[(head + size++) % scheduled.length] = due;
            out.compact();
            if (out.remaining() < request.length) {
                out.flip();
                fail();                      // 64 KiB of requests unwritten: the server stopped reading
                return;
            }
            out.put(request).flip();
            flush();
        }

        void flush() throws IOException {
            try {
                channel.write(out);
            } catch (IOException e) {
                fail();
                return;
            }
            key.interestOps(out.hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        }

        /** Reads what arrived; records each complete answer; returns how many of them were measured. */
        int receive(long now, long measureFrom) {
            int n;
            try {
                n = channel.read(in);
            } catch (IOException e) {
                n = -1;
            }
            if (n < 0) {
                fail();
                return 0;
            }
            in.flip();
            int measured = 0;
            int status;
            while ((status = parser.next(in)) != 0) {
                if (size == 0) {
                    errors++;                // an answer to no request
                    continue;
                }
                long due = scheduled[head];
                head = (head + 1) % scheduled.length;
                size--;
                completed++;
                if (status / 100 != 2) {
                    errors++;
                }
                if (due >= measureFrom) {
                    latencies.recordValue(Math.min(HIGHEST_MICROS, (now - due) / 1000));
                    measured++;
                }
            }
            in.compact();
            return measured;
        }

        private void fail() {
            if (!failed) {
                failed = true;
                errors += size;
                size = 0;
                key.cancel();
            }
        }
    }

    /**
     * Finds HTTP/1.1 answers in a byte stream: a status line, headers up to the empty line, and a body of
     * Content-Length bytes (the servers measured answer so; chunked bodies are not read).
     */
    static final class ResponseParser {
        private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);
        private final byte[] head = new byte[8192];
        private int headLength;
        private long bodyLeft = -1;
        private int status;

        /** Consumes bytes of {@code in} up to the end of the next complete answer; its status, or 0 if none yet. */
        int next(ByteBuffer in) {
            while (in.hasRemaining()) {
                if (bodyLeft >= 0) {
                    int skip = (int) Math.min(bodyLeft, in.remaining());
                    in.position(in.position() + skip);
                    bodyLeft -= skip;
                    if (bodyLeft == 0) {
                        bodyLeft = -1;
                        return status;
                    }
                    continue;
                }
                byte b = in.get();
                if (headLength == head.length) {
                    throw new IllegalStateException("an answer's head longer than " + head.length + " bytes");
                }
                head[headLength++] = b;
                if (b == '\n' && headLength >= 4 && head[headLength - 2] == '\r' && head[headLength - 3] == '\n') {
                    status = parseStatus();
                    bodyLeft = contentLength();
                    headLength = 0;
                    if (bodyLeft == 0) {
                        bodyLeft = -1;
                        return status;
                    }
                }
            }
            return 0;
        }

        private int parseStatus() {
            // "HTTP/1.1 200 OK": the three digits after the first space
            int space = 0;
            while (space < headLength && head[space] != ' ') {
                space++;
            }
            return (head[space + 1] - '0') * 100 + (head[space + 2] - '0') * 10 + (head[space + 3] - '0');
        }

        /** The Content-Length header's value (its name in any case), or 0 without one. */
        private long contentLength() {
            for (int line = 0; line < headLength; ) {
                int end = line;
                while (end < headLength && head[end] != '\n') {
                    end++;
                }
                if (named(line, end)) {
                    long value = 0;
                    for (int i = line + CONTENT_LENGTH.length; i < end; i++) {
                        if (head[i] >= '0' && head[i] <= '9') {
                            value = value * 10 + head[i] - '0';
                        }
                    }
                    return value;
                }
                line = end + 1;
            }
            return 0;
        }

        private boolean named(int from, int to) {
            if (to - from < CONTENT_LENGTH.length) {
                return false;
            }
            for (int i = 0; i < CONTENT_LENGTH.length; i++) {
                byte b = head[from + i];
                if ((b >= 'A' && b <= 'Z' ? b + 32 : b) != CONTENT_LENGTH[i]) {
                    return false;
                }
            }
            return true;
        }
    }
}
