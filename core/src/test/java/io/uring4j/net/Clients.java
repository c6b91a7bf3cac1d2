package io.uring4j.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** JDK-socket clients for the server tests: independent of the code under test. */
final class Clients {
    private Clients() {
    }

    static byte[] random(long seed, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /**
     * Sends {@code data} from one virtual thread in chunks of {@code chunk} bytes while this thread reads the echo;
     * asserts every byte comes back in order.
     */
    static void echoAndCheck(InetSocketAddress server, byte[] data, int chunk) throws Exception {
        try (SocketChannel ch = SocketChannel.open(server)) {
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    for (int off = 0; off < data.length; off += chunk) {
                        writeFully(ch, ByteBuffer.wrap(data, off, Math.min(chunk, data.length - off)));
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            byte[] back = readFully(ch, data.length);
            writer.join();
            assertThat(Arrays.mismatch(back, data)).as("first differing byte").isEqualTo(-1);
        }
    }

    /** A blocking channel's write may return early on a virtual thread: loop until all is written. */
    static int writeFully(SocketChannel ch, ByteBuffer buf) throws IOException {
        int n = buf.remaining();
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
        return n;
    }

    static byte[] readFully(SocketChannel ch, int n) throws IOException {
        ByteBuffer in = ByteBuffer.allocate(n);
        while (in.hasRemaining()) {
            if (ch.read(in) < 0) {
                throw new IOException("EOF after " + in.position() + " of " + n + " bytes");
            }
        }
        return in.array();
    }
}
