/**
 * The runtime: event loops that own rings, a preallocated request table, and three API styles over it.
 *
 * <h2>Where things are</h2>
 * <ul>
 *   <li>{@code EventLoop}: the loop thread, its iteration and close, the hand-over queue, and the public API;
 *       {@code LoopRing}: its ring and request slots ({@code RequestTable}) — SQEs written, CQEs dispatched.</li>
 *   <li>{@code Waker}: the eventfd wake-up state machine; {@code SleepPolicy}: spin, bounded and batched sleeps;
 *       {@code SlotWaiters}: submissions waiting for a free slot; {@code WakeBatch}: one unpark per reaped batch.</li>
 *   <li>Requests: {@link io.uring4j.runtime.Op} and its ready-made factories; {@code OpFuture} and
 *       {@code BlockingCall}, which are their own op and handler; {@link io.uring4j.runtime.Chain}, which submits
 *       its linked steps itself. A {@code Submission} is what the loop queues as it is.</li>
 *   <li>{@code RingSetup}: the setup flags a loop's ring is created with, and the order they are dropped in.</li>
 * </ul>
 *
 * <h2>Loops</h2>
 * A {@link io.uring4j.runtime.Uring} owns N {@link io.uring4j.runtime.EventLoop}s. Each is a platform thread that
 * creates its ring itself (so it is the ring's single issuer) with SINGLE_ISSUER + DEFER_TASKRUN, TASKRUN_FLAG,
 * COOP_TASKRUN and SUBMIT_ALL, dropping a flag only when the kernel refuses it. An iteration runs handed-over
 * tasks, makes one {@code io_uring_enter} that submits and (when idle) waits, then reaps the whole CQ batch.
 * The loop is the ring's only waiter, so completions need no lock and no wake-up of another thread. Opt-in
 * {@link io.uring4j.runtime.UringBuilder#batchWait batch waits} (the kernel's min-timeout wait) let a busy loop
 * be woken once per batch of completions rather than per completion — the wake-up is paid by whichever CPU
 * completes the request, often a peer's.
 *
 * <h2>Requests</h2>
 * A request occupies a slot of the loop's {@code RequestTable} — our {@code io_kiocb}: about 40 bytes of heap
 * plus 64 bytes of native scratch, preallocated. Its user_data is {@code generation << 32 | slot}; a CQE whose
 * generation no longer matches is counted as stale and dropped, never delivered twice. The slot keeps the
 * request's {@link io.uring4j.runtime.Op} — and with it the memory the kernel may touch — referenced until the
 * final CQE (the one without {@code F_MORE}), whatever the caller does meanwhile: cancel, time out, be
 * interrupted, or close the runtime. Close cancels everything and keeps reaping until every request has
 * completed; only then is memory released. If the kernel never answers, the memory is leaked on purpose.
 *
 * <h2>Styles</h2>
 * <ul>
 *   <li>Callbacks: {@link io.uring4j.runtime.EventLoop#submit} with a reusable
 *       {@link io.uring4j.runtime.CompletionHandler}; on the loop thread this writes the SQE directly and
 *       allocates nothing.</li>
 *   <li>Futures: {@link io.uring4j.runtime.EventLoop#submitAsync}: one object per request, which is both the
 *       future and the handler.</li>
 *   <li>Blocking: {@link io.uring4j.runtime.EventLoop#call} parks the caller (a virtual thread unmounts);
 *       an interrupt cancels the request and still waits for its CQE before throwing.
 *       {@link io.uring4j.runtime.EventLoop#callBounded} is the same for regular-file I/O, whose hand-overs
 *       need not wake a loop that is sure to wake for a CQE anyway.</li>
 * </ul>
 * Futures and blocking calls take single-shot requests; a multishot one is refused (IllegalArgumentException)
 * before it reaches the kernel, since its CQEs each carry a result of their own (an accepted fd, a buffer).
 * A zero-copy send (SEND_ZC, SENDMSG_ZC) completes twice — its byte count with F_MORE, then an F_NOTIF CQE once
 * the kernel no longer reads the buffer —; callbacks see both, while futures and blocking calls report the count
 * at the notification, so a caller that got its answer may reuse the buffer.
 * {@link io.uring4j.runtime.Chain} links requests (soft, hard, link timeouts) with per-step results.
 * {@link io.uring4j.runtime.FdGuard} keeps an fd open while requests name it, for the files and sockets above: a
 * request's use is taken as it is prepared and released with its slot.
 *
 * <h2>Hand-over</h2>
 * Threads other than the loop enqueue a task on an MPSC queue and write the loop's eventfd only if the loop
 * announced it is going to sleep — at most one wake-up per sleep. A counter of threads inside the hand-over
 * (the kernel's percpu_ref lesson) keeps a closing loop alive until no one can still be enqueueing; the owner
 * thread never touches it.
 */
package io.uring4j.runtime;
