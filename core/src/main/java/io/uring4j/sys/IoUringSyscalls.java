package io.uring4j.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The three io_uring system calls, through libc's variadic {@code syscall(long number, ...)}.
 *
 * <p>Every argument is passed as a {@code long}: the variadic convention promotes them anyway, and a
 * sign-extended {@code -1} fd must reach the kernel as -1. None of these handles is {@code critical}:
 * {@code io_uring_enter} blocks when it waits, and setup/register may sleep.
 */
public final class IoUringSyscalls {
    /** Same number on x86-64, aarch64, riscv64 and every asm-generic architecture. */
    public static final long NR_IO_URING_SETUP = 425;
    public static final long NR_IO_URING_ENTER = 426;
    public static final long NR_IO_URING_REGISTER = 427;

    /**
     * {@code syscall(number, six arguments)}: one handle of one shape for all three (the linker generates a stub per
     * shape); unused arguments are 0.
     */
    private static final MethodHandle SYSCALL7 = Native.libcWithErrno("syscall",
            Native.LONGS.appendArgumentLayouts(JAVA_LONG), Linker.Option.firstVariadicArg(1));

    private IoUringSyscalls() {
    }

    /** {@code io_uring_setup(entries, params)}: the ring fd, or {@code -errno}. */
    public static int setup(int entries, MemorySegment params) {
        MemorySegment state = Native.callState();
        try {
            long ret = (long) SYSCALL7.invokeExact(state, NR_IO_URING_SETUP, (long) entries, params.address(), 0L,
                    0L, 0L, 0L);
            return (int) Native.result(ret, state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * {@code io_uring_enter2(fd, to_submit, min_complete, flags, arg, argsz)}: the number of SQEs consumed,
     * or {@code -errno}. {@code arg} is a raw address (0 for none).
     */
    public static int enter(int fd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        return enter(Native.callState(), fd, toSubmit, minComplete, flags, arg, argSize);
    }

    /**
     * A buffer for {@link #enter(MemorySegment, int, int, int, int, long, long)} to capture errno into, for a
     * caller that makes all its calls from one thread (a ring's issuer) and so can skip the per-thread lookup.
     */
    public static MemorySegment newCallState(Arena arena) {
        return arena.allocate(Native.CALL_STATE);
    }

    /**
     * As {@link #enter(int, int, int, int, long, long)}, capturing errno into {@code callState} (from
     * {@link #newCallState}), which no other thread may use at the same time. On the hot path this spares a
     * thread-local lookup per call — several dependent loads, each a likely cache miss right after a system call.
     */
    public static int enter(MemorySegment callState, int fd, int toSubmit, int minComplete, int flags, long arg,
                            long argSize) {
        MemorySegment state = callState;
        try {
            long ret = (long) SYSCALL7.invokeExact(state, NR_IO_URING_ENTER, (long) fd,
                    Integer.toUnsignedLong(toSubmit), Integer.toUnsignedLong(minComplete),
                    Integer.toUnsignedLong(flags), arg, argSize);
            return (int) Native.result(ret, state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code io_uring_register(fd, opcode, arg, nr_args)}: an opcode-specific result, or {@code -errno}. */
    public static int register(int fd, int opcode, long arg, int nrArgs) {
        MemorySegment state = Native.callState();
        try {
            long ret = (long) SYSCALL7.invokeExact(state, NR_IO_URING_REGISTER, (long) fd,
                    Integer.toUnsignedLong(opcode), arg, Integer.toUnsignedLong(nrArgs), 0L, 0L);
            return (int) Native.result(ret, state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
