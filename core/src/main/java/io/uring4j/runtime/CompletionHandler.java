package io.uring4j.runtime;

/**
 * Receives a request's completions on its event loop's thread: once, or — for multishot requests — once per
 * CQE until one arrives without {@link io.uring4j.ring.abi.CqeFlags#F_MORE}. A handler kept and reused by the caller
 * makes the steady state allocation-free. Handlers must not block: they run on the loop.
 */
@FunctionalInterface
public interface CompletionHandler {
    /**
     * @param result the CQE result: {@code >= 0} as the opcode defines it, or {@code -errno}
     * @param flags  the CQE flags ({@code F_MORE}, {@code F_BUFFER} with the buffer id, ...)
     */
    void complete(int result, int flags);

    /**
     * The request never reached the kernel, or the runtime gave up on it: its op failed to prepare, the runtime
     * was closed first, or the kernel did not answer before the close timeout. Called on the loop thread. By
     * default rethrown, which the loop logs.
     */
    default void failed(Throwable cause) {
        if (cause instanceof RuntimeException e) {
            throw e;
        }
        throw new IllegalStateException(cause);
    }
}
