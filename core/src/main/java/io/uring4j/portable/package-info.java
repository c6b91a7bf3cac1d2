/**
 * The portable engine: io_uring's kernel side written in Java, for hosts where the kernel refuses io_uring
 * (seccomp EPERM, {@code kernel.io_uring_disabled}, ENOSYS, a memlock ENOMEM). Select it with
 * {@code IoUring.builder().engine(Engine.portable())} or {@code -During4j.engine=portable}, or let
 * {@code Engine.auto()} ({@code -During4j.engine=auto}) fall back to it when setup is refused; everything above
 * the ring runs unchanged.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Same memory.</b> {@code setup} allocates one page-aligned region for both rings (FEAT_SINGLE_MMAP)
 *       in the kernel's {@code struct io_rings} layout ({@link io.uring4j.portable.RingLayout}) and one for the
 *       SQEs, and reports the offsets through io_uring_params; {@code map} hands out views of them. Ring fds
 *       are fake, {@code 2^30 + n}, above any fd Linux can allocate.</li>
 *   <li><b>Requests.</b> A preallocated pool of {@link io.uring4j.portable.Request}s (our io_kiocb, 128 bytes),
 *       {@code cq_entries} of them, doubled on demand. SQEs (and READV/WRITEV iovecs) are copied at submission
 *       (SUBMIT_STABLE).</li>
 *   <li><b>Where work runs.</b> Non-blocking requests (NOP, TIMEOUT arming, TIMEOUT_REMOVE, ASYNC_CANCEL,
 *       CLOSE, POLL_REMOVE) run inline in enter; blocking ones (file I/O, OPENAT, STATX, FSYNC, FADVISE,
 *       POLL_ADD) and anything with IOSQE_ASYNC go to a per-ring io-wq ({@link io.uring4j.portable.WorkQueue})
 *       of at most {@code min(sq_entries, 4 × CPUs)} workers issuing raw system calls through FFM.</li>
 *   <li><b>Readiness.</b> Reads and writes try RWF_NOWAIT first; if the file is not ready (a pipe, a socket)
 *       the worker waits in poll(2) on the file and on its own eventfd, which cancel and LINK_TIMEOUT write
 *       to — so such waits can be cancelled — and stops counting against the io-wq bound, as io-wq moves
 *       work that may block forever to its unbounded workers ({@link io.uring4j.portable.Readiness}).</li>
 *   <li><b>Links.</b> When a request completes, its successor runs right there, on the same thread ({@code nxt}
 *       propagation); only blocking work found on a non-worker thread is queued. A failure or a short read or
 *       write cancels the rest with -ECANCELED unless the request was IO_HARDLINK; a prep failure cancels the
 *       whole chain. LINK_TIMEOUT is armed when its request is issued.</li>
 *   <li><b>Completions.</b> CQEs are posted under the ring lock with a release store of the CQ tail; a full
 *       CQ sends them to an ordered overflow list (FEAT_NODROP, IORING_SQ_CQ_OVERFLOW set while backlogged)
 *       flushed on the next enter. The waiter parks after publishing itself and the CQ tail it needs; posters
 *       unpark it once that tail is reached (or overflow or a TIMEOUT needs it) — a single waiter, no wait
 *       queue, one wake-up per min_complete rather than per CQE.</li>
 *   <li><b>Drain.</b> An IO_DRAIN chain waits until nothing is in flight, and everything submitted after it
 *       waits for it.</li>
 * </ul>
 *
 * <h2>Differences from the kernel (so far)</h2>
 * <ul>
 *   <li>A request inside its system call (a regular-file read, an open) cannot be cancelled: a cancel of it
 *       answers -EALREADY once it has finished, and a LINK_TIMEOUT that fires lets it finish with its own
 *       result. A cancel of a request a worker has just picked up waits for its outcome: 0 if it stopped at
 *       its readiness wait, else -EALREADY. With ALL/ANY such a request is not counted, though it may still
 *       end with -ECANCELED (the kernel arms its poll at submission and counts it).</li>
 *   <li>Every pending pipe or socket read, and every POLL_ADD, holds a worker thread in poll(2): thousands of
 *       them mean thousands of threads. An epoll-based poller (the kernel's internal poll arming) is next.</li>
 *   <li>Registered files are duplicated fds: a table update racing a worker that has just resolved the old
 *       slot may let that request use a closed or reused fd number (the kernel holds a file reference).</li>
 *   <li>Writes to one regular file are not serialized (io-wq hashes them by inode).</li>
 *   <li>Not implemented, refused with -EINVAL: every opcode but those {@link io.uring4j.portable.Ops} lists,
 *       direct descriptors (file_index on OPENAT), timeout clocks other than CLOCK_MONOTONIC, multishot and
 *       ETIME_SUCCESS timeouts, multishot polls and poll updates, IOSQE_BUFFER_SELECT, the setup flags SQPOLL,
 *       IOPOLL, DEFER_TASKRUN, R_DISABLED, NO_MMAP, ATTACH_WQ, and register opcodes other than files,
 *       buffers, eventfd and probe.</li>
 * </ul>
 */
package io.uring4j.portable;
