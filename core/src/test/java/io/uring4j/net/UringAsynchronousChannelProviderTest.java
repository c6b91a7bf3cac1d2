package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.OpenFds;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousChannelGroup;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.spi.AsynchronousChannelProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.uring4j.net.AsyncKit.get;
import static io.uring4j.net.AsyncKit.named;
import static io.uring4j.testkit.Await.awaitCondition;
import static io.uring4j.testkit.Patterns.pattern;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What only uring4j's provider promises: resources back at baseline, and installation by the JDK's flag. */
@BothEngines
class UringAsynchronousChannelProviderTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    @UringRuntime(loops = 2)
    private static Uring uring;

    /**
     * 2,000 connections opened, used (heap and direct buffers, a timed read) and closed, 100 at a time: the process's
     * fds and uring4j's native memory come back to where they were, and the staging memory (GC-managed) is freed.
     */
    @Test
    void twoThousandChannelsLeaveFdsAndMemoryAsTheyWere() throws Exception {
        AsynchronousChannelProvider provider = new UringAsynchronousChannelProvider(uring);
        cycle(provider, 1);         // warm-up: classes, pools, what an engine sets up on first use
        OpenFds fds = OpenFds.snapshot();
        long nativeBytes = Uring.nativeBytesInUse();
        long direct = directBytes();
        cycle(provider, 20);
        fds.assertNoneOpenedSince();
        assertThat(Uring.nativeBytesInUse()).isEqualTo(nativeBytes);
        awaitCondition(() -> {
            System.gc();
            return directBytes() <= direct + (1 << 20);
        });
    }

    /** A group with an echo server, {@code rounds} rounds of 100 connections, and the group shut down. */
    private static void cycle(AsynchronousChannelProvider provider, int rounds) throws Exception {
        AsynchronousChannelGroup group = provider.openAsynchronousChannelGroup(
                Executors.newCachedThreadPool(named("leak-")), 0);
        try (AsynchronousServerSocketChannel server = provider.openAsynchronousServerSocketChannel(group).bind(LOOPBACK)) {
            AsyncKit.echoServer(server, false);
            rounds(provider, group, server, rounds);
        } finally {
            group.shutdownNow();        // closes the server's ends too, if any is still open
            assertThat(group.awaitTermination(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * A server's idle connections each keep a read in flight, so a runtime for servers must hold more requests than
     * a CQ's worth (the builder's default, 1,024 a loop): on the shared runtime — the default group's — a server with
     * more idle connections than that still accepts and serves the next one.
     */
    @Test
    void theDefaultGroupServesMoreIdleConnectionsThanACqHolds() throws Exception {
        AsynchronousChannelProvider provider = new UringAsynchronousChannelProvider();
        int idle = Uring.shared().loopCount() * 1024 + 64;
        assumeTrue(2L * idle + 1000 < openFileLimit(), "needs " + 2 * idle + " fds");
        List<AsynchronousSocketChannel> clients = new ArrayList<>();
        try (AsynchronousServerSocketChannel server = provider.openAsynchronousServerSocketChannel(null)
                .bind(LOOPBACK, idle)) {
            AsyncKit.echoServer(server, false);
            for (int i = 0; i <= idle; i++) {
                AsynchronousSocketChannel ch = provider.openAsynchronousSocketChannel(null);
                clients.add(ch);
                get(ch.connect(server.getLocalAddress()));
            }
            assertThat(get(AsyncKit.roundTrip(clients.getLast(), pattern(10, 1000), false))).isEqualTo(pattern(10, 1000));
        } finally {
            for (AsynchronousSocketChannel ch : clients) {
                ch.close();
            }
        }
    }

    private static long openFileLimit() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/limits")).stream().filter(l -> l.startsWith("Max open files"))
                .mapToLong(l -> Long.parseLong(l.substring(26).trim().split("\\s+")[0])).findFirst().orElse(0);
    }

    /**
     * A cancelled accept future leaves the ACCEPT in the kernel (an accept cannot be taken back once it may have
     * taken a connection): the connection it takes then is closed, not leaked — the client reads end of stream.
     */
    @Test
    void aConnectionAcceptedAfterTheFutureWasCancelledIsClosed() throws Exception {
        AsynchronousChannelProvider provider = new UringAsynchronousChannelProvider(uring);
        try (AsynchronousServerSocketChannel server = provider.openAsynchronousServerSocketChannel(null).bind(LOOPBACK);
             AsynchronousSocketChannel client = provider.openAsynchronousSocketChannel(null)) {
            assertThat(server.accept().cancel(false)).isTrue();
            get(client.connect(server.getLocalAddress()));
            assertThat(get(client.read(ByteBuffer.allocate(1)))).isEqualTo(-1);
        }
    }

    /**
     * The default group runs handlers on a cached pool of daemon platform threads, as the JDK's (one of them polls
     * the group's ring), or on the threads of the factory the JDK's property names.
     */
    @Test
    void theDefaultGroupsThreads() throws Exception {
        Thread handler = defaultGroupHandlerThread(new UringAsynchronousChannelProvider(uring));
        assertThat(handler.isVirtual()).isFalse();
        assertThat(handler.isDaemon()).isTrue();
        assertThat(handler.getName()).startsWith("uring4j-async-handler-");
        System.setProperty("java.nio.channels.DefaultThreadPool.threadFactory", NamedFactory.class.getName());
        try {
            assertThat(defaultGroupHandlerThread(new UringAsynchronousChannelProvider(uring)).getName())
                    .startsWith("named-by-property-");
        } finally {
            System.clearProperty("java.nio.channels.DefaultThreadPool.threadFactory");
        }
    }

    /** The thread that runs a handler for a read of a closed channel in the default group. */
    private static Thread defaultGroupHandlerThread(AsynchronousChannelProvider provider) throws Exception {
        AsynchronousSocketChannel ch = provider.openAsynchronousSocketChannel(null);
        ch.close();
        AsyncKit.Recorder<Integer> read = new AsyncKit.Recorder<>();
        ch.read(ByteBuffer.allocate(1), 0, TimeUnit.SECONDS, null, read);
        read.failure();
        return read.thread;
    }

    /** A factory the property names (loaded by the system class loader, made with its no-arg constructor). */
    public static final class NamedFactory implements java.util.concurrent.ThreadFactory {
        private final java.util.concurrent.ThreadFactory names = named("named-by-property-");

        @Override
        public Thread newThread(Runnable r) {
            return names.newThread(r);
        }
    }

    private static void rounds(AsynchronousChannelProvider provider, AsynchronousChannelGroup group,
                               AsynchronousServerSocketChannel server, int rounds) throws Exception {
        for (int r = 0; r < rounds; r++) {
            List<AsynchronousSocketChannel> channels = new ArrayList<>();
            List<CompletableFuture<byte[]>> echoes = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                AsynchronousSocketChannel ch = provider.openAsynchronousSocketChannel(group);
                channels.add(ch);
                get(ch.connect(server.getLocalAddress()));
                echoes.add(AsyncKit.roundTrip(ch, pattern(i, 2000), i % 2 == 0));
            }
            for (int i = 0; i < 100; i++) {
                assertThat(get(echoes.get(i))).isEqualTo(pattern(i, 2000));
                AsyncKit.Recorder<Integer> timed = new AsyncKit.Recorder<>();
                channels.get(i).read(ByteBuffer.allocate(10), 1, TimeUnit.MILLISECONDS, null, timed);
                timed.failure();
                channels.get(i).close();
            }
        }
    }

    private static long directBytes() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).mapToLong(BufferPoolMXBean::getMemoryUsed).sum();
    }

    /**
     * A JVM started with {@code -Djava.nio.channels.spi.AsynchronousChannelProvider} (nothing else) has ours as the
     * system-wide provider, and plain {@code AsynchronousSocketChannel} code runs on it.
     */
    @Test
    void theFlagInstallsTheProvider() throws Exception {
        String classPath = location(UringAsynchronousChannelProvider.class) + File.pathSeparator + location(FlagProbe.class);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Djava.nio.channels.spi.AsynchronousChannelProvider=" + UringAsynchronousChannelProvider.class.getName()));
        String engine = System.getProperty("uring4j.engine");
        if (engine != null) {
            command.add("-During4j.engine=" + engine);
        }
        command.addAll(List.of("-cp", classPath, FlagProbe.class.getName()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(out).isZero();
        assertThat(out).contains("provider " + UringAsynchronousChannelProvider.class.getName(),
                "echoed ping on " + UringAsynchronousSocketChannel.class.getSimpleName());
    }

    private static String location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    /** The child JVM's part: plain JDK asynchronous channel code, no uring4j in sight. */
    static final class FlagProbe {
        public static void main(String[] args) throws Exception {
            System.out.println("provider " + AsynchronousChannelProvider.provider().getClass().getName());
            try (AsynchronousServerSocketChannel server = AsynchronousServerSocketChannel.open()
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                 AsynchronousSocketChannel client = AsynchronousSocketChannel.open()) {
                Future<AsynchronousSocketChannel> accepting = server.accept();
                client.connect(server.getLocalAddress()).get(30, TimeUnit.SECONDS);
                try (AsynchronousSocketChannel accepted = accepting.get(30, TimeUnit.SECONDS)) {
                    client.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.US_ASCII))).get(30, TimeUnit.SECONDS);
                    ByteBuffer in = ByteBuffer.allocate(4);
                    while (in.hasRemaining()) {
                        accepted.read(in).get(30, TimeUnit.SECONDS);
                    }
                    accepted.write(in.flip()).get(30, TimeUnit.SECONDS);
                    ByteBuffer back = ByteBuffer.allocate(4);
                    while (back.hasRemaining()) {
                        client.read(back).get(30, TimeUnit.SECONDS);
                    }
                    System.out.println("echoed " + new String(back.array(), StandardCharsets.US_ASCII) + " on "
                            + client.getClass().getSimpleName());
                }
            }
        }
    }
}
