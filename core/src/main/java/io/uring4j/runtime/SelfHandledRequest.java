package io.uring4j.runtime;

/** A request that is its own op and handler: the future and blocking styles. */
interface SelfHandledRequest extends Op, CompletionHandler, Submission {
    /** The user_data its SQE carries; 0 until it is prepared (loop thread). */
    long userData();

    /** A cancel came before the request was prepared (any thread): it must not reach the kernel. */
    boolean withdrawn();

    @Override
    default void submitOn(EventLoop loop) {
        loop.submitSelfNow(this);
    }

    @Override
    default void refuse(Throwable cause) {
        failed(cause);
    }
}
