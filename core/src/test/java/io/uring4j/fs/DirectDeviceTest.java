package io.uring4j.fs;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When a device's direct reads stop being waited for on carriers, and when they are tried there again. */
class DirectDeviceTest {
    private static final long SLOW = DirectDevice.SLOW_NANOS + 32 * DirectDevice.NANOS_PER_READ + 1;
    private static final long FAST = DirectDevice.SLOW_NANOS;

    @Test
    void aDeviceIsSlowOnlyAfterSlowBatchesInARow() {
        DirectDevice device = new DirectDevice();
        for (int i = 0; i < 10 * DirectDevice.SLOW_LIMIT; i++) {
            device.waited(i % DirectDevice.SLOW_LIMIT == 0 ? FAST : SLOW, 32);     // a fast batch breaks each run
        }
        device.waited(FAST, 32);
        assertThat(device.inline()).isTrue();
        for (int i = 0; i < DirectDevice.SLOW_LIMIT - 1; i++) {
            device.waited(SLOW, 32);
        }
        assertThat(device.inline()).isTrue();
        device.waited(SLOW, 32);
        assertThat(device.inline()).isFalse();
    }

    @Test
    void theAllowanceGrowsWithTheBatch() {
        DirectDevice device = new DirectDevice();
        for (int i = 0; i < DirectDevice.SLOW_LIMIT; i++) {
            device.waited(SLOW, 64);                    // slow for 32 reads, not for 64
        }
        assertThat(device.inline()).isTrue();
    }

    @Test
    void aSlowDeviceIsProbedOnceInAWhileAndAFastProbeBringsItBack() {
        DirectDevice device = slow();
        assertThat(inlineCalls(device, DirectDevice.PROBE_EVERY)).as("one probe").isEqualTo(1);
        device.waited(SLOW, 1);                         // the probe was slow: back to the loop at once
        assertThat(inlineCalls(device, DirectDevice.PROBE_EVERY - 1)).isZero();
        assertThat(device.inline()).as("the next probe").isTrue();
        device.waited(FAST, 1);
        assertThat(inlineCalls(device, 100)).as("fast again").isEqualTo(100);
    }

    @Test
    void oneLoneReadInEveryFewIsTimed() {
        DirectDevice device = new DirectDevice();
        assertThat(device.timeThisRead()).as("the first read").isTrue();
        int timed = 0;
        for (int i = 0; i < 10 * DirectDevice.TIME_EVERY; i++) {
            timed += device.timeThisRead() ? 1 : 0;
        }
        assertThat(timed).isEqualTo(10);
        assertThat(DirectDevice.TIME_EVERY * DirectDevice.SLOW_LIMIT).as("reads before a slow device is noticed")
                .isLessThanOrEqualTo(100);
    }

    private static DirectDevice slow() {
        DirectDevice device = new DirectDevice();
        for (int i = 0; i < DirectDevice.SLOW_LIMIT; i++) {
            device.waited(SLOW, 1);
        }
        return device;
    }

    private static int inlineCalls(DirectDevice device, int calls) {
        int inline = 0;
        for (int i = 0; i < calls; i++) {
            inline += device.inline() ? 1 : 0;
        }
        return inline;
    }
}
