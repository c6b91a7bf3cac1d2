package io.uring4j.ring;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The barrier recipe, written once: every access to a field that the kernel reads or writes concurrently
 * (ring heads, tails and flags; the buffer-ring tail) goes through these methods, whose names state the
 * ordering. Pairings, as in liburing's barrier.h:
 * <ul>
 *   <li>our {@code setRelease(sq tail)} pairs with the kernel's acquire of it: SQE contents are visible first;</li>
 *   <li>our {@code getAcquire(cq tail)} pairs with the kernel's release: CQE contents are visible after;</li>
 *   <li>our {@code setRelease(cq head)} keeps the kernel from reusing a slot before we have read it;</li>
 *   <li>{@code getOpaque} is READ_ONCE: a fresh value, no ordering;</li>
 *   <li>{@link #fullFence()} orders a tail store before a flags load (the SQPOLL wake-up check).</li>
 * </ul>
 * The handles are static final and invoked exactly (long offsets), which is what lets the JIT compile each to
 * a plain move on x86 (TSO) and to ldar/stlr on aarch64.
 */
final class Barriers {
    private static final VarHandle INT = JAVA_INT.varHandle().withInvokeExactBehavior();
    private static final VarHandle SHORT = JAVA_SHORT.varHandle().withInvokeExactBehavior();

    private Barriers() {
    }

    static int getAcquire(MemorySegment s, long offset) {
        return (int) INT.getAcquire(s, offset);
    }

    static int getOpaque(MemorySegment s, long offset) {
        return (int) INT.getOpaque(s, offset);
    }

    static void setRelease(MemorySegment s, long offset, int value) {
        INT.setRelease(s, offset, value);
    }

    static void setOpaque(MemorySegment s, long offset, int value) {
        INT.setOpaque(s, offset, value);
    }

    static void setShortRelease(MemorySegment s, long offset, short value) {
        SHORT.setRelease(s, offset, value);
    }

    static void fullFence() {
        VarHandle.fullFence();
    }
}
