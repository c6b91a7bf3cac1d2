package io.uring4j.portable;

/**
 * What an io-wq worker does with the chain of the request it picked, chosen when the ring is built. The ring
 * runs each successor in place ({@link #IN_PLACE}: the kernel's {@code nxt} propagation);
 * {@code -During4j.portable.links=requeue} picks {@link #REQUEUE}, the design it replaced, kept to measure the
 * two against each other ({@code ./uring4j bench --compare-portable}).
 */
enum LinkPropagation {
    /** The worker runs the request and its successors right there, one after the other. */
    IN_PLACE {
        @Override
        void runOnWorker(Links links, Request r) {
            links.issue(r, true);
        }
    },
    /** The worker runs the request; its successor goes back through the io-wq's queue. */
    REQUEUE {
        @Override
        void runOnWorker(Links links, Request r) {
            links.runOneOnWorker(r);
        }
    };

    abstract void runOnWorker(Links links, Request r);

    /** The propagation the {@code uring4j.portable.links} property chooses. */
    static LinkPropagation chosen() {
        return "requeue".equals(System.getProperty("uring4j.portable.links")) ? REQUEUE : IN_PLACE;
    }
}
