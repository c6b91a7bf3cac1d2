package io.uring4j.portable;

import io.uring4j.sys.Errno;
import io.uring4j.sys.Native;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.uring4j.sys.Native.callState;
import static io.uring4j.sys.Native.result;
import static io.uring4j.sys.Native.rethrow;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The five native AIO system calls (glibc has no wrappers), through libc's variadic {@code syscall(long nr, ...)}.
 * Unlike io_uring they are in Docker's default seccomp allowlist and untouched by {@code kernel.io_uring_disabled}.
 * Pointers are raw addresses; results are {@code >= 0} or {@code -errno}. Numbers exist for x86-64 and AArch64
 * (asm-generic); elsewhere every call answers -ENOSYS, so that callers fall back.
 */
final class Aio {
    private static final String ARCH = System.getProperty("os.arch");
    private static final boolean X86_64 = ARCH.equals("amd64") || ARCH.equals("x86_64");
    static final boolean SUPPORTED = X86_64 || ARCH.equals("aarch64");
    private static final long NR_SETUP = X86_64 ? 206 : 0;
    private static final long NR_DESTROY = X86_64 ? 207 : 1;
    private static final long NR_SUBMIT = X86_64 ? 209 : 2;
    private static final long NR_CANCEL = X86_64 ? 210 : 3;

    /**
     * One handle for all five: syscall(2) hands the kernel six registers whatever the count, so shorter calls pass
     * zeros for the arguments they lack. Every argument is a long, as the variadic convention promotes them.
     */
    private static final MethodHandle SYSCALL = Native.libcWithErrno("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1));

    private Aio() {
    }

    /** io_setup(nr_events, ctxp): 0 with the context id at {@code ctxp} (which must hold 0), or -errno. */
    static int setup(int nrEvents, long ctxp) {
        return (int) call(NR_SETUP, Integer.toUnsignedLong(nrEvents), ctxp, 0, 0, 0);
    }

    /** io_destroy(ctx): waits for every iocb in flight, then frees the context. */
    static int destroy(long ctx) {
        return (int) call(NR_DESTROY, ctx, 0, 0, 0, 0);
    }

    /** io_submit(ctx, nr, iocbpp): how many of the first iocbs were taken, or -errno if the first was not. */
    static int submit(long ctx, int nr, long iocbpp) {
        return (int) call(NR_SUBMIT, ctx, nr, iocbpp, 0, 0);
    }

    /** io_cancel(ctx, iocb, result): -EINPROGRESS if cancelling started, else -errno (EINVAL: not cancellable). */
    static int cancel(long ctx, long iocb, long result) {
        return (int) call(NR_CANCEL, ctx, iocb, result, 0, 0);
    }

    private static long call(long nr, long a, long b, long c, long d, long e) {
        if (!SUPPORTED) {
            return -Errno.ENOSYS;
        }
        MemorySegment s = callState();
        try {
            return result((long) SYSCALL.invokeExact(s, nr, a, b, c, d, e), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
