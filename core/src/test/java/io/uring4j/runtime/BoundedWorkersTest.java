package io.uring4j.runtime;

import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each loop's ring lets more io-wq workers run regular-file work at once than the kernel's 4 per CPU: on a small
 * machine that bound made virtual threads' syncs wait for one another in turns of 8. The unbounded class (sockets'
 * blocking work) keeps the kernel's limit.
 */
@BothEngines
class BoundedWorkersTest {
    @Test
    void loopsRaiseTheBoundedLimitAndKeepTheUnbounded() throws Exception {
        try (Uring byDefault = Uring.builder().loops(1).build();
             Uring asked = Uring.builder().loops(1).boundedWorkers(100).build()) {
            int[] limits = limits(byDefault);
            assertThat(limits[0]).as("bounded").isEqualTo(Math.max(64, 4 * Runtime.getRuntime().availableProcessors()));
            assertThat(limits[1]).as("unbounded, the kernel's").isPositive();
            assertThat(limits(asked)).containsExactly(100, limits[1]);
        }
    }

    /** The loop's io-wq limits, read on the loop (0, 0 sets nothing). */
    private static int[] limits(Uring uring) throws Exception {
        CompletableFuture<int[]> answer = new CompletableFuture<>();
        uring.loop(0).execute(() -> {
            try {
                answer.complete(uring.loop(0).ring().register().iowqMaxWorkers(0, 0));
            } catch (Exception e) {
                answer.completeExceptionally(e);
            }
        });
        return answer.get(30, TimeUnit.SECONDS);
    }
}
