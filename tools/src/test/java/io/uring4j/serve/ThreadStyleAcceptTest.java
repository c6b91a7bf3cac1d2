package io.uring4j.serve;

import io.uring4j.runtime.Uring;
import io.uring4j.sys.LibC;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The virtual-thread style's acceptor out of descriptors (issue 20 defect 11, issue 26 finding 1): it pauses and
 * retries, instead of ending (it returned on the first failed accept, so the server listened and never answered
 * again). The test runs the process out of descriptors by lowering RLIMIT_NOFILE just above those in use and
 * filling the rest.
 */
class ThreadStyleAcceptTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    void runningOutOfDescriptorsPausesAcceptingAndServiceResumes() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build();
             ThreadStyle server = new ThreadStyle(uring, ANY_PORT, false, Duration.ofSeconds(30), false);
             SocketChannel client = SocketChannel.open()) {            // its descriptor, before they run out
            try (SocketChannel first = SocketChannel.open(server.address())) {
                assertThat(echo(first, (byte) 1)).isEqualTo((byte) 1);      // the serving path's classes, loaded
            }
            List<Integer> fillers = new ArrayList<>();
            long[] limit = LibC.getrlimit(LibC.RLIMIT_NOFILE);
            long pauses;
            try {
                long highest;
                try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                    highest = fds.mapToLong(p -> Long.parseLong(p.getFileName().toString())).max().orElseThrow();
                }
                assertThat(LibC.setrlimit(LibC.RLIMIT_NOFILE, highest + 8, limit[1])).isZero();
                for (int fd; (fd = LibC.eventfd(0, LibC.EFD_CLOEXEC)) >= 0; ) {
                    fillers.add(fd);
                }
                client.connect(server.address());           // completed by the kernel; accepting fails
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (server.acceptPauses() == 0) {
                    assertThat(System.nanoTime() - deadline).as("the accept failed and paused").isNegative();
                    Thread.sleep(1);
                }
                long first = server.acceptPauses();
                Thread.sleep(300);
                pauses = server.acceptPauses() - first;
            } finally {
                fillers.forEach(LibC::close);
                LibC.setrlimit(LibC.RLIMIT_NOFILE, limit[0], limit[1]);
            }
            // Paused 10, 20, 40, 80, 160 ms: a handful of retries, where a spin makes thousands.
            assertThat(pauses).as("failed accepts in 300 ms without descriptors").isLessThan(10);
            assertThat(echo(client, (byte) 42)).as("served once descriptors are back").isEqualTo((byte) 42);
        }
    }

    private static byte echo(SocketChannel ch, byte b) throws Exception {
        ch.write(ByteBuffer.wrap(new byte[] {b}));
        ByteBuffer in = ByteBuffer.allocate(1);
        while (in.hasRemaining()) {
            assertThat(ch.read(in)).isNotNegative();
        }
        return in.get(0);
    }
}
