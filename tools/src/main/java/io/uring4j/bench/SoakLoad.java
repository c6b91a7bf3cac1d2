package io.uring4j.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The soak's load, from plain JDK sockets on virtual threads (nothing of uring4j on the client side): keep-alive
 * connections sending one request after another as fast as they are answered, and connection churn — a given
 * number of connects spread evenly over the run, each one request and a close: every other one asks the server
 * to close ({@code Connection: close}), the rest close from the client side after their answer, and every tenth
 * is HTTP/1.0. Errors (a refused connect, a reset, a 30 s silence, a wrong answer) are counted, not thrown.
 */
final class SoakLoad implements AutoCloseable {
    /** Connects at once at most: each churn worker has one connection open at a time. */
    static final int CHURN_WORKERS = 4;
    private static final int TIMEOUT_MILLIS = 30_000;

    private final InetSocketAddress server;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong tickets = new AtomicLong();
    private volatile boolean stopped;
    final AtomicLong requests = new AtomicLong();
    final AtomicLong connects = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    /** The first error, for the report. */
    volatile String firstError;

    /** Starts {@code keepAlive} connections and {@code churn} connects spread over {@code nanos}. */
    SoakLoad(InetSocketAddress server, int keepAlive, long churn, long nanos) {
        this.server = server;
        long start = System.nanoTime();
        for (int i = 0; i < keepAlive; i++) {
            threads.add(Thread.ofVirtual().name("soak-keep-alive-" + i).start(this::keepAlive));
        }
        for (int i = 0; i < CHURN_WORKERS && churn > 0; i++) {
            threads.add(Thread.ofVirtual().name("soak-churn-" + i).start(() -> churn(start, churn, nanos)));
        }
    }

    private void keepAlive() {
        byte[] get = "GET /plaintext HTTP/1.1\r\nHost: soak\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        while (!stopped) {
            try (Socket s = connect()) {
                OutputStream out = s.getOutputStream();
                InputStream in = new BufferedInputStream(s.getInputStream());
                while (!stopped) {
                    out.write(get);
                    readResponse(in);
                    requests.incrementAndGet();
                }
            } catch (IOException e) {
                failed(e);
            }
        }
    }

    /** Takes the next connect's ticket, waits for its time, and makes it; until all {@code total} are made. */
    private void churn(long start, long total, long nanos) {
        for (long t; !stopped && (t = tickets.getAndIncrement()) < total; ) {
            long due = start + (long) ((double) nanos * t / total);
            while (!stopped && System.nanoTime() < due) {
                LockSupport.parkNanos(due - System.nanoTime());
            }
            boolean serverCloses = t % 2 == 0;
            String request = "GET /plaintext HTTP/1." + (t % 10 == 9 ? "0" : "1") + "\r\nHost: soak\r\n"
                    + (serverCloses ? "Connection: close\r\n" : t % 10 == 9 ? "Connection: keep-alive\r\n" : "")
                    + "\r\n";
            try (Socket s = connect()) {
                connects.incrementAndGet();
                s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
                InputStream in = new BufferedInputStream(s.getInputStream());
                readResponse(in);
                requests.incrementAndGet();
                if (serverCloses && in.read() != -1) {
                    throw new IOException("no end of stream after the response to Connection: close");
                }
            } catch (IOException e) {
                failed(e);
            }
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        try {
            s.connect(server, TIMEOUT_MILLIS);
            s.setSoTimeout(TIMEOUT_MILLIS);
            s.setTcpNoDelay(true);
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** Reads one response: its status line must say 200, its body is Content-Length bytes. */
    private static void readResponse(InputStream in) throws IOException {
        String status = line(in);
        if (!status.startsWith("HTTP/1.1 200 ")) {
            throw new IOException("not a 200 response: " + status);
        }
        int length = -1;
        for (String l; !(l = line(in)).isEmpty(); ) {
            if (l.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                length = Integer.parseInt(l.substring(15).strip());
            }
        }
        if (length < 0) {
            throw new IOException("a response without Content-Length");
        }
        in.skipNBytes(length);
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new IOException("end of stream in a response" + (b.isEmpty() ? "" : ": " + b));
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    private void failed(IOException e) {
        if (stopped) {
            return;                             // the load's own close
        }
        errors.incrementAndGet();
        if (firstError == null) {
            firstError = e.toString();
        }
        LockSupport.parkNanos(10_000_000);      // a server in trouble is not hammered by retries
    }

    /** Stops the load and waits for its threads (their sockets time out at worst). */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        for (Thread t : threads) {
            t.join();
        }
    }
}
