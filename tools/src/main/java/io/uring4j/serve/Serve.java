package io.uring4j.serve;

import io.uring4j.runtime.Uring;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code ./uring4j serve echo|http [--port P] [--threads N] [--style loop|vthread]}: an echo server or an
 * HTTP/1.1 plaintext server (keep-alive and pipelining; any request gets {@code 200 "Hello, World!"}), on
 * io_uring in either style. Ctrl-C closes the listeners, the connections and the runtime, in that order.
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

    @Option(names = "--port", defaultValue = "8080", description = "TCP port (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--host", defaultValue = "0.0.0.0", description = "address to bind (default ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--threads", defaultValue = "1", description = "event loops (default ${DEFAULT-VALUE})")
    int threads;

    @Spec
    CommandSpec spec;

    @Option(names = "--batch-wait-us", defaultValue = "50", paramLabel = "MICROS",
            description = "under load a loop sleeps until " + BATCH + " completions are ready or this long has"
                    + " passed: fewer wake-ups paid by the peers' CPUs, at most this much added latency;"
                    + " 0: wake for each completion (default ${DEFAULT-VALUE})")
    int batchWaitMicros;

    @Option(names = "--style", defaultValue = "loop",
            description = "loop: handlers on the event loops; vthread: a virtual thread per connection (default ${DEFAULT-VALUE})")
    Style style;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Serve()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (batchWaitMicros < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--batch-wait-us must be 0 (off) or a positive number of microseconds: " + batchWaitMicros);
        }
        // Each connection holds a request slot for its receive (and one while sending): room for ~8k per loop.
        Uring uring = Uring.builder().loops(threads).maxInFlight(16_384)
                .batchWait(batchWaitMicros > 0 ? BATCH : 1, Duration.ofNanos(batchWaitMicros * 1000L)).build();
        InetSocketAddress address = new InetSocketAddress(host, port);
        boolean http = protocol == Protocol.http;
        AutoCloseable server;
        InetSocketAddress bound;
        if (style == Style.loop) {
            LoopStyle s = new LoopStyle(uring, address, http);
            server = s;
            bound = s.address();
        } else {
            ThreadStyle s = new ThreadStyle(uring, address, http);
            server = s;
            bound = s.address();
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
        System.out.printf("uring4j serve %s on %s:%d, %d loop(s), %s style; Ctrl-C to stop%n",
                protocol, bound.getHostString(), bound.getPort(), threads, style);
        stopped.await();
        return 0;
    }
}
