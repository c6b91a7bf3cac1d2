package io.uring4j.fs;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When a file's reads turn plain, how often they are probed, and what ends the run. */
class CacheHitsTest {
    @Test
    void readsTurnPlainOnlyAfterARunOfHits() {
        CacheHits hits = new CacheHits();
        for (int i = 1; i <= 10 * CacheHits.RUN; i++) {
            assertThat(hits.plain()).isFalse();
            hits.attempted(i % CacheHits.RUN != 0);         // a miss breaks each run one short
        }
        for (int i = 0; i < CacheHits.RUN - 1; i++) {
            assertThat(hits.plain()).isFalse();
            hits.attempted(true);
        }
        assertThat(hits.plain()).isFalse();
        hits.attempted(true);
        assertThat(hits.plain()).as("after the run").isTrue();
    }

    @Test
    void oneReadInAFewIsAProbeAndAMissingProbeEndsTheRun() {
        CacheHits hits = run();
        for (int probe = 0; probe < 10; probe++) {
            assertThat(plainCalls(hits, CacheHits.PROBE_EVERY - 1)).isEqualTo(CacheHits.PROBE_EVERY - 1);
            assertThat(hits.plain()).as("the probe").isFalse();
            hits.attempted(true);
        }
        assertThat(plainCalls(hits, CacheHits.PROBE_EVERY - 1)).isEqualTo(CacheHits.PROBE_EVERY - 1);
        assertThat(hits.plain()).as("the probe").isFalse();
        hits.attempted(false);
        assertThat(plainCalls(hits, 100)).as("after a missing probe").isZero();
    }

    private static CacheHits run() {
        CacheHits hits = new CacheHits();
        for (int i = 0; i < CacheHits.RUN; i++) {
            hits.attempted(true);
        }
        return hits;
    }

    private static int plainCalls(CacheHits hits, int calls) {
        int plain = 0;
        for (int i = 0; i < calls; i++) {
            plain += hits.plain() ? 1 : 0;
        }
        return plain;
    }
}
