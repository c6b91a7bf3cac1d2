package io.uring4j.testkit;

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
}
