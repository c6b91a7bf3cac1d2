package io.uring4j.testkit;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Waiting for a state the test sets up, not for a duration: the bound only turns a hang into a failure. */
public final class Await {
    private static final long SETUP_SECONDS = 10;

    private Await() {
    }

    /** Polls {@code condition} until it holds; fails after ten seconds. */
    public static void awaitCondition(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETUP_SECONDS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waited too long for the test's setup").isNegative();
            Thread.sleep(1);
        }
    }

    /** Whether some thread is blocked entering {@code monitor} (a test holds it, to stop that thread there). */
    public static boolean someoneBlockedOn(Object monitor) {
        for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, false)) {
            if (t.getThreadState() == Thread.State.BLOCKED && t.getLockInfo() != null
                    && t.getLockInfo().getIdentityHashCode() == System.identityHashCode(monitor)) {
                return true;
            }
        }
        return false;
    }
}
