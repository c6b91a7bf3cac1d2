/**
 * The ring core: an io_uring instance at liburing parity, in Java.
 *
 * <h2>Shape</h2>
 * {@link io.uring4j.ring.IoUringBuilder} sets a ring up (every setup flag; NO_SQARRAY tried first, as liburing
 * does; offsets always read from the kernel's {@code io_uring_params}); {@link io.uring4j.ring.IoUring} owns the
 * fd and the mappings and decides when to enter the kernel; {@link io.uring4j.ring.SubmissionQueue} hands out
 * {@link io.uring4j.ring.Sqe}s and publishes them; {@link io.uring4j.ring.CompletionQueue} reads
 * {@link io.uring4j.ring.Cqe}s and gives their slots back; {@link io.uring4j.ring.Registrar} is
 * {@code io_uring_register} (with {@link io.uring4j.ring.WaitRegion} for registered waits);
 * {@link io.uring4j.ring.Probe} and {@link io.uring4j.ring.Query} say what the kernel supports. The kernel side
 * sits behind {@link io.uring4j.ring.Engine} (setup, map, enter,
 * register, close), so a user-space engine can serve the same rings: {@link io.uring4j.ring.FallbackEngine}, which
 * the ring core finds through ServiceLoader and does not import. The numbers and struct offsets of the ABI
 * (where an opcode is defined: {@code abi.Opcode}) live in {@code io.uring4j.ring.abi}; the typed
 * {@code prepXxx} methods that fill an SQE are split by family into {@code SqeCore}, {@code SqeFilePrep},
 * {@code SqeNetPrep} and {@link io.uring4j.ring.Sqe}.
 *
 * <h2>Memory ordering</h2>
 * Written once, in {@code Barriers}: release store of the SQ tail, acquire load of the CQ tail, release store of
 * the CQ head, acquire load of the SQ head under SQPOLL, and a full fence before reading NEED_WAKEUP. Local
 * cursors ({@code sqeHead}, {@code sqeTail}, the CQ head) are plain fields: only this side writes them.
 *
 * <h2>When to enter</h2>
 * As liburing's {@code __io_uring_submit}: only if there is something to submit (and, under SQPOLL, the
 * kernel thread sleeps), or completions must be waited for or flushed (IOPOLL, CQ overflow, pending task work).
 * Waits with a timeout use {@code IORING_ENTER_EXT_ARG} and apply the timeout once. EINTR is retried.
 *
 * <h2>Allocation</h2>
 * Every SQE slot has one {@code Sqe} view created at setup; the CQ has one {@code Cqe} cursor; timed waits
 * reuse one argument block. Preparing, submitting, waiting and reaping allocate nothing once compiled
 * ({@code ZeroAllocationTest}).
 *
 * <h2>Safety</h2>
 * Ring memory lives in a shared arena: after {@link io.uring4j.ring.IoUring#close()} any access throws
 * instead of touching unmapped memory. Heap segments are refused wherever an address goes to the kernel. What
 * a request's SQE points at (buffers, iovecs, paths, timespecs, msghdrs) must stay alive until its final CQE;
 * this layer documents that contract, the runtime above it enforces it.
 *
 * <h2>Threads</h2>
 * A ring is driven by one thread; SINGLE_ISSUER and DEFER_TASKRUN rings are bound to an OS thread by the
 * kernel, which answers other threads with EEXIST (a virtual thread may move between carriers: drive such rings
 * from a platform thread).
 */
package io.uring4j.ring;
