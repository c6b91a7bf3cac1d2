package io.uring4j.net;

import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.ChildJvm;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code System.inheritedChannel()} under the selector flag, in child JVMs whose standard input is a socket — as
 * inetd or systemd start a server: bash's {@code /dev/tcp} and {@code /dev/udp} redirections give a connected one,
 * and the probe itself puts a listening socket on descriptor 0 before it asks. Each channel is uring4j's, works, is
 * the same on every call, and on close lets go of descriptors 0 to 2, so that the socket really closes.
 */
@BothEngines
class InheritedChannelTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final String FLAG = "-Djava.nio.channels.spi.SelectorProvider="
            + UringSelectorProvider.class.getName();

    /** The child JVM's command, its standard input redirected by bash to {@code redirect} (e.g. /dev/tcp/...). */
    private static Process child(String mode, String redirect, Path release) throws IOException {
        List<String> command = new ArrayList<>(List.of("bash", "-c", "exec \"$@\" 0<>" + redirect, "bash"));
        command.addAll(ChildJvm.command(InheritProbe.class, FLAG, "-Dprobe.mode=" + mode,
                "-Dprobe.release=" + release));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static String ended(Process child) throws Exception {
        boolean exited = child.waitFor(60, TimeUnit.SECONDS);
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!exited) {
            child.destroyForcibly().waitFor();
        }
        assertThat(exited).as("exited in time:\n" + out).isTrue();
        assertThat(child.exitValue()).as("exit status (3: descriptor 0 not detached on close):\n" + out).isZero();
        return out;
    }

    @Test
    void aConnectedSocketOnStandardInputIsASocketChannelWhoseCloseEndsTheConnection() throws Exception {
        Path release = Files.createTempFile("uring4j-inherit", ".release");
        Files.delete(release);
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            Process child = child("connected", "/dev/tcp/127.0.0.1/" + port, release);
            try (SocketChannel peer = server.accept()) {
                peer.write(ByteBuffer.wrap("ping\n".getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer reply = ByteBuffer.allocate(256);
                while (peer.read(reply) >= 0) {
                    continue;                   // until the end of stream the child's close sends
                }
                assertThat(new String(reply.array(), 0, reply.position(), StandardCharsets.US_ASCII))
                        .isEqualTo("pong " + peer.getLocalAddress());
                assertThat(child.isAlive()).as("the end of stream came from the channel's close, not the exit")
                        .isTrue();
            } finally {
                Files.createFile(release);
            }
            assertThat(ended(child)).contains("inherited UringSocketChannel");
        }
    }

    @Test
    void aDatagramSocketOnStandardInputIsADatagramChannel() throws Exception {
        Path release = Files.createTempFile("uring4j-inherit", ".release");
        try (DatagramChannel peer = DatagramChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            int port = ((InetSocketAddress) peer.getLocalAddress()).getPort();
            Process child = child("datagram", "/dev/udp/127.0.0.1/" + port, release);
            ByteBuffer ping = ByteBuffer.allocate(64);
            var from = peer.receive(ping);
            assertThat(new String(ping.array(), 0, ping.position(), StandardCharsets.US_ASCII)).isEqualTo("ping");
            peer.send(ByteBuffer.wrap("pong".getBytes(StandardCharsets.US_ASCII)), from);
            assertThat(ended(child)).contains("inherited UringDatagramChannel connected to " + peer.getLocalAddress());
        }
    }

    @Test
    void aListeningSocketOnStandardInputIsAServerSocketChannel() throws Exception {
        Path release = Files.createTempFile("uring4j-inherit", ".release");
        Process child = child("listening", "/dev/null", release);
        assertThat(ended(child)).contains("inherited UringServerSocketChannel", "accepted, IP_TOS 16");
    }

    @Test
    void standardInputThatIsNoSocketGivesNull() throws Exception {
        Path release = Files.createTempFile("uring4j-inherit", ".release");
        assertThat(ended(child("none", "/dev/null", release))).contains("inherited null");
    }

    /** The child: asks for the inherited channel as its mode says, prints what it got, uses and closes it. */
    static final class InheritProbe {
        public static void main(String[] args) throws Exception {
            String mode = System.getProperty("probe.mode");
            if (mode.equals("listening")) {
                listenOnStandardInput();
            }
            Channel channel = System.inheritedChannel();
            if (System.inheritedChannel() != channel) {
                throw new AssertionError("a second call gave another channel");
            }
            System.out.println("inherited " + (channel == null ? "null" : channel.getClass().getSimpleName()));
            switch (channel) {
                case null -> {
                    return;
                }
                case SocketChannel socket -> converse(socket);
                case DatagramChannel datagram -> exchange(datagram);
                case ServerSocketChannel server -> accept(server);
                default -> throw new AssertionError("unexpected " + channel);
            }
            channel.close();
            // stdout is /dev/null from here on (the close detached 0 to 2): the exit status tells the rest
            boolean detached = Files.readSymbolicLink(Path.of("/proc/self/fd/0")).toString().equals("/dev/null");
            Path release = Path.of(System.getProperty("probe.release"));
            for (int i = 0; i < 6000 && !Files.exists(release); i++) {
                Thread.sleep(10);
            }
            System.exit(detached ? 0 : 3);
        }

        private static void converse(SocketChannel socket) throws IOException {
            ByteBuffer ping = ByteBuffer.allocate(5);
            while (ping.hasRemaining() && socket.read(ping) > 0) {
                continue;
            }
            if (!new String(ping.array(), StandardCharsets.US_ASCII).equals("ping\n")) {
                throw new AssertionError("read " + new String(ping.array(), StandardCharsets.US_ASCII));
            }
            socket.write(ByteBuffer.wrap(("pong " + socket.getRemoteAddress()).getBytes(StandardCharsets.US_ASCII)));
        }

        private static void exchange(DatagramChannel datagram) throws IOException {
            System.out.println("inherited UringDatagramChannel connected to " + datagram.getRemoteAddress());
            datagram.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer pong = ByteBuffer.allocate(16);
            datagram.read(pong);
            if (!new String(pong.array(), 0, pong.position(), StandardCharsets.US_ASCII).equals("pong")) {
                throw new AssertionError("received " + pong);
            }
        }

        private static void accept(ServerSocketChannel server) throws IOException {
            try (SocketChannel client = SocketChannel.open(server.getLocalAddress());
                 SocketChannel accepted = server.accept()) {
                client.write(ByteBuffer.wrap("hi".getBytes(StandardCharsets.US_ASCII)));
                ByteBuffer hi = ByteBuffer.allocate(2);
                accepted.read(hi);
                accepted.setOption(StandardSocketOptions.IP_TOS, 16);
                System.out.println("accepted, IP_TOS " + accepted.getOption(StandardSocketOptions.IP_TOS));
            }
        }

        /** What a launcher does: a listening IPv4 socket on loopback, as descriptor 0. */
        private static void listenOnStandardInput() throws IOException {
            int fd = Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM, 0);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment sockaddr = arena.allocate(Sockets.SOCKADDR_STORAGE_SIZE, 8);
                int len = SocketAddresses.write(new InetSocketAddress(LOOPBACK, 0), sockaddr);
                if (fd < 0 || Sockets.bind(fd, sockaddr.asSlice(0, len)) < 0 || Sockets.listen(fd, 8) < 0
                        || LibC.dup2(fd, 0) < 0) {
                    throw new IOException("could not listen on descriptor 0");
                }
            }
            LibC.close(fd);
        }
    }
}
