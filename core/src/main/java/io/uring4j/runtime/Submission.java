package io.uring4j.runtime;

/**
 * What a loop queues as it is — handed over by another thread, or waiting for a slot — with no task object around
 * it: a request that is its own op and handler ({@link SelfHandledRequest}), or a chain.
 */
interface Submission {
    /** Loop thread: writes its SQE(s), or waits for slots to free, or fails if the loop is closing. */
    void submitOn(EventLoop loop);

    /** The guard of the fd it names, or null: a close of that fd fails it while it waits for a slot. */
    FdGuard guard();

    /** Fails it without its reaching the kernel: its fd was closed while it waited for a slot. */
    void refuse(Throwable cause);

    /**
     * Whether it completes on its own, without an outside event (regular-file I/O, not a pipe or socket): while one
     * is in flight the loop is sure to wake for its CQE, so bounded hand-overs need not wake it
     * ({@link EventLoop#callBounded}).
     */
    default boolean bounded() {
        return false;
    }
}
