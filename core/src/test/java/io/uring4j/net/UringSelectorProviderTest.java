package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.ChildJvm;
import io.uring4j.testkit.OpenFds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NetworkChannel;
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
     * The JDK's address-family settings, read at start-up (so in a child JVM), as the JDK's channels take them:
     * under preferIPv4Stack there is no IPv6 (IP channels are IPv4 sockets, INET6 ones are refused); under
     * preferIPv6Addresses the wildcard {@code new InetSocketAddress(0)} is ::, yet an INET channel bound to nothing,
     * or sending unbound, binds 0.0.0.0. Ours must answer the probe's questions as the JDK's do.
     */
    @ParameterizedTest
    @CsvSource({"java.net.preferIPv4Stack, UnsupportedOperationException", "java.net.preferIPv6Addresses, ok"})
    void theJdksAddressFamilySettingsAreFollowed(String setting, String inet6) throws Exception {
        String out = ChildJvm.output(FamilyProbe.class, "-D" + setting + "=true");
        String jdk = out.lines().filter(l -> l.startsWith("jdk ")).findFirst().orElseThrow();
        assertThat(jdk).as(out).startsWith("jdk [" + inet6 + ", " + inet6 + ", " + inet6 + ",");
        assertThat(out.lines()).as(out).contains(jdk.replaceFirst("jdk", "uring4j"));
    }

    /** The child JVM's part: the same questions to the JDK's provider and to ours, one line of answers each. */
    static final class FamilyProbe {
        public static void main(String[] args) throws Exception {
            System.out.println("jdk " + answers(SelectorProvider.provider()));
            System.out.println("uring4j " + answers(new UringSelectorProvider()));
        }

        private static List<String> answers(SelectorProvider provider) throws IOException {
            StandardProtocolFamily inet = StandardProtocolFamily.INET;
            InetSocketAddress v6 = new InetSocketAddress(InetAddress.ofLiteral("::1"), 1);
            List<String> answers = new ArrayList<>();
            answers.add(outcome(() -> provider.openSocketChannel(StandardProtocolFamily.INET6)));
            answers.add(outcome(() -> provider.openServerSocketChannel(StandardProtocolFamily.INET6)));
            answers.add(outcome(() -> provider.openDatagramChannel(StandardProtocolFamily.INET6)));
            try (ServerSocketChannel server = provider.openServerSocketChannel().bind(null);
                 DatagramChannel udp = provider.openDatagramChannel().bind(null);
                 DatagramChannel inetUdp = provider.openDatagramChannel(inet).bind(null);
                 DatagramChannel unbound = provider.openDatagramChannel(inet);
                 SocketChannel inetClient = provider.openSocketChannel(inet)) {
                answers.add(address(server) + " " + address(udp) + " " + address(inetUdp));
                answers.add(outcome(() -> inetClient.connect(v6)));
                answers.add(outcome(() -> inetUdp.send(ByteBuffer.allocate(1), v6)));
                InetAddress v4 = InetAddress.ofLiteral("127.0.0.1");
                answers.add(outcome(() -> unbound.send(ByteBuffer.allocate(1), new InetSocketAddress(v4, port(udp)))));
                try (SocketChannel client = provider.openSocketChannel()) {
                    client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port(server)));
                    try (SocketChannel accepted = server.accept()) {
                        answers.add(client.getLocalAddress().equals(accepted.getRemoteAddress()) + "");
                    }
                }
            }
            return answers;
        }

        private static int port(NetworkChannel channel) throws IOException {
            return ((InetSocketAddress) channel.getLocalAddress()).getPort();
        }

        private static String address(NetworkChannel channel) throws IOException {
            return ((InetSocketAddress) channel.getLocalAddress()).getAddress().toString();
        }

        private interface Call {
            Object call() throws IOException;
        }

        private static String outcome(Call call) {
            try {
                if (call.call() instanceof java.io.Closeable opened) {
                    opened.close();
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
