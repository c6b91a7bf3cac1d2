package io.uring4j.sys;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * What one system call costs on this machine: about 100–250 ns on bare metal and ordinary VMs, microseconds where
 * a hypervisor traps each one (PVM, nested virtualisation) or a sandbox intercepts it (gVisor). Whether sharing
 * one {@code io_uring_enter} among several threads repays the thread switches the sharing takes turns on it.
 *
 * <p>Measured once, on first use: the median over short rounds of the time per call of {@code getppid} (a system
 * call that does next to nothing) minus that of {@code getpagesize} (a libc call that does nothing) just before
 * it. The difference cancels the downcall's own cost, which falls tenfold as the JIT compiles the rounds; the
 * median drops rounds that a compilation or a preemption stretched. Ten milliseconds at most here; on a cold
 * JVM an estimate can be off by a factor of two, which the users of the figure allow for.
 */
public final class SyscallCost {
    private static final MethodHandle GETPPID =
            Native.LINKER.downcallHandle(Native.symbol("getppid"), FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle GETPAGESIZE =
            Native.LINKER.downcallHandle(Native.symbol("getpagesize"), FunctionDescriptor.of(JAVA_INT));
    private static final int ROUNDS = 31;
    private static final int CALLS = 64;

    private SyscallCost() {
    }

    /** Nanoseconds a system call adds to a downcall here, measured on the first call of this method. */
    public static long nanos() {
        return Measured.NANOS;
    }

    private static final class Measured {
        static final long NANOS = measure();
    }

    /** A fresh measurement. */
    static long measure() {
        long[] differences = new long[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            long call = nanosPerCall(GETPAGESIZE);
            differences[round] = nanosPerCall(GETPPID) - call;
        }
        Arrays.sort(differences);
        return Math.max(0, differences[ROUNDS / 2]);
    }

    private static long nanosPerCall(MethodHandle noArgsToInt) {
        long start = System.nanoTime();
        try {
            for (int i = 0; i < CALLS; i++) {
                int ignored = (int) noArgsToInt.invokeExact();
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        return (System.nanoTime() - start) / CALLS;
    }
}
