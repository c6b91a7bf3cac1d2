package io.uring4j.sys;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The measured cost of a system call: the kernel's round trip, without the downcall's own cost. */
class SyscallCostTest {
    @Test
    void aSystemCallCostsMoreThanACallThatStaysInUserSpaceAndIsMeasuredOnce() {
        long nanos = SyscallCost.nanos();
        assertThat(nanos).as("getppid over getpagesize, per call").isPositive().isLessThan(1_000_000);
        assertThat(SyscallCost.nanos()).isEqualTo(nanos);
    }
}
