package io.uring4j.runtime;

/**
 * The blocking calls of virtual threads completed in one reaped batch, woken with one foreign unpark: the first
 * waiter unparks the rest from its carrier, where that is a push onto the carrier's own queue. From the loop thread
 * each unpark is an external submission to the scheduler that may wake a parked carrier (a futex call).
 * Loop thread only.
 */
final class WakeBatch {
    private BlockingCall head;
    private BlockingCall tail;

    /** A completed call whose virtual waiter is woken with the rest of the batch. */
    void add(BlockingCall call) {
        if (head == null) {
            head = call;
        } else {
            tail.nextWake = call;
        }
        tail = call;
    }

    /** After a reaped batch (or a completion outside one): the first waiter wakes, and unparks the others. */
    void flush() {
        BlockingCall first = head;
        if (first != null) {
            head = tail = null;
            BlockingCall rest = first.nextWake;
            first.nextWake = null;
            first.wakeBatch(rest);
        }
    }
}
