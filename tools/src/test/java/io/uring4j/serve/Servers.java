package io.uring4j.serve;

import io.uring4j.runtime.Uring;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The tests' way to start a server of either style in process, and to talk to it. */
final class Servers {
    static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    static final String GET = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n";

    private Servers() {
    }

    /** {@code style}: loop or vthread. */
    static Server start(Uring uring, String style, boolean http, Duration idleTimeout) throws IOException {
        return style.equals("loop") ? new LoopStyle(uring, ANY_PORT, http, idleTimeout, false)
                : new ThreadStyle(uring, ANY_PORT, http, idleTimeout, false);
    }

    /** A client socket connected to {@code server} whose reads give up after 30 s (a hang, not slowness). */
    static Socket connect(Server server) throws IOException {
        Socket s = new Socket();
        s.connect(server.address());
        s.setSoTimeout(30_000);
        return s;
    }

    /** Reads until the server ends the stream; what came. A reset instead of an orderly end fails. */
    static String readToEnd(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        StringBuilder all = new StringBuilder();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                all.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
            }
        } catch (SocketException e) {
            throw new AssertionError("reset instead of end of stream after: " + all, e);
        }
        return all.toString();
    }

    /** How many responses {@code text} holds (each begins with its status line). */
    static int responses(String text) {
        return text.split("HTTP/1\\.1 \\d{3} ", -1).length - 1;
    }
}
