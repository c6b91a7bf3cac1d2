package io.uring4j.net;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.CompletionHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the asynchronous channel tests share: waiting, recording handlers, echo servers and clients. */
final class AsyncKit {
    /** Only turns a hang into a failure. */
    static final long WAIT_SECONDS = 60;

    private AsyncKit() {
    }

    static <V> V get(Future<V> f) throws Exception {
        return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    static Throwable failureOf(Future<?> f) {
        return assertThatThrownBy(() -> get(f)).isInstanceOf(ExecutionException.class).actual().getCause();
    }

    static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** A handler that records its outcome, its attachment and the thread it ran on. */
    static final class Recorder<V> implements CompletionHandler<V, String> {
        final CompletableFuture<V> outcome = new CompletableFuture<>();
        volatile String attachment;
        volatile Thread thread;

        @Override
        public void completed(V result, String a) {
            attachment = a;
            thread = Thread.currentThread();
            outcome.complete(result);
        }

        @Override
        public void failed(Throwable exc, String a) {
            attachment = a;
            thread = Thread.currentThread();
            outcome.completeExceptionally(exc);
        }

        V get() throws Exception {
            return AsyncKit.get(outcome);
        }

        Throwable failure() {
            return failureOf(outcome);
        }
    }

    /** A connected pair: the client and the server's end. */
    record Pair(AsynchronousSocketChannel client, AsynchronousSocketChannel accepted) implements AutoCloseable {
        static Pair connect(AsynchronousServerSocketChannel server, AsynchronousSocketChannel client) throws Exception {
            Future<AsynchronousSocketChannel> accepted = server.accept();
            get(client.connect(server.getLocalAddress()));
            return new Pair(client, get(accepted));
        }

        @Override
        public void close() throws IOException {
            client.close();
            accepted.close();
        }
    }

    /** Accepts every connection and echoes it through handlers, each connection with its own buffer. */
    static void echoServer(AsynchronousServerSocketChannel server, boolean direct) {
        server.accept(null, new CompletionHandler<AsynchronousSocketChannel, Void>() {
            @Override
            public void completed(AsynchronousSocketChannel ch, Void unused) {
                server.accept(null, this);
                ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(32 * 1024) : ByteBuffer.allocate(32 * 1024);
                echo(ch, buffer);
            }

            @Override
            public void failed(Throwable exc, Void unused) {
                // the server was closed
            }
        });
    }

    private static void echo(AsynchronousSocketChannel ch, ByteBuffer buffer) {
        ch.read(buffer.clear(), null, new CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer n, Void unused) {
                if (n < 0) {
                    closeQuietly(ch);
                    return;
                }
                writeAll(ch, buffer.flip(), () -> echo(ch, buffer), e -> closeQuietly(ch));
            }

            @Override
            public void failed(Throwable exc, Void unused) {
                closeQuietly(ch);
            }
        });
    }

    /** Writes all of {@code src} with handlers, then runs {@code done}. */
    static void writeAll(AsynchronousSocketChannel ch, ByteBuffer src, Runnable done,
                         java.util.function.Consumer<Throwable> failed) {
        ch.write(src, null, new CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer n, Void unused) {
                if (src.hasRemaining()) {
                    ch.write(src, null, this);
                } else {
                    done.run();
                }
            }

            @Override
            public void failed(Throwable exc, Void unused) {
                failed.accept(exc);
            }
        });
    }

    /** Reads until {@code into} is full or end of stream; completes with the bytes read. */
    static CompletableFuture<Integer> readFully(AsynchronousSocketChannel ch, ByteBuffer into) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        int start = into.position();
        ch.read(into, null, new CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer n, Void unused) {
                if (n < 0 || !into.hasRemaining()) {
                    result.complete(into.position() - start);
                } else {
                    ch.read(into, null, this);
                }
            }

            @Override
            public void failed(Throwable exc, Void unused) {
                result.completeExceptionally(exc);
            }
        });
        return result;
    }

    /** Sends {@code data} and reads as much back through an echo server; completes with what came back. */
    static CompletableFuture<byte[]> roundTrip(AsynchronousSocketChannel ch, byte[] data, boolean direct) {
        ByteBuffer out = direct ? ByteBuffer.allocateDirect(data.length).put(data).flip() : ByteBuffer.wrap(data);
        ByteBuffer in = direct ? ByteBuffer.allocateDirect(data.length) : ByteBuffer.allocate(data.length);
        CompletableFuture<Void> sent = new CompletableFuture<>();
        writeAll(ch, out, () -> sent.complete(null), sent::completeExceptionally);
        return readFully(ch, in).thenCombine(sent, (n, unused) -> {
            byte[] back = new byte[n];
            in.flip().get(back);
            return back;
        });
    }

    static void closeQuietly(java.nio.channels.Channel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing for cleanup only
        }
    }
}
