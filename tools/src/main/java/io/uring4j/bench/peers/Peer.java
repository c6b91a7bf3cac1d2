package io.uring4j.bench.peers;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.spi.AsynchronousChannelProvider;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * The servers {@code ./uring4j bench http} measures uring4j against, answering exactly as
 * {@code ./uring4j serve http} does (the same response bytes, keep-alive, pipelining): Netty on its io_uring,
 * epoll and NIO transports, and the JDK's own blocking channels with a virtual thread per connection. And the
 * applications: Jetty, Netty's HTTP codec and Tomcat, each written as its users write it, answering the same
 * body and headers in their own order. Run in a child JVM each by the benchmark:
 * {@code Peer netty-iouring --port 0 --threads 1}; it first prints the java.nio providers it got (see
 * {@link #providers()}), then a line naming the port.
 */
@Command(name = "peer", mixinStandardHelpOptions = true, description = "An HTTP/1.1 plaintext peer server.")
public final class Peer implements Callable<Integer> {
    /** The peers' names, as {@code --servers} takes them: each answers {@code serve http}'s bytes exactly. */
    public static final List<String> NAMES = List.of("netty-iouring", "netty-epoll", "netty-nio", "jdk-vthread");

    /**
     * The applications' names: Jetty (java.nio selectors), Netty's HTTP codec (on NIO), Tomcat on NIO2 and on its
     * default connector, NIO (java.nio selectors).
     */
    public static final List<String> APPS = List.of("jetty", "netty-codec", "tomcat-nio2", "tomcat-nio");

    /** A running peer. */
    public interface Server extends AutoCloseable {
        InetSocketAddress address();

        @Override
        void close();
    }

    @Parameters(index = "0", description = "netty-iouring, netty-epoll, netty-nio, jdk-vthread, tomcat-nio, jetty,"
            + " netty-codec or tomcat-nio2")
    String name;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to bind (default ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", defaultValue = "8080", description = "TCP port, 0 for any (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--threads", defaultValue = "1",
            description = "Netty event loops, Jetty selectors (default ${DEFAULT-VALUE}); jdk-vthread and Tomcat:"
                    + " ignored")
    int threads;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Peer()).execute(args));
    }

    /** Starts the named peer on {@code address} with {@code threads} event loops. */
    public static Server start(String name, InetSocketAddress address, int threads) throws IOException {
        return switch (name) {
            case "netty-iouring" -> NettyHttp.start(NettyHttp.Transport.IO_URING, address, threads);
            case "netty-epoll" -> NettyHttp.start(NettyHttp.Transport.EPOLL, address, threads);
            case "netty-nio" -> NettyHttp.start(NettyHttp.Transport.NIO, address, threads);
            case "jdk-vthread" -> new JdkHttp(address);
            case "jetty" -> JettyHttp.start(address, threads);
            case "netty-codec" -> NettyCodecHttp.start(address, threads);
            case "tomcat-nio" -> TomcatHttp.start(TomcatHttp.Protocol.NIO, address);
            case "tomcat-nio2" -> TomcatHttp.start(TomcatHttp.Protocol.NIO2, address);
            default -> throw new IllegalArgumentException("no peer named " + name + "; one of " + NAMES + ", " + APPS);
        };
    }

    /**
     * The java.nio providers this JVM's channels come from, as {@code selector=CLASS; async=CLASS}: what the
     * provider flags did ({@code -Djava.nio.channels.spi.SelectorProvider=...},
     * {@code -Djava.nio.channels.spi.AsynchronousChannelProvider=...}).
     * A provider the JVM could not load reads {@code failed: } and the reason (the JDK does not fall back then).
     */
    private static String providers() {
        return "selector=" + provider(SelectorProvider::provider) + "; async="
                + provider(AsynchronousChannelProvider::provider);
    }

    private static String provider(Supplier<?> provider) {
        try {
            return provider.get().getClass().getName();
        } catch (ServiceConfigurationError e) {
            Throwable why = e.getCause() != null ? e.getCause() : e;
            return ("failed: " + why).replace(';', ',').replace('\n', ' ');
        }
    }

    @Override
    public Integer call() throws Exception {
        System.out.println("providers: " + providers());
        Server server = start(name, new InetSocketAddress(host, port), threads);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close));    // SIGTERM: Tomcat deletes its directory
        InetSocketAddress bound = server.address();
        System.out.printf("%s http on %s:%d, %d loop(s); Ctrl-C to stop%n", name, bound.getHostString(),
                bound.getPort(), threads);
        System.out.flush();
        new CountDownLatch(1).await();
        return 0;
    }
}
