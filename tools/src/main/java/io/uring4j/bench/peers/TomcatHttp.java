package io.uring4j.bench.peers;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Tomcat 11 embedded as its users write it: a {@code Connector} on one of its java.nio protocols and a servlet
 * answering the plaintext body — {@code Http11Nio2Protocol} (java.nio's asynchronous channels, from
 * {@code AsynchronousChannelProvider.provider()}) or {@code Http11NioProtocol}, Tomcat's default (a {@code Selector} and
 * non-blocking channels, from {@code SelectorProvider.provider()}). Tomcat adds the Date header itself; the servlet
 * sets the rest as {@code serve http} sends them. The connector keeps Tomcat's own worker pool ({@code threads} does
 * not apply); its base directory is a temporary one, deleted on close.
 */
final class TomcatHttp implements Peer.Server {
    /** Tomcat's INFO lines (starting, stopping) say nothing the benchmark needs; warnings still show. */
    private static final Logger QUIET = Logger.getLogger("org.apache");

    private final Tomcat tomcat;
    private final Connector connector;
    private final String host;
    private final Path baseDir;

    private TomcatHttp(Tomcat tomcat, Connector connector, String host, Path baseDir) {
        this.tomcat = tomcat;
        this.connector = connector;
        this.host = host;
        this.baseDir = baseDir;
    }

    /** Tomcat's java.nio connectors, by the class its {@code Connector} is made with. */
    enum Protocol {
        NIO("org.apache.coyote.http11.Http11NioProtocol"),
        NIO2("org.apache.coyote.http11.Http11Nio2Protocol");

        private final String className;

        Protocol(String className) {
            this.className = className;
        }
    }

    static TomcatHttp start(Protocol protocol, InetSocketAddress address) throws IOException {
        QUIET.setLevel(Level.WARNING);
        Path baseDir = Files.createTempDirectory("uring4j-tomcat");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(baseDir.toString());
        Connector connector = new Connector(protocol.className);
        connector.setProperty("address", address.getHostString());
        connector.setPort(address.getPort());
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", baseDir.toString());
        Tomcat.addServlet(context, "hello", new Hello()).addMapping("/");
        TomcatHttp server = new TomcatHttp(tomcat, connector, address.getHostString(), baseDir);
        try {
            tomcat.start();
        } catch (LifecycleException e) {
            server.close();
            throw new IOException("tomcat on " + address + ": " + e, e);
        }
        return server;
    }

    @Override
    public InetSocketAddress address() {
        return new InetSocketAddress(host, connector.getLocalPort());
    }

    @Override
    public void close() {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            throw new IllegalStateException("tomcat: stop: " + e, e);
        } finally {
            deleteTree(baseDir);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every GET gets the plaintext answer, written through the servlet's output stream. */
    private static final class Hello extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private static final byte[] BODY = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setHeader("Server", "uring4j");
            response.setContentType("text/plain");
            response.setContentLength(BODY.length);
            response.getOutputStream().write(BODY);
        }
    }
}
