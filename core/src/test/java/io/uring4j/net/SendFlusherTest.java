package io.uring4j.net;

import org.junit.jupiter.api.Test;

import static io.uring4j.net.SendFlusher.MAX_PERIOD;
import static io.uring4j.net.SendFlusher.MIN_PERIOD;
import static io.uring4j.net.SendFlusher.nextPeriod;
import static org.assertj.core.api.Assertions.assertThat;

/** The flusher's period: its looks thin out while event loops select by themselves, and come back when needed. */
class SendFlusherTest {

    @Test
    void looksThatFindSelectorsSelectingDoubleThePeriodUpToItsBound() {
        long period = MIN_PERIOD;
        for (long expected : new long[] {2 * MIN_PERIOD, 4 * MIN_PERIOD, MAX_PERIOD, MAX_PERIOD}) {
            period = nextPeriod(period, false, true);
            assertThat(period).isEqualTo(expected);
        }
    }

    @Test
    void aLookThatFlushedBringsThePeriodBack() {
        assertThat(nextPeriod(MAX_PERIOD, true, true)).isEqualTo(MIN_PERIOD);
        assertThat(nextPeriod(MAX_PERIOD, true, false)).isEqualTo(MIN_PERIOD);
    }

    @Test
    void aLookThatFoundNobodySelectingBringsThePeriodBack() {
        assertThat(nextPeriod(MAX_PERIOD, false, false)).isEqualTo(MIN_PERIOD);
    }
}
