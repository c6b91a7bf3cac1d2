package io.uring4j.runtime;

import io.uring4j.testkit.ChildJvm;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime's JFR events: emitted once JFR runs, and nothing of JFR touched before — the first use of an event
 * class loads JFR's metadata, a fifth of a second of a process's start.
 */
class RuntimeEventsTest {
    @Test
    void aRuntimeClosedWithWorkInFlightLoadsNothingOfJfrWhileItIsOff() throws Exception {
        String out = ChildJvm.output(CloseWithWorkProbe.class, "-verbose:class");
        assertThat(out).contains("closed with 1 in flight")
                .doesNotContain("jdk.jfr.internal.MetadataRepository")
                .doesNotContain(RuntimeEvents.class.getName() + "$CloseWithWork");
    }

    @Test
    void aCloseWithWorkInFlightIsRecordedOnceJfrRuns(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("close.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("io.uring4j.CloseWithWork");
            recording.start();
            CloseWithWorkProbe.closeWithOneInFlight();
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        assertThat(events).anySatisfy(e -> {
            assertThat(e.getEventType().getName()).isEqualTo("io.uring4j.CloseWithWork");
            assertThat(e.getInt("inFlight")).isEqualTo(1);
        });
    }

    /** A child JVM's program: a runtime closed while a long timer is in flight. */
    public static final class CloseWithWorkProbe {
        public static void main(String[] args) throws Exception {
            closeWithOneInFlight();
            System.out.println("closed with 1 in flight");
        }

        static void closeWithOneInFlight() throws Exception {
            try (Uring uring = Uring.builder().loops(1).build()) {
                var timer = uring.loop().submitAsync(Op.timeout(Duration.ofMinutes(10)));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (uring.loop().stats().inFlight() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                if (uring.loop().stats().inFlight() != 1 || timer.isDone()) {        // no AssertJ in the child
                    throw new IllegalStateException("the timer is not in flight: " + timer);
                }
            }
        }
    }
}
