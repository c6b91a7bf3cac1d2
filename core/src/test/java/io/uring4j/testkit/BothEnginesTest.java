package io.uring4j.testkit;

import io.uring4j.ring.IoUring;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The both-engines run really is on the portable engine: its property reaches every builder in that JVM. */
@BothEngines
class BothEnginesTest {
    @Test
    void ringsBuiltWithoutAnEngineComeFromTheOneThePropertyNames() throws Exception {
        assumeTrue("portable".equals(System.getProperty("uring4j.engine")), "not the both-engines run");
        try (IoUring ring = IoUring.builder().build()) {
            assertThat(ring.engineUsed().name()).isEqualTo("portable");
        }
    }
}
