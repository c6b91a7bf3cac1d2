package io.uring4j.portable;

/**
 * A first-in first-out list of requests linked through {@link Request#nextQueued}: nothing to allocate per
 * request. Not thread-safe: its owner holds its lock.
 */
final class RequestFifo {
    private Request head;
    private Request tail;

    boolean isEmpty() {
        return head == null;
    }

    /** The first request, whose {@code nextQueued} leads through the rest; null if empty. */
    Request peek() {
        return head;
    }

    void add(Request r) {
        r.nextQueued = null;
        addChain(r, r);
    }

    /** Appends {@code first} and what follows it through {@code nextQueued}, up to {@code last}. */
    void addChain(Request first, Request last) {
        if (tail == null) {
            head = first;
        } else {
            tail.nextQueued = first;
        }
        tail = last;
    }

    /** Takes the first request off (unlinked), or null. */
    Request poll() {
        Request r = head;
        if (r != null) {
            head = r.nextQueued;
            if (head == null) {
                tail = null;
            }
            r.nextQueued = null;
        }
        return r;
    }

    /** Takes everything: the first request, still linked to the rest. */
    Request takeAll() {
        Request all = head;
        head = tail = null;
        return all;
    }

    /** Takes {@code r} out if it is here. */
    boolean unlink(Request r) {
        Request prev = null;
        for (Request q = head; q != null; prev = q, q = q.nextQueued) {
            if (q == r) {
                if (prev == null) {
                    head = q.nextQueued;
                } else {
                    prev.nextQueued = q.nextQueued;
                }
                if (tail == q) {
                    tail = prev;
                }
                q.nextQueued = null;
                return true;
            }
        }
        return false;
    }
}
