package io.uring4j.fs;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.fail;

/**
 * Plumbing for the differential tests, which run one seeded random program against a JDK channel and uring4j's
 * drop-in and compare every step's outcome as text: a return value (and what a buffer holds after), or the
 * exception's class and message. A divergence fails with the seed and the steps that led to it, so that
 * {@code -During4j.test.differential.seed=S -During4j.test.differential.iterations=1} replays it.
 */
public final class Differential {
    /** How many programs each differential test runs; a small number by default, so the suite stays fast. */
    public static final String ITERATIONS = "uring4j.test.differential.iterations";
    /** The seed of the first program; program i has seed + i. */
    public static final String SEED = "uring4j.test.differential.seed";

    /** Prints every step as it is compared. */
    public static final boolean TRACE = Boolean.getBoolean("uring4j.test.differential.trace");
    /** How long a call that should not block may take before the test calls it blocked: a hang, not a speed. */
    private static final java.time.Duration HANG = java.time.Duration.ofSeconds(20);

    private final long seed;
    private final List<String> steps = new ArrayList<>();
    private long last = System.nanoTime();

    public Differential(long seed) {
        this.seed = seed;
    }

    /** The seeds to run: {@code byDefault} programs from a fixed seed, unless the system properties say otherwise. */
    public static long[] seeds(int byDefault) {
        int n = Integer.getInteger(ITERATIONS, byDefault);
        long first = Long.getLong(SEED, 1L);
        long[] seeds = new long[n];
        for (int i = 0; i < n; i++) {
            seeds[i] = first + i;
        }
        return seeds;
    }

    /** Records a step whose outcome was {@code jdk} on the JDK's channel and {@code ours} on ours; fails if they differ. */
    public void same(String step, String jdk, String ours) {
        steps.add(step + " -> " + jdk);
        if (TRACE) {
            long now = System.nanoTime();
            System.out.printf("seed %d (%d ms): %s -> %s%n", seed, (now - last) / 1_000_000, step, jdk);
            last = now;
        }
        if (!jdk.equals(ours)) {
            int from = Math.max(0, steps.size() - 40);
            fail("divergence at step %d of seed %d: %s%n  jdk:  %s%n  ours: %s%nthe steps before (from %d):%n  %s",
                    steps.size(), seed, step, jdk, ours, from + 1, String.join("\n  ", steps.subList(from, steps.size())));
        }
    }

    /** What {@code call} did: "= value" or "! exception". */
    public static String outcome(Callable<?> call) {
        try {
            return "= " + call.call();
        } catch (Throwable t) {
            return "! " + describe(t);
        }
    }

    /**
     * An exception as the caller sees it: the nearest class a caller can name (the JDK throws some of its
     * internal subclasses, e.g. {@code sun.net.ConnectionResetException}, which no one else can) and the message.
     */
    public static String describe(Throwable t) {
        Class<?> c = t.getClass();
        while (!c.getModule().isExported(c.getPackageName())) {
            c = c.getSuperclass();
        }
        return c.getName() + ": " + t.getMessage();
    }

    /**
     * Runs {@code call} on a new thread (virtual or platform), with its interrupt status set first if
     * {@code interrupted}; its outcome and the interrupt status it ended with.
     */
    public static String onThread(boolean virtual, boolean interrupted, Callable<?> call) throws InterruptedException {
        AtomicReference<String> result = new AtomicReference<>();
        Runnable body = () -> {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            String o = outcome(call);
            result.set(o + " (interrupted: " + Thread.currentThread().isInterrupted() + ")");
        };
        Thread t = virtual ? Thread.ofVirtual().start(body) : Thread.ofPlatform().start(body);
        if (!t.join(HANG)) {
            return "! still blocked after " + HANG.toSeconds() + " s";    // its channel's close at the end ends it
        }
        return result.get();
    }

    /** A buffer's position, limit and contents (all of them, as a hash), for comparing what a call did to it. */
    public static String state(ByteBuffer b) {
        ByteBuffer all = b.duplicate().clear();
        byte[] bytes = new byte[all.remaining()];
        all.get(bytes);
        return b.position() + "/" + b.limit() + "#" + Integer.toHexString(Arrays.hashCode(bytes));
    }

    public static String state(ByteBuffer[] bs) {
        StringBuilder s = new StringBuilder("[");
        for (ByteBuffer b : bs) {
            s.append(state(b)).append(' ');
        }
        return s.append(']').toString();
    }
}
