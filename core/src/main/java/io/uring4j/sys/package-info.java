/**
 * The system-call layer: the io_uring syscalls and the few libc functions the ring needs, linked once through
 * the FFM {@link java.lang.foreign.Linker}.
 *
 * <h2>Conventions</h2>
 * <ul>
 *   <li>Results follow liburing's convention: {@code >= 0} on success, {@code -errno} on failure. Callers above
 *       turn failures into {@link io.uring4j.sys.ErrnoException}s that name the operation and the errno.</li>
 *   <li>errno is captured with {@code Linker.Option.captureCallState("errno")} into a per-thread segment
 *       ({@link io.uring4j.sys.ThreadScratch}: a platform thread's own, a virtual thread's carrier's), so a call
 *       allocates nothing, nor does a new virtual thread's first call. What such a segment holds is read before
 *       anything that could park the caller.</li>
 *   <li>{@code io_uring_setup/enter/register} go through libc's variadic {@code syscall(long, ...)} with
 *       {@code firstVariadicArg(1)} and every argument passed as a {@code long} (a {@code -1} fd must arrive
 *       sign-extended).</li>
 *   <li>No handle that can block is {@code critical}: a critical call holds off the GC for its duration.</li>
 *   <li>Method handles are {@code static final} and invoked exactly, which lets the JIT inline the stubs.</li>
 * </ul>
 */
package io.uring4j.sys;
