package io.uring4j.runtime;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/** Test helper: runs a task on a new virtual thread; the future completes with its outcome. */
public final class OnVirtualThread {
    private OnVirtualThread() {
    }

    public static <T> CompletableFuture<T> supply(Callable<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                result.complete(task.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }
}
