package io.uring4j.serve;

import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./uring4j serve echo|http [--port P] [--threads N] [--style loop|vthread]}: an echo server or an
 * HTTP/1.1 plaintext server (keep-alive and pipelining; any request gets {@code 200 "Hello, World!"}; request
 * framing and refusals as {@link HttpRequests} says; idle connections closed after {@code --idle-timeout-ms}), on
 * io_uring in either style, on 127.0.0.1 unless {@code --host} says otherwise. Ctrl-C (or SIGTERM) closes the
 * listeners, the connections and the runtime, in that order.
 * Exit status: 2 bad options, 1 the server could not start (one line: the operation and its errno).
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve echo or HTTP/1.1 plaintext on io_uring.")
public final class Serve implements Callable<Integer> {
    /** Completions a batched sleep waits for: half the default wrk load's connections. */
    private static final int BATCH = 32;

    enum Protocol { echo, http }

    enum Style { loop, vthread }

    @Parameters(index = "0", description = "echo or http")
    Protocol protocol;

    /** Event loops beyond a few per CPU only compete for the CPUs, and each costs a ring and its buffers. */
    public static final int MAX_THREADS = 4 * Runtime.getRuntime().availableProcessors();

    /** A day: a timeout beyond it is a mistake (or a wish for none, which a public server should not have). */
    static final long MAX_IDLE_TIMEOUT_MILLIS = 86_400_000;

    @Option(names = "--port", defaultValue = "8080", description = "TCP port, 0 for any free one (default ${DEFAULT-VALUE})")
    int port;

    // A demo server is reachable from this machine only unless asked otherwise (0.0.0.0: every interface).
    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to bind (default ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--threads", defaultValue = "1",
            description = "event loops, at most 4 per CPU (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--reuse-port", description = "share the port with other servers (SO_REUSEPORT): the kernel"
            + " spreads connections over them; without it a port in use is refused")
    boolean reusePort;

    @Spec
    CommandSpec spec;

    @Option(names = "--batch-wait-us", defaultValue = "50", paramLabel = "MICROS",
            description = "under load a loop sleeps until " + BATCH + " completions are ready or this long has"
                    + " passed: fewer wake-ups paid by the peers' CPUs, at most this much added latency;"
                    + " 0: wake for each completion (default ${DEFAULT-VALUE})")
    int batchWaitMicros;

    @Option(names = "--idle-timeout-ms", defaultValue = "30000", paramLabel = "MILLIS",
            description = "http: a connection is closed when no request has come whole for this long since its"
                    + " last response (or its open): idle keep-alive connections, and slow or stalled headers"
                    + " and bodies (default ${DEFAULT-VALUE})")
    long idleTimeoutMillis;

    @Option(names = "--style", defaultValue = "loop",
            description = "loop: handlers on the event loops; vthread: a virtual thread per connection (default ${DEFAULT-VALUE})")
    Style style;

    public static void main(String[] args) {
        System.exit(run(args, System.err));
    }

    /** Parses {@code args} and serves until stopped; returns the exit status (errors go to {@code err}). */
    static int run(String[] args, PrintStream err) {
        CommandLine cl = new CommandLine(new Serve()).setCaseInsensitiveEnumValuesAllowed(true);
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            err.println("uring4j serve: " + describe(e));
            return 1;
        });
        return cl.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        InetSocketAddress address = validate();
        // The vthread style parks a read per connection, each one request slot: room for a million per loop, made
        // only as connections come (the fd limit is the real bound). The loop style's receives take none.
        Uring uring = Uring.builder().loops(threads).maxInFlight(1 << 20)
                .batchWait(batchWaitMicros > 0 ? BATCH : 1, Duration.ofNanos(batchWaitMicros * 1000L)).build();
        boolean http = protocol == Protocol.http;
        Duration idleTimeout = Duration.ofMillis(idleTimeoutMillis);
        Server server;
        try {
            server = style == Style.loop ? new LoopStyle(uring, address, http, idleTimeout, reusePort)
                    : new ThreadStyle(uring, address, http, idleTimeout, reusePort);
            selfCheck(server.address(), http);
        } catch (IOException | RuntimeException e) {
            uring.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (int i = 0; i < uring.loopCount(); i++) {
                var st = uring.loop(i).stats();
                System.err.printf("uring4j serve: loop %d: %d requests, %d completions, %d enters (%.1f SQEs each),"
                        + " %d batch waits%n", i, st.submitted(), st.completed(), st.enters(), st.sqesPerEnter(),
                        st.batchWaits());
            }
            try {
                server.close();
            } catch (Exception e) {
                System.err.println("uring4j serve: close: " + e);
            }
            uring.close();
            stopped.countDown();
        }));
        InetSocketAddress bound = server.address();
        System.out.printf("uring4j serve %s on %s:%d, %d loop(s), %s style; Ctrl-C to stop%n",
                protocol, bound.getHostString(), bound.getPort(), threads, style);
        stopped.await();
        return 0;
    }

    /**
     * One exchange with the server itself before it says it listens, ended by a half-close so that the server's
     * own close runs too. Besides checking the server answers, this loads every class the serving path needs while
     * descriptors are plentiful: from a class path of directories each class load opens a file, and a path first
     * taken once descriptors have run out — a connection's close — would fail, and leak the connection.
     */
    private static void selfCheck(InetSocketAddress bound, boolean http) throws IOException {
        InetAddress address = bound.getAddress().isAnyLocalAddress()
                ? (bound.getAddress() instanceof Inet6Address ? InetAddress.getByName("::1")
                        : InetAddress.getByName("127.0.0.1"))
                : bound.getAddress();
        byte[] request = http ? "GET /plaintext HTTP/1.1\r\nHost: self-check\r\n\r\n".getBytes(StandardCharsets.US_ASCII)
                : new byte[] {'?'};
        try (Socket s = new Socket(address, bound.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request);
            s.shutdownOutput();
            byte[] answer = s.getInputStream().readAllBytes();       // to the end: the server has closed its side
            if (answer.length == 0) {
                throw new IOException("self-check: the server closed without answering");
            }
        }
    }

    /** The options' ranges and the host's address, before any work: exit status 2 when one is wrong. */
    private InetSocketAddress validate() {
        String bad = "";
        if (port < 0 || port > 65535) {
            bad += "--port must be 0..65535 (0: any free port), not " + port + "; ";
        }
        if (threads < 1 || threads > MAX_THREADS) {
            bad += "--threads must be 1.." + MAX_THREADS + " (4 per CPU: more event loops only compete for the CPUs),"
                    + " not " + threads + "; ";
        }
        if (batchWaitMicros < 0) {
            bad += "--batch-wait-us must be 0 (off) or a positive number of microseconds, not " + batchWaitMicros + "; ";
        }
        if (idleTimeoutMillis < 1 || idleTimeoutMillis > MAX_IDLE_TIMEOUT_MILLIS) {
            bad += "--idle-timeout-ms must be 1.." + MAX_IDLE_TIMEOUT_MILLIS + " (a day), not " + idleTimeoutMillis + "; ";
        }
        InetAddress address = null;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            bad += "--host " + host + " does not resolve (" + e.getMessage() + "); ";
        }
        if (!bad.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), bad.substring(0, bad.length() - 2));
        }
        return new InetSocketAddress(address, port);
    }

    /** One line for a failure: the operation and its errno, and what to do for the usual ones. */
    static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ErrnoException x) {
                return x.getMessage() + switch (x.errno()) {
                    case Errno.EADDRINUSE -> " — another server listens there (--reuse-port shares the port)";
                    case Errno.EACCES -> " — ports below 1024 need root or CAP_NET_BIND_SERVICE";
                    case Errno.EADDRNOTAVAIL -> " — --host must be an address of this machine";
                    default -> "";
                };
            }
        }
        return e.toString();
    }
}
