package io.uring4j.runtime;

import io.uring4j.ring.abi.Features;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An idle loop with requests in flight — a server's armed receives — is not counted as waiting for I/O. The kernel
 * counts a task asleep in io_uring_enter with requests pending as iowait, and an idle CPU then shows as iowait in
 * /proc/stat; loops wait with IORING_ENTER_NO_IOWAIT unless the builder asks otherwise. (What /proc/stat shows is
 * system-wide and takes in every other process's disk waits, too noisy for a test on a shared machine: the figures
 * are in docs/performance.md.)
 */
class IowaitTest {
    @Test
    void loopsWaitWithNoIowaitUnlessAskedTo() throws Exception {
        try (Uring quiet = Uring.builder().loops(1).build(); Uring counted = Uring.builder().loops(1).iowait(true).build()) {
            boolean kernelCanTell = quiet.loop(0).ring().hasFeature(Features.NO_IOWAIT);
            assertThat(onLoop(quiet, () -> quiet.loop(0).ring().countsIowait())).isEqualTo(!kernelCanTell);
            assertThat(onLoop(counted, () -> counted.loop(0).ring().countsIowait())).isTrue();
        }
    }

    private static boolean onLoop(Uring uring, BooleanSupplier question) throws Exception {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        uring.loop(0).execute(() -> answer.complete(question.getAsBoolean()));
        return answer.get();
    }
}
