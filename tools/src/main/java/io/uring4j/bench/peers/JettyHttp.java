package io.uring4j.bench.peers;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Jetty 12 embedded as its users write it: a {@code ServerConnector} (java.nio's {@code Selector} and
 * {@code SocketChannel}, from {@code SelectorProvider.provider()}) with its stock acceptor and {@code threads}
 * selectors, and a plain core {@code Handler} answering the plaintext body. Jetty adds the Date header itself;
 * the handler sets the rest as {@code serve http} sends them.
 */
final class JettyHttp implements Peer.Server {
    private final Server server;
    private final ServerConnector connector;

    private JettyHttp(Server server, ServerConnector connector) {
        this.server = server;
        this.connector = connector;
    }

    static JettyHttp start(InetSocketAddress address, int threads) throws IOException {
        Server server = new Server();
        HttpConfiguration config = new HttpConfiguration();
        config.setSendServerVersion(false);                 // the handler names the server as serve http does
        ServerConnector connector = new ServerConnector(server, -1, threads, new HttpConnectionFactory(config));
        connector.setHost(address.getHostString());
        connector.setPort(address.getPort());
        server.addConnector(connector);
        server.setHandler(new Hello());
        try {
            server.start();
        } catch (Exception e) {
            try {
                server.stop();
            } catch (Exception stopping) {
                e.addSuppressed(stopping);
            }
            throw e instanceof IOException io ? io : new IOException("jetty on " + address + ": " + e, e);
        }
        return new JettyHttp(server, connector);
    }

    @Override
    public InetSocketAddress address() {
        return new InetSocketAddress(connector.getHost(), connector.getLocalPort());
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("jetty: stop: " + e, e);
        }
    }

    /** Every request gets the plaintext answer, written in one piece as the last content. */
    private static final class Hello extends Handler.Abstract.NonBlocking {
        private static final byte[] BODY = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.SERVER, "uring4j");
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain");
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, BODY.length);
            response.write(true, ByteBuffer.wrap(BODY), callback);
            return true;
        }
    }
}
