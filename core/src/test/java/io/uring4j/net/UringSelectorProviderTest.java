package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.ChildJvm;
import io.uring4j.testkit.OpenFds;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.uring4j.testkit.Await.awaitCondition;
import static io.uring4j.testkit.Await.someoneBlockedOn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The provider as a whole: installed by the flag, refusing what it lacks by name, and leaving nothing behind. */
@BothEngines
class UringSelectorProviderTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private final SelectorProvider provider = new UringSelectorProvider();

    @Test
    void twoThousandChannelsOpenedRegisteredAndClosedLeaveNoFdsNorNativeMemoryBehind() throws Exception {
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(LOOPBACK)) {
            warmUp(server);
            OpenFds fds = OpenFds.snapshot();
            long memory = NativeMemory.inUse();
            try (Selector selector = provider.openSelector()) {
                for (int batch = 0; batch < 10; batch++) {
                    List<SocketChannel> open = new ArrayList<>();
                    for (int i = 0; i < 100; i++) {
                        SocketChannel c = provider.openSocketChannel();
                        c.connect(server.getLocalAddress());
                        SocketChannel s = server.accept();
                        s.configureBlocking(false);
                        c.configureBlocking(false);
                        s.register(selector, SelectionKey.OP_READ);
                        c.register(selector, i % 2 == 0 ? SelectionKey.OP_WRITE : 0);
                        open.add(c);
                        open.add(s);
                    }
                    selector.selectNow();
                    for (int i = 0; i < open.size(); i++) {
                        if (i % 4 == 0) {
                            open.get(i).keyFor(selector).cancel();      // some deregistered before the close
                            selector.selectNow();
                        }
                        open.get(i).close();
                    }
                    selector.selectNow();
                    assertThat(selector.keys()).isEmpty();
                }
            }
            fds.awaitNoneOpenedSince();
            assertThat(NativeMemory.inUse()).isEqualTo(memory);
        }
    }

    /**
     * A registration that passed the selector's open check as the selector closed, and was then refused: its key,
     * which the close never saw, must not keep holding the channel's fd (which its close then never closed).
     */
    @Test
    void aRegistrationRefusedByAClosingSelectorLeavesNoFdBehind() throws Exception {
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(LOOPBACK);
             SocketChannel c = provider.openSocketChannel()) {
            c.connect(server.getLocalAddress());
            UringSocketChannel s = (UringSocketChannel) server.accept();
            s.configureBlocking(false);
            Selector selector = provider.openSelector();
            CompletableFuture<SelectionKey> registering;
            synchronized (s.link()) {           // the registration waits in SelectorLink.hold, past the open check
                registering = CompletableFuture.supplyAsync(() -> {
                    try {
                        return s.register(selector, SelectionKey.OP_READ);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                awaitCondition(() -> someoneBlockedOn(s.link()));
                selector.close();
            }
            assertThatThrownBy(() -> registering.get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClosedSelectorException.class);
            s.close();
            assertThat(s.link().held()).as("the fd still held").isFalse();
        }
    }

    /** Starts the shared runtime and loads what the first connection loads, so the baseline holds them. */
    private void warmUp(ServerSocketChannel server) throws Exception {
        try (Selector selector = provider.openSelector(); SocketChannel c = provider.openSocketChannel()) {
            c.connect(server.getLocalAddress());
            try (SocketChannel s = server.accept()) {
                s.configureBlocking(false);
                s.register(selector, SelectionKey.OP_READ);
                selector.selectNow();
            }
            selector.selectNow();
        }
    }

    /** Under the flag (a child JVM) the JDK's factories return uring4j's selector and channels, and they echo. */
    @Test
    void theFlagInstallsTheProviderForUnmodifiedCode() throws Exception {
        String out = ChildJvm.output(EchoProbe.class,
                "-Djava.nio.channels.spi.SelectorProvider=" + UringSelectorProvider.class.getName());
        assertThat(out).contains("provider " + UringSelectorProvider.class.getName(), "echoed hello");
    }

    /**
     * The JDK's own HTTP server (which switches accepted channels between the selector and blocking reads) and
     * HTTP client, unmodified, under the flag: 150 requests, sequential and concurrent. The probe is a source file
     * run by the launcher, so the test compile needs neither module.
     */
    @Test
    void theJdksHttpServerAndClientRunOnTheProvider() throws Exception {
        Path probe = Files.createTempDirectory("uring4j-http").resolve("HttpProbe.java");
        try (var in = getClass().getResourceAsStream("HttpProbe.java.txt")) {
            Files.copy(in, probe);
        }
        try {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED",
                    "-Djava.nio.channels.spi.SelectorProvider=" + UringSelectorProvider.class.getName(),
                    "-During4j.engine=" + System.getProperty("uring4j.engine", "auto"),
                    "-cp", ChildJvm.location(UringSelectorProvider.class), probe.toString())
                    .redirectErrorStream(true).redirectOutput(probe.resolveSibling("out").toFile()).start();
            boolean exited = child.waitFor(120, TimeUnit.SECONDS);
            if (!exited) {
                child.destroyForcibly().waitFor();
            }
            String out = Files.readString(probe.resolveSibling("out"));
            assertThat(exited).as("exited in time: " + out).isTrue();
            assertThat(child.exitValue()).as(out).isZero();
            assertThat(out).contains("provider " + UringSelectorProvider.class.getName(), "ok");
        } finally {
            Files.deleteIfExists(probe.resolveSibling("out"));
            Files.delete(probe);
            Files.delete(probe.getParent());
        }
    }


    /**
     * Under {@code -Djava.net.preferIPv4Stack=true} (read at start-up: a child JVM) the JDK has no IPv6: its channels
     * are IPv4 sockets, INET6 ones are refused, and so are IPv6 addresses. Ours must answer as the JDK's do.
     */
    @Test
    void withoutIpv6TheChannelsAreIpv4AsTheJdks() throws Exception {
        String out = ChildJvm.output(Ipv4StackProbe.class, "-Djava.net.preferIPv4Stack=true");
        List<String> lines = out.lines().toList();
        assertThat(lines).filteredOn(l -> l.startsWith("jdk ")).singleElement().asString()
                .contains("UnsupportedOperationException", "UnsupportedAddressTypeException", "/0.0.0.0");
        assertThat(lines).as(out).contains(lines.stream().filter(l -> l.startsWith("jdk ")).findFirst().orElseThrow()
                .replaceFirst("jdk", "uring4j"));
    }

    /** The child JVM's part: the same questions to the JDK's provider and to ours, one line of answers each. */
    static final class Ipv4StackProbe {
        public static void main(String[] args) throws Exception {
            System.out.println("jdk " + answers(SelectorProvider.provider()));
            System.out.println("uring4j " + answers(new UringSelectorProvider()));
        }

        private static List<String> answers(SelectorProvider provider) throws IOException {
            List<String> answers = new ArrayList<>();
            answers.add(outcome(() -> provider.openSocketChannel(StandardProtocolFamily.INET6)));
            answers.add(outcome(() -> provider.openServerSocketChannel(StandardProtocolFamily.INET6)));
            answers.add(outcome(() -> provider.openDatagramChannel(StandardProtocolFamily.INET6)));
            try (ServerSocketChannel server = provider.openServerSocketChannel().bind(null);
                 SocketChannel client = provider.openSocketChannel();
                 java.nio.channels.DatagramChannel udp = provider.openDatagramChannel().bind(null)) {
                answers.add(address(server.getLocalAddress()) + " " + address(udp.getLocalAddress()));
                answers.add(outcome(() -> client.connect(new InetSocketAddress("::1", 1))));
                answers.add(outcome(() -> udp.send(ByteBuffer.allocate(1), new InetSocketAddress("::1", 1))));
                client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port(server)));
                try (SocketChannel accepted = server.accept()) {
                    answers.add(address(client.getLocalAddress()) + " " + address(accepted.getRemoteAddress()));
                }
            }
            return answers;
        }

        private static int port(ServerSocketChannel server) throws IOException {
            return ((InetSocketAddress) server.getLocalAddress()).getPort();
        }

        private static String address(java.net.SocketAddress address) {
            return ((InetSocketAddress) address).getAddress().toString();
        }

        private interface Call {
            Object call() throws IOException;
        }

        private static String outcome(Call call) {
            try {
                Object result = call.call();
                if (result instanceof java.io.Closeable c) {
                    c.close();
                }
                return "ok";
            } catch (IOException | RuntimeException e) {
                return e.getClass().getSimpleName();
            }
        }
    }


    /** The child JVM's part: plain java.nio code, a selector loop echoing one connection. */
    static final class EchoProbe {
        public static void main(String[] args) throws Exception {
            System.out.println("provider " + SelectorProvider.provider().getClass().getName());
            try (Selector selector = Selector.open(); ServerSocketChannel server = ServerSocketChannel.open();
                 SocketChannel client = SocketChannel.open()) {
                if (!(selector.getClass().getName().startsWith("io.uring4j") && client.getClass() == UringSocketChannel.class)) {
                    throw new AssertionError("not uring4j's: " + selector + " " + client);
                }
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).configureBlocking(false);
                server.register(selector, SelectionKey.OP_ACCEPT);
                client.connect(server.getLocalAddress());
                client.write(ByteBuffer.wrap("hello".getBytes()));
                ByteBuffer echo = ByteBuffer.allocate(5);
                while (echo.hasRemaining()) {
                    selector.select(10_000);
                    for (SelectionKey key : selector.selectedKeys()) {
                        if (key.isAcceptable()) {
                            SocketChannel s = server.accept();      // null when readiness was spurious
                            if (s != null) {
                                s.configureBlocking(false);
                                s.register(selector, SelectionKey.OP_READ);
                            }
                        } else if (key.isReadable()) {
                            ByteBuffer in = ByteBuffer.allocate(100);
                            ((SocketChannel) key.channel()).read(in);
                            ((SocketChannel) key.channel()).write(in.flip());
                        }
                    }
                    selector.selectedKeys().clear();
                    client.configureBlocking(false);
                    client.read(echo);
                }
                System.out.println("echoed " + new String(echo.array()));
            }
        }
    }
}
