package io.uring4j.runtime;

import com.sun.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a request through the future API allocates on its loop, warm: the future itself and nothing else of
 * uring4j's, whatever the result. The caller's own continuation ({@code whenComplete}: a dependent future and a
 * completion node, 64 bytes with compressed class pointers) is the JDK's and counted too, as the bench counts
 * it. Runs in the zero-allocation JVM (see core/pom.xml).
 */
class FutureAllocationTest {
    /** A 4,096-byte read's result, above Integer's cache of -128..127. */
    private static final int RESULT = 4096;
    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Each completion submits the next request from the loop thread, as {@code bench --api future} does. */
    private static final class Chain implements BiConsumer<Integer, Throwable> {
        final EventLoop loop;
        final Op op = Op.nop(RESULT);
        final CompletableFuture<Long> done = new CompletableFuture<>();
        long remaining;
        long startBytes;

        Chain(EventLoop loop) {
            this.loop = loop;
        }

        void start(long ops) {
            remaining = ops;
            loop.execute(() -> {
                startBytes = THREADS.getCurrentThreadAllocatedBytes();
                loop.submitAsync(op).whenComplete(this);
            });
        }

        @Override
        public void accept(Integer result, Throwable failure) {
            if (failure != null || result != RESULT) {
                done.completeExceptionally(failure != null ? failure : new AssertionError("result " + result));
            } else if (--remaining == 0) {
                done.complete(THREADS.getCurrentThreadAllocatedBytes() - startBytes);
            } else {
                loop.submitAsync(op).whenComplete(this);
            }
        }
    }

    @Test
    void aFutureRequestAllocatesTheFutureAndTheCallersContinuationOnly() throws Exception {
        int ops = 200_000;
        try (Uring uring = Uring.builder().loops(1).build()) {
            double best = Double.MAX_VALUE;
            for (int run = 0; run < 8; run++) {            // the first runs warm the JIT; the best counts
                Chain chain = new Chain(uring.loop());
                chain.start(ops);
                best = Math.min(best, chain.done.get(60, TimeUnit.SECONDS) / (double) ops);
            }
            // OpFuture (48 bytes) + the JDK's dependent future (24) and UniWhenComplete node (40); a boxed
            // result per request would add 16.
            assertThat(best).as("bytes per request").isLessThanOrEqualTo(112.5);
        }
    }
}
