package io.uring4j.runtime;

import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.Features;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An idle loop with requests in flight — a server's armed receives — is not counted as waiting for I/O. The kernel
 * counts a task asleep in io_uring_enter with requests pending as iowait, and an idle CPU then shows as iowait in
 * /proc/stat; loops wait with IORING_ENTER_NO_IOWAIT unless the builder asks otherwise.
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

    @Test
    void anIdleLoopWithRequestsInFlightIsNotCountedAsIowait() throws Exception {
        try (IoUring probe = IoUring.open(2)) {
            assumeTrue(probe.hasFeature(Features.NO_IOWAIT), "the kernel lacks FEAT_NO_IOWAIT (6.15)");
        }
        // Alternating, so that another process's disk waits (counted in /proc/stat too) fall on both sides.
        long counted = 0;
        long notCounted = 0;
        for (int round = 0; round < 3; round++) {
            counted += iowaitTicksWhileIdle(true);
            notCounted += iowaitTicksWhileIdle(false);
        }
        // 1.5 s of a CPU is 150 ticks; the sleeping loop leaves its CPU idle unless something else runs there.
        assumeTrue(counted >= 40, "the machine is too busy to show the loop's iowait (" + counted + " ticks in 1.5 s)");
        assertThat(notCounted).as("iowait ticks in 1.5 s idle, against %d counted", counted).isLessThan(counted / 4);
    }

    /** System-wide iowait ticks over half a second while one loop sleeps with a request in flight. */
    private static long iowaitTicksWhileIdle(boolean iowait) throws Exception {
        try (Uring uring = Uring.builder().loops(1).iowait(iowait).build()) {
            uring.loop(0).submit(Op.timeout(Duration.ofMinutes(10)), (result, flags) -> { });
            Thread.sleep(200);                          // the loop goes to sleep in the kernel
            long before = iowaitTicks();
            Thread.sleep(500);
            return iowaitTicks() - before;
        }
    }

    /** The sum of every CPU's iowait field in /proc/stat (the fifth number of the "cpu" line). */
    private static long iowaitTicks() throws IOException {
        String cpu = Files.readAllLines(Path.of("/proc/stat")).getFirst();
        long[] fields = Arrays.stream(cpu.substring(3).trim().split("\\s+")).mapToLong(Long::parseLong).toArray();
        return fields[4];
    }
}
