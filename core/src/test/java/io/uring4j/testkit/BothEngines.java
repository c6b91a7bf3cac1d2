package io.uring4j.testkit;

import org.junit.jupiter.api.Tag;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test class that runs on both engines: once in the ordinary run, and again in core/pom.xml's
 * {@code both-engines} execution, a JVM of its own with {@code uring4j.engine=portable}, so each
 * {@code IoUring.builder()} and {@code Uring.builder()} in it builds a portable ring. Intended differences are
 * skipped inside the tests themselves with the reason ({@code Rings.kernelOnly}); opcodes the engine lacks
 * (URING_CMD, FUTEX_WAIT, ...) are skipped by probe, as on an older kernel. To run any other test on the portable
 * engine: {@code -During4j.engine=portable}.
 *
 * <p>Not so marked: ZeroAllocationTest, which measures allocation in a JVM of its own and runs each case on both
 * engines there (see core/pom.xml); EngineSelectionTest, which chooses engines itself; and the classes on features
 * the engine lacks altogether (newer opcodes: NewerOpsTest; SQPOLL, IOPOLL, NO_MMAP and ATTACH_WQ setups:
 * SetupModesTest).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(BothEngines.TAG)
@net.jqwik.api.Tag(BothEngines.TAG)
public @interface BothEngines {
    /** The tag core/pom.xml's {@code both-engines} execution selects. */
    String TAG = "both-engines";
}
