package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.spi.AsynchronousChannelProvider;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The asynchronous channel contract against uring4j's provider, on a runtime of the test's own. */
@BothEngines
class UringAsynchronousChannelTest extends AsynchronousChannelContract {
    @UringRuntime(loops = 2)
    private static Uring uring;
    private static AsynchronousChannelProvider provider;

    @BeforeAll
    static void makeProvider() {
        provider = new UringAsynchronousChannelProvider(uring);
    }

    @Override
    AsynchronousChannelProvider provider() {
        return provider;
    }

    @Override
    AsynchronousChannelProvider otherProvider() {
        return AsynchronousChannelProvider.provider();
    }

    /**
     * As the JDK's first try: an accept that finds a connection waiting is made in place, one accept4 on the
     * calling thread: over when it returns, with no request on a loop (Tomcat's connector accepts so after each
     * connection, and pipelined load reconnects every hundred requests).
     */
    @Test
    void anAcceptThatFindsAConnectionWaitingIsMadeInPlace() throws Exception {
        try (AsynchronousServerSocketChannel server = provider.openAsynchronousServerSocketChannel(null);
             AsynchronousSocketChannel client = provider.openAsynchronousSocketChannel(null)) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client.connect(server.getLocalAddress()).get(10, TimeUnit.SECONDS);
            long before = submitted();
            Future<AsynchronousSocketChannel> accepted = server.accept();
            assertThat(accepted.isDone()).isTrue();
            assertThat(submitted()).as("requests submitted to the loops").isEqualTo(before);
            try (AsynchronousSocketChannel ch = accepted.get()) {
                assertThat(ch.getRemoteAddress()).isEqualTo(client.getLocalAddress());
            }
        }
    }

    private static long submitted() {
        return uring.loop(0).stats().submitted() + uring.loop(1).stats().submitted();
    }
}
