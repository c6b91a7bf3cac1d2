package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Tcp#listen}: one listener spread over the loops, or one per loop with SO_REUSEPORT when asked. */
@BothEngines
class TcpListenTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /**
     * A server already on the port, even one that lets others share it, is not joined: bind fails as the JDK's does.
     * Sharing is there when asked for.
     */
    @Test
    void aPortInUseIsRefusedUnlessSharingIsAskedFor() throws Exception {
        try (ServerSocketChannel other = ServerSocketChannel.open();
             Uring uring = Uring.builder().loops(2).build(); Tcp tcp = Tcp.open(uring)) {
            other.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            other.bind(ANY_PORT);
            InetSocketAddress taken = (InetSocketAddress) other.getLocalAddress();

            assertThatThrownBy(() -> tcp.listen(taken, EchoHandler::new)).isInstanceOf(BindException.class)
                    .hasMessage("Address already in use");
            try (TcpServer shared = tcp.listen(taken, EchoHandler::new, true)) {
                assertThat(shared.localAddress().getPort()).isEqualTo(taken.getPort());
                List<Socket> clients = new ArrayList<>();
                try {
                    // Each loop has a socket of its own on the port, and the kernel spreads connections over them.
                    for (int i = 0; i < 60; i++) {
                        clients.add(connect(taken));
                    }
                    awaitCondition(() -> tcp.accepted() > 0);
                    for (int loop = 0; loop < 2; loop++) {
                        int index = loop;
                        awaitCondition(() -> !tcp.stats(index).contains(" accepted=0 "));
                    }
                } finally {
                    for (Socket c : clients) {
                        c.close();
                    }
                }
            }
        }
    }

    /** One listener: its loop hands connections to each loop in turn, and each serves its own. */
    @Test
    void oneListenerSpreadsConnectionsOverTheLoopsInTurn() throws Exception {
        try (Uring uring = Uring.builder().loops(3).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
            List<Socket> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 30; i++) {
                    Socket c = connect(server.localAddress());
                    clients.add(c);
                    c.getOutputStream().write(i);
                    assertThat(c.getInputStream().read()).isEqualTo(i);
                }
                for (int loop = 0; loop < 3; loop++) {
                    assertThat(tcp.stats(loop)).contains(" accepted=10 ").endsWith(" open=10");
                }
            } finally {
                for (Socket c : clients) {
                    c.close();
                }
            }
        }
    }

    /** Closing a server closes its one listener; the connections it accepted stay open and served. */
    @Test
    void closingTheServerStopsAcceptingAndKeepsConnections() throws Exception {
        try (Uring uring = Uring.builder().loops(2).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
            try (Socket a = connect(server.localAddress()); Socket b = connect(server.localAddress())) {
                awaitCondition(() -> tcp.accepted() == 2);
                server.close();
                awaitCondition(() -> refused(server.localAddress()));
                for (Socket c : List.of(a, b)) {
                    c.getOutputStream().write(7);
                    assertThat(c.getInputStream().read()).isEqualTo(7);
                }
            }
            try (TcpServer again = tcp.listen(server.localAddress(), EchoHandler::new);
                 Socket c = connect(again.localAddress())) {
                c.getOutputStream().write(8);
                assertThat(c.getInputStream().read()).as("the port is free again").isEqualTo(8);
            }
        }
    }

    private static boolean refused(InetSocketAddress address) {
        try (Socket s = new Socket(address.getAddress(), address.getPort())) {
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static Socket connect(InetSocketAddress address) throws IOException {
        Socket s = new Socket(address.getAddress(), address.getPort());
        s.setSoTimeout(10_000);
        return s;
    }
}
