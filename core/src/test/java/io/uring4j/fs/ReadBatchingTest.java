package io.uring4j.fs;

import org.junit.jupiter.api.Test;

import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Whether virtual threads' page-cache reads are batched: by setting, else by what a system call costs. */
class ReadBatchingTest {
    private static final LongSupplier NOT_ASKED = () -> {
        throw new AssertionError("measured although the setting decides");
    };

    @Test
    void trueAndFalseDecideWithoutMeasuring() {
        assertThat(ReadBatching.batchCached("true", NOT_ASKED)).isTrue();
        assertThat(ReadBatching.batchCached("FALSE", NOT_ASKED)).isFalse();
    }

    @Test
    void autoBatchesWhereASystemCallCostsMoreThanTheThreadSwitches() {
        long from = ReadBatching.BATCH_FROM_NANOS;
        assertThat(ReadBatching.batchCached("auto", () -> 2_000)).as("a VM that traps system calls").isTrue();
        assertThat(ReadBatching.batchCached("auto", () -> from)).isTrue();
        assertThat(ReadBatching.batchCached("auto", () -> from - 1)).isFalse();
        assertThat(ReadBatching.batchCached("auto", () -> 175)).as("bare metal, ordinary VMs").isFalse();
        assertThat(ReadBatching.batchCached("yes please", () -> 2_000)).as("anything else is auto").isTrue();
    }
}
