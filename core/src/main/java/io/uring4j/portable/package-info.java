/**
 * The portable engine: io_uring's kernel side written in Java, for hosts where the kernel refuses io_uring
 * (seccomp EPERM, {@code kernel.io_uring_disabled}, ENOSYS, a memlock ENOMEM). Select it with
 * {@code IoUring.builder().engine(Engine.portable())} or {@code -During4j.engine=portable}, or let
 * {@code Engine.auto()} ({@code -During4j.engine=auto}) fall back to it when setup is refused; everything above
 * the ring runs unchanged.
 *
 * <h2>Where things are</h2>
 * The kernel's own seams, one class each: {@link io.uring4j.portable.PortableEngine} (setup, mmap, enter and
 * register by ring fd) hands a ring's enter to {@link io.uring4j.portable.PortableRing}, which wires the rest.
 * {@link io.uring4j.portable.SqConsumer} reads SQEs into {@link io.uring4j.portable.Request}s;
 * {@link io.uring4j.portable.OpDefs}, the counterpart of the kernel's {@code io_issue_defs}, defines each opcode
 * (needs a file, may block, pollable, buffer select; its prep and issue), with the larger families in
 * {@link io.uring4j.portable.ReadWrite}, {@link io.uring4j.portable.SocketOps}, {@link io.uring4j.portable.PathOps},
 * {@link io.uring4j.portable.Splice}, {@link io.uring4j.portable.MsgRing} and {@link io.uring4j.portable.Cancels};
 * {@link io.uring4j.portable.Links} issues requests and propagates chains (drain, link timeouts, chain cancel);
 * {@link io.uring4j.portable.CqProducer} posts CQEs (overflow, eventfd) and wakes the
 * {@link io.uring4j.portable.Waiter}. Requests wait on the {@link io.uring4j.portable.WorkQueue} (io-wq), the
 * {@link io.uring4j.portable.Timer}, the {@link io.uring4j.portable.Poller} (readiness, then
 * {@link io.uring4j.portable.TaskWork}) or native AIO ({@link io.uring4j.portable.DirectIo}). What the ring's lock
 * guards is one object, {@link io.uring4j.portable.RingLock}; the registered tables are
 * {@link io.uring4j.portable.FileTable}, {@link io.uring4j.portable.BufferTable} and
 * {@link io.uring4j.portable.BufRings}.
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
 *       CLOSE, FILES_UPDATE, FIXED_FD_INSTALL, POLL_ADD, POLL_REMOVE, and the socket opcodes of {@link io.uring4j.portable.SocketOps}) run
 *       inline in enter; blocking ones (file I/O, FSYNC, FADVISE, FALLOCATE, FTRUNCATE, STATX, SPLICE, TEE, and the path
 *       opcodes of {@link io.uring4j.portable.PathOps}: OPENAT, OPENAT2, RENAMEAT, UNLINKAT, MKDIRAT, SYMLINKAT,
 *       LINKAT) and anything with IOSQE_ASYNC
 *       go to a per-ring io-wq ({@link io.uring4j.portable.WorkQueue}) of workers issuing raw system calls
 *       through FFM, sorted as the kernel sorts them: at most {@code min(sq_entries, 4 × CPUs)} bound workers;
 *       unbound ones (up to 1024) for work on a pipe or socket, which may block forever; buffered writes to one
 *       regular file hashed by inode and run one at a time, in submission order. Reads are first issued
 *       in enter without blocking, as the kernel issues them (RWF_NOWAIT): cached data of a buffered file, or
 *       what a pipe holds, completes there; a read that would block and a positional read that came up short go
 *       to the io-wq. O_DIRECT reads and writes at an offset go to native AIO instead
 *       ({@link io.uring4j.portable.DirectIo}): one io_submit per SQ batch, and the completions come through an
 *       eventfd in the ring's epoll set, so direct I/O needs no worker thread and no hand-off (the io-wq stays
 *       the fallback where AIO is refused or full).</li>
 *   <li><b>Readiness.</b> As the kernel arms its internal poll: a request tries without blocking (RWF_NOWAIT,
 *       MSG_DONTWAIT, a zero-timeout poll), and if its file is not ready it is armed on the ring's
 *       {@link io.uring4j.portable.Poller} — one epoll set (EPOLLONESHOT per fd) for every pending request of
 *       the ring — and its thread moves on. On a DEFER_TASKRUN ring the issuer itself waits in epoll_wait
 *       inside enter and runs what became ready right there, as the kernel runs such a ring's task work only
 *       in the issuer's enter: no thread hand-off between readiness and the retry (io-wq completions and
 *       timeouts wake it through an eventfd in the set; IORING_SQ_TASKRUN, with TASKRUN_FLAG, is up while
 *       anything is armed). Otherwise — or once an eventfd is registered, which must hear of pending work while
 *       the issuer is away — a poller thread waits, and a ready request runs again on it, or, with
 *       COOP_TASKRUN + TASKRUN_FLAG or DEFER_TASKRUN, in the issuer's next enter (task work,
 *       IORING_SQ_TASKRUN). A read found ready is tried again without blocking; what may block goes to the
 *       io-wq. Cancel, LINK_TIMEOUT and ring close take an
 *       armed request off the poller (or out of the task work it waits in). A multishot POLL_ADD has an
 *       edge-triggered registration of its own (one CQE per wake-up).</li>
 *   <li><b>Provided buffers.</b> Buffer rings are read where the application writes them for the kernel
 *       ({@link io.uring4j.portable.BufRings}): the tail at byte 14, 16-byte entries, our own head; a receive
 *       takes the head buffer only once data landed in it. Legacy groups (PROVIDE_BUFFERS) are a FIFO of ours,
 *       taken from the front as the kernel's list is.</li>
 *   <li><b>Links.</b> When a request completes, its successor runs right there, on the same thread ({@code nxt}
 *       propagation); only blocking work found on a non-worker thread is queued. A failure or a short read or
 *       write cancels the rest with -ECANCELED unless the request was IO_HARDLINK; a prep failure cancels the
 *       whole chain. LINK_TIMEOUT is armed when its request is issued — except for work the kernel does in one
 *       issue (a splice, a statx, a path operation: not reads and writes), whose timeout the kernel starts
 *       only once that issue has returned, so it never bounds it; it ends -ECANCELED with the request.
 *       {@code -During4j.portable.links=requeue} ({@link io.uring4j.portable.LinkPropagation}) sends each
 *       successor back through the io-wq's queue instead, and {@code -During4j.portable.wait=condvar}
 *       ({@link io.uring4j.portable.Waiter}) makes waiters sleep on a condition variable every post signals: the
 *       designs these replace, chosen when a ring is built and kept to measure them
 *       ({@code ./uring4j bench --compare-portable}).</li>
 *   <li><b>Completions.</b> CQEs are posted under the ring lock with a release store of the CQ tail; a full
 *       CQ sends them to an ordered overflow list (FEAT_NODROP, IORING_SQ_CQ_OVERFLOW set while backlogged)
 *       flushed on the next enter. The waiter parks after publishing itself and the CQ tail it needs; posters
 *       unpark it once that tail is reached (or overflow or a TIMEOUT needs it) — a single waiter, no wait
 *       queue, one wake-up per min_complete rather than per CQE. Other threads waiting at the same time (a ring
 *       without SINGLE_ISSUER, where the kernel lets several wait) wait behind it, woken by every post.</li>
 *   <li><b>Registered files and direct descriptors.</b> A slot of the file table holds an fd of the engine's
 *       own ({@link io.uring4j.portable.FileTable}): a close-on-exec duplicate of a registered fd, or the fd an
 *       OPENAT, OPENAT2, SOCKET or ACCEPT with {@code file_index} made (close-on-exec, never put in a CQE), or
 *       one another portable ring passed with MSG_RING's MSG_SEND_FD.
 *       FILE_INDEX_ALLOC picks slots as the kernel's bitmap does (from a hint: past the last slot filled, or the
 *       slot last emptied; within REGISTER_FILE_ALLOC_RANGE). A request looks its fixed file up once, when first
 *       issued, as the kernel assigns req->file, and holds that fd: a slot emptied or filled again (CLOSE,
 *       FILES_UPDATE, a new direct descriptor, unregistering) closes its fd only once no request in flight
 *       holds it — found by scanning the request pool then. The lookup publishes its hold and reads the slot
 *       again (one volatile store), so that a change racing it is seen by one side or the other.</li>
 *   <li><b>Drain.</b> An IO_DRAIN chain waits until nothing is in flight, and everything submitted after it
 *       waits for it.</li>
 *   <li><b>Ring control.</b> Registered ring fds live in a per-thread table of 16 ({@link
 *       io.uring4j.portable.RingFds}), as in the task's io_uring context; an enter or register with the
 *       registered-ring flag looks there, any other looks up the fd. An R_DISABLED ring refuses enter with
 *       EBADFD until ENABLE_RINGS, whose caller becomes a SINGLE_ISSUER ring's issuer; one field checked on
 *       every enter covers both. Restrictions ({@link io.uring4j.portable.Restrictions}) are checked per SQE
 *       only on a restricted ring (a null check otherwise), personalities
 *       ({@link io.uring4j.portable.Personalities}) only for an SQE that names one. REGISTER_IOWQ_MAX_WORKERS
 *       sets the io-wq's bound and unbound limits (extra workers leave when their request is done);
 *       REGISTER_SYNC_CANCEL cancels as ASYNC_CANCEL does and waits for a running match to finish.</li>
 * </ul>
 *
 * <h2>Differences from the kernel (so far)</h2>
 * <ul>
 *   <li>A request inside its system call (a regular-file read, an open) cannot be cancelled: a cancel of it
 *       answers -EALREADY once it has finished, and a LINK_TIMEOUT that fires on a read or write lets it finish
 *       with its own result and posts -ETIME (the kernel's cancel answers -EALREADY and signals its worker).
 *       A cancel of a request that is being tried right now (by a worker or the poller) waits for its
 *       outcome: 0 if it stopped instead of arming its wait, else -EALREADY. With ALL/ANY such a request is
 *       counted, as the kernel counts its running io-wq work, and ends with its own result or -ECANCELED. A
 *       synchronous cancel (REGISTER_SYNC_CANCEL) of a running request looks again after sleeps of 20 µs
 *       doubling to 5 ms until it has finished (the kernel is woken by the CQE).</li>
 *   <li>A personality (sqe.personality) is checked — an unregistered one fails the request with -EINVAL — but
 *       not assumed: requests run with the process's credentials of the moment, the registered ones unless
 *       the process changed its ids since registering.</li>
 *   <li>A registered ring fd does not keep its ring alive: once the ring is closed, its slot (taken until
 *       unregistered, as in the kernel) answers EBADF.</li>
 *   <li>On a SINGLE_ISSUER ring only the issuer may enter at all: another thread's enter fails with EEXIST even
 *       when it only waits (GETEVENTS, nothing to submit), which the kernel refuses only on a DEFER_TASKRUN
 *       ring. Without SINGLE_ISSUER, several threads may wait at once, as in the kernel.</li>
 *   <li>accept4 has no per-call non-blocking flag: on a blocking listener the poller sees it readable and an
 *       io-wq worker accepts; should another process or ring take the connection in between, that worker waits
 *       in accept4 (uncancellable) for the next one. A blocking socket's CONNECT sets O_NONBLOCK on it for the
 *       one connect(2) call, so that the connect in progress waits on the poller.</li>
 *   <li>Without TASKRUN_FLAG, a request found ready runs on the poller thread, so its completion may come
 *       between two enters (the kernel's task work interrupts the task much the same way).</li>
 *   <li>Not set: IORING_CQE_F_SOCK_NONEMPTY (a receive never says more data is waiting).</li>
 *   <li>A cancelled request's CQE always comes before its canceller's; the kernel posts a poll-armed target's
 *       (through task work) after the canceller's.</li>
 *   <li>Paths (OPENAT, OPENAT2, STATX, the path opcodes) are read when the request runs, on its worker, not at
 *       submission as the kernel's getname does: they must stay valid until the CQE (the file layer keeps them
 *       so), and a bad path fails only its own request, never its chain at prep.</li>
 *   <li>Registered files and direct descriptors are fds: they take numbers in the process's fd table (and
 *       count against RLIMIT_NOFILE) where the kernel's slots take none. SPLICE's input slot
 *       (SPLICE_F_FD_IN_FIXED) is not held as the request's file is: a table update racing the moment a worker
 *       looks it up may let that splice use a closed or reused fd number. A cancel
 *       by fd matches requests by fd number (a fixed one by the slot's fd), where the kernel compares files: a
 *       plain fd does not match requests on a slot holding the same file.</li>
 *   <li>SEND_ZC and SENDMSG_ZC send by copying: their notification follows the result at once (and says
 *       "copied" with ZC_REPORT_USAGE, as the kernel's does on loopback).</li>
 *   <li>Not implemented, refused with -EINVAL: every opcode but those {@link io.uring4j.portable.OpDefs} defines,
 *       timeout clocks other than CLOCK_MONOTONIC,
 *       multishot and ETIME_SUCCESS timeouts, level-triggered multishot polls and poll updates,
 *       IOSQE_BUFFER_SELECT except on RECV, READ, READV and multishot RECVMSG (no single buffer-select RECVMSG,
 *       no bundles), kernel-allocated (MMAP) and incremental buffer rings, SEND_VECTORIZED, a multishot
 *       recv's total (optlen), resource tags, the setup flags SQPOLL, IOPOLL, NO_MMAP, ATTACH_WQ and those
 *       after NO_SQARRAY, the register opcodes IOWQ_AFF and those after PBUF_STATUS, and the enter flags
 *       ABS_TIMER, EXT_ARG_REG and NO_IOWAIT. Each answers as a kernel that predates it would (tags and the
 *       total are refused rather than ignored, which would drop their CQEs or never end the request).</li>
 * </ul>
 */
package io.uring4j.portable;
