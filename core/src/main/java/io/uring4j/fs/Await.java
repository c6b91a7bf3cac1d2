package io.uring4j.fs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

/** Blocking on the futures of requests that must not be abandoned half-way (an open's fd, a close). */
final class Await {
    private Await() {
    }

    /**
     * The future's value. An interrupt does not stop the wait — what is waited for has a result that must not be
     * lost, as the JDK's uninterruptible open and close — but the interrupt status is kept for the caller.
     */
    static <T> T uninterruptibly(CompletableFuture<T> future) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(FileErrors.unwrap(e));
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Throws unchecked failures as they are; returns checked ones as an IOException to throw. */
    static IOException rethrow(Throwable failure) {
        return switch (failure) {
            case IOException io -> io;
            case UncheckedIOException u -> u.getCause();
            case RuntimeException r -> throw r;
            case Error e -> throw e;
            default -> new IOException(failure);
        };
    }

    /** The runtime refused a request because it is closed. */
    static IOException runtimeClosed(RejectedExecutionException e) {
        return new IOException("the uring4j runtime is closed", e);
    }
}
