package io.uring4j.ring;

/**
 * Receives completions from {@link CompletionQueue#drain(CqeHandler)}. Called on the reaping thread; the
 * {@link Cqe} cursor is valid only during the call. A handler kept in a field is reused without allocation.
 */
@FunctionalInterface
public interface CqeHandler {
    void handle(Cqe cqe);
}
