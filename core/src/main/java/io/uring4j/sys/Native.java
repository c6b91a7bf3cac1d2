package io.uring4j.sys;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The one place that links native functions. Calls that can fail capture errno into a per-thread segment
 * (reused: capturing allocates nothing after a thread's first call, nor on a new virtual thread), and results
 * follow the liburing convention: {@code >= 0} on success, {@code -errno} on failure.
 *
 * <p>Public for the library's other bindings (the portable engine's system calls), not as an API.
 */
public final class Native {
    static final Linker LINKER = Linker.nativeLinker();

    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** Where a thread's one-element iovec sits in its capture segment, 8-aligned after the errno state. */
    static final long IOVEC_OFFSET = (CALL_STATE.byteSize() + 7) & ~7L;
    /** A thread's capture segment, which also holds one iovec for calls that need a pointer to one. */
    private static final ThreadScratch STATE = new ThreadScratch(IOVEC_OFFSET + 16);

    private Native() {
    }

    /**
     * The one shape the integer-only libc functions are linked with: six {@code long}s in, a {@code long} out. The
     * linker generates a stub per shape, some milliseconds each as the first runtime starts (most of a small
     * program's run under the file-system provider), and shares it between the functions of one shape. The C calling
     * conventions of x86-64 and aarch64 pass six integer arguments in registers: a function that takes fewer
     * ignores the rest, an {@code int} argument is the low half of its register, and an {@code int} result is the
     * low half of the one returned — cast it to {@code int} before comparing it with -1.
     */
    static final FunctionDescriptor LONGS = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
            JAVA_LONG, JAVA_LONG, JAVA_LONG);

    /**
     * Calls a {@link #LONGS} function linked with {@link #libcWithErrno}: its {@code long} result (an address, a
     * count), or {@code -errno}. A segment passed by address must be kept reachable by the caller until this returns.
     */
    static long callLong(MethodHandle function, long a, long b, long c, long d, long e, long f) {
        MemorySegment state = callState();
        try {
            return result((long) function.invokeExact(state, a, b, c, d, e, f), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@link #callLong} for a function whose C result is an {@code int}: the low half of the register, or -errno. */
    static int callInt(MethodHandle function, long a, long b, long c, long d, long e, long f) {
        MemorySegment state = callState();
        try {
            return (int) result((int) (long) function.invokeExact(state, a, b, c, d, e, f), state);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A libc function whose errno is captured: the handle takes the capture segment as its first argument. */
    public static MethodHandle libcWithErrno(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        Linker.Option[] all = new Linker.Option[options.length + 1];
        System.arraycopy(options, 0, all, 0, options.length);
        all[options.length] = CAPTURE_ERRNO;
        return libc(name, descriptor, all);
    }

    /** A libc function linked as is: for those that report errors in their return value, not in errno. */
    public static MethodHandle libc(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(symbol(name), descriptor, options);
    }

    static MemorySegment symbol(String name) {
        return LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: " + name));
    }

    /**
     * The calling thread's errno capture segment (a virtual thread's carrier's): pass it and read it before
     * anything that may park ({@link ThreadScratch}).
     */
    public static MemorySegment callState() {
        return STATE.get();
    }

    /** Turns a libc return value into the {@code -errno} convention. */
    public static long result(long ret, MemorySegment state) {
        return ret == -1 ? -(int) ERRNO.get(state, 0L) : ret;
    }

    /** invokeExact declares Throwable; a downcall itself throws only unchecked errors. */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
