/**
 * TCP and UDP on io_uring, over the runtime's event loops, in its styles.
 *
 * <h2>Blocking and futures: {@link io.uring4j.net.TcpSocket}, {@link io.uring4j.net.TcpListener}</h2>
 * Each read, write, accept, connect and shutdown is one request on the socket's loop; a blocking call parks the
 * caller, so a virtual thread per connection costs no carrier while it waits. A connect timeout is a LINK_TIMEOUT
 * linked to the CONNECT: the kernel cancels the connect itself. {@code close()} cancels the socket's requests
 * by fd (ASYNC_CANCEL with CANCEL_FD — a request holds its own file reference, so close alone would leave it
 * running) and closes the fd once the last request naming it has ended ({@link io.uring4j.runtime.FdGuard}: a
 * number closed under a request about to be submitted could be reused by the next socket); the interrupted
 * calls throw {@code SocketException("Socket closed")}.
 *
 * <h2>UDP: {@link io.uring4j.net.UdpSocket}, {@link io.uring4j.net.MessageOp}</h2>
 * Each datagram is one SENDMSG or RECVMSG request. The msghdr, its iovec and the sockaddr belong to the op
 * ({@link io.uring4j.net.NetOps#sendmsg}, {@link io.uring4j.net.NetOps#recvmsg}), not to the request's scratch:
 * they do not fit its 64 bytes, and a receive's sender and MSG_TRUNC flag are read after the completion, when
 * the slot may already serve another request. The loop keeps the op referenced until the final CQE, so the
 * kernel never writes into freed memory; a callback-style receiver resubmits one op and allocates nothing.
 *
 * <h2>Zero-copy sends and direct descriptors</h2>
 * {@link io.uring4j.net.NetOps#sendZc} (and {@link io.uring4j.net.TcpSocket#writeZeroCopy}) sends from the
 * caller's pages; the request, and the buffer with it, is held until the kernel's F_NOTIF CQE, and the future and
 * blocking styles answer only then. {@link io.uring4j.net.NetOps#acceptDirect} (single or multishot) installs
 * connections in the loop's registered file table ({@link io.uring4j.runtime.UringBuilder#directDescriptors});
 * the slot serves {@code recvDirect}/{@code sendDirect} with IOSQE_FIXED_FILE, {@code Op.cancelDirect} and
 * {@code Op.closeDirect}, on that loop only.
 *
 * <h2>Loop style: {@link io.uring4j.net.Tcp}, {@link io.uring4j.net.Connection}, {@link io.uring4j.net.ConnectionHandler}</h2>
 * <ul>
 *   <li>Accept: one listening socket with one multishot ACCEPT on one loop, which hands connections to the loops
 *       in turn — a port in use is refused, as with the JDK; or, asked for, one socket per loop with SO_REUSEPORT,
 *       each with its own multishot ACCEPT, so the kernel spreads connections and none is handed between threads.
 *       Receives and accepts are standing requests: they do not count against
 *       {@link io.uring4j.runtime.UringBuilder#maxInFlight}, so idle connections take none of the slots sends
 *       need.</li>
 *   <li>Receive: one multishot RECV per connection, picking buffers from its loop's provided-buffer ring
 *       (memory per loop, not per connection). Where the kernel consumes buffers incrementally (6.12) a receive
 *       takes only its bytes and the next, of any connection, lands behind them; else it takes a whole buffer. A
 *       buffer goes back to the ring as soon as the handler that saw it returns (incrementally: once the kernel
 *       has filled it). If the ring runs dry inside one reap batch the receive ends with ENOBUFS, the data stays
 *       queued in the socket, and the connection re-arms: nothing is lost, nothing is delivered twice.</li>
 *   <li>Send: handlers write into a per-connection output buffer; after the callback everything pending goes out
 *       in one SEND, and at most one SEND per connection is in flight, so writes made meanwhile batch into the
 *       next. Pipelined requests in one read cost one write.</li>
 *   <li>Back-pressure: above {@link io.uring4j.net.Tcp.Config#writeHighWater()} pending bytes the connection
 *       cancels its receive, so the peer's data waits in the kernel (and TCP flow control slows the peer) until
 *       the output has drained. Memory per connection is bounded by the high-water mark plus one ring's worth.</li>
 *   <li>Allocation: a connection's ops and completion handlers are allocated once, when it opens; data is
 *       handed to {@code onData} as the whole provided buffer, an offset and a length, not as a fresh slice. The steady
 *       state allocates nothing in this package (the loop test measures it with ThreadMXBean; what remains is the
 *       JDK slicing its errno-capture segment once per {@code io_uring_enter}).</li>
 *   <li>Close: a connection shuts its socket down (which ends a SEND stuck on a full buffer and the RECV), cancels
 *       the receive, and closes the fd and frees the memory a request may still touch once the connection's last
 *       request has completed: a send prepared but not yet submitted names the fd by number, which must not
 *       meanwhile go to another socket.
 *       Closing the runtime cancels every request; each connection then closes its socket, and a loop's buffer
 *       ring is released once its last request has completed.</li>
 * </ul>
 *
 * <h2>Drop-in channels: {@link io.uring4j.net.UringSocketChannel}, {@link io.uring4j.net.UringServerSocketChannel}</h2>
 * Subclasses of the JDK's channels. In blocking mode, for thread-per-connection code: swap
 * {@code SocketChannel.open()} for {@code UringSocketChannel.open(uring)} and the writes, connects and accepts
 * become io_uring requests the virtual thread parks on; a read tries the socket in place and, while it has
 * nothing, parks on a multishot POLLIN that stands on the loop while arrivals find it waiting
 * ({@code ReadWait}), so that a request-and-answer connection costs its loop one wake-up per arrival and no
 * hand-over per read. Close and interrupt go through the JDK's own
 * {@code begin}/{@code end}, so {@code AsynchronousCloseException} and {@code ClosedByInterruptException} come out
 * as with the JDK; a contract test runs every case against both. In non-blocking mode each call is one
 * non-blocking system call (recv/send with MSG_DONTWAIT, accept4, connect and SO_ERROR), and the channels register
 * with a {@code UringSelector}; {@code socket()} gives the JDK's adaptors' behaviour. A channel registered with a
 * selector for OP_READ reads what the selector received for it instead (below).
 *
 * <h2>Selectors: {@link io.uring4j.net.UringSelectorProvider}</h2>
 * {@code -Djava.nio.channels.spi.SelectorProvider=io.uring4j.net.UringSelectorProvider} puts unmodified NIO code
 * (Jetty, Netty's NIO transport) on io_uring; the provider is deliberately no service, so it is never a default
 * by accident.
 * <ul>
 *   <li>One {@code io_uring_enter} per select, on the selecting thread: it submits the poll changes queued since
 *       the last select and waits in the same call (the timeout through the getevents argument). The selector
 *       owns its ring, not a runtime loop's, so no event is handed between threads; a wakeup is an eventfd the
 *       ring polls, written once however often {@code wakeup()} is called before the next select.</li>
 *   <li>A key with interest arms one multishot POLL_ADD; an interest change removes it and arms another with the
 *       next enter. A key's poll holds the channel's fd (through its guard) until its final CQE, so closing a
 *       registered channel shuts its output at once and closes the fd at the selector's next select — never while
 *       a request may still name it.</li>
 *   <li>Level-triggered over edge-like polls: a poll's report is cached in the channel's
 *       {@code Readiness} until a non-blocking call finds the socket not ready (EAGAIN, a short send,
 *       a connect still in progress). A key whose cached readiness meets its interest is selected again, and the
 *       select then does not wait. Two rules keep a report from being lost to a racing clear, or kept after it:
 *       a clear applies only to the readiness word its call began with (an epoch in the word), and reports
 *       posted before the call began (its selector's CQE position, read first) are dropped when reaped. A poll
 *       armed afresh (a registration, an interest change) starts from nothing: its first check reports what
 *       holds now, and only the armed poll's reports count — the JDK's HTTP server reads a request in blocking
 *       mode between two registrations. What remains is the spurious readiness the contract allows: a listener
 *       stays ready until an accept finds nothing, a socket until a read or write does. OP_CONNECT alone is made
 *       exact (the socket is asked, once, before it is reported): Netty takes a finishConnect that returns false
 *       after it for a bug.</li>
 *   <li>Reads without system calls: a connected socket registered for OP_READ (with this selector only) gets a
 *       multishot RECV into the selector's provided-buffer ring instead of a POLLIN poll, armed with the next
 *       enter and kept while the key lives, whatever its interest set does after. Each CQE's bytes are copied
 *       into the channel's {@code Inbox} as they are reaped and the buffer goes back to the ring at once, so no
 *       buffer is held by a channel or touched by another thread; a read copies from the inbox, and one that
 *       finds it empty answers 0 without asking the socket. OP_READ readiness is the inbox's state, so it is
 *       exact, and interest changes on OP_READ cost no request. ENOBUFS (more bytes in one reap than the ring
 *       holds) ends a receive with the data still in the socket: it is armed again by the next enter. An inbox
 *       above 64 KiB cancels its receive until the reads have taken half (the peer waits in TCP), and an
 *       emptied one keeps no memory. While a receive is armed the socket is its own: a read never calls recv
 *       then (a cancelled key's receive ends at its selector's next select; a blocking read ends it itself, or
 *       wakes the select in progress and waits for it; deregistration waits for the cancel's CQE), and the
 *       selector's close ends every receive before it frees the buffers.</li>
 *   <li>Writes without system calls: a receiving channel's non-blocking write made while its selector is not
 *       waiting in the kernel (an event loop's writes, between its selects) copies into the channel's
 *       {@code Outbox} (one 16 KiB native chunk, lent by the selector while bytes are queued) and returns; the
 *       next select's enter submits one SEND for it, with at most one in flight per channel. A write made while
 *       the selector waits, or a large one into an empty outbox, is a send system call as before, so no write
 *       waits for a select. A full outbox takes nothing (write returns 0) until its SEND completes, which makes
 *       it writable again. A SEND the kernel could not take now (ENOMEM, EAGAIN) goes again; one that failed
 *       for good is an IOException for every later write of that channel, and for the blocking write or
 *       shutdownOutput that would have followed the lost bytes. A close sends what was queued before it, then
 *       shuts the output down; the key holds the fd until the last SEND has completed — for at most 30 s
 *       ({@code uring4j.selector.closeLingerMillis}), then the send is cancelled, as the kernel gives an
 *       orphaned socket's data up. A close with input left unread (in the inbox, which the kernel cannot see, or
 *       in the socket) resets the connection as the kernel's close does: SO_LINGER {on, 0} makes the fd's close a
 *       RST, and what is still queued is dropped, its send cancelled. A blocking write or shutdownOutput waits for
 *       the queue to drain. If nobody selects (code that writes and then waits for something else, or closed its
 *       channel and waits for the peer), the {@code SendFlusher} thread submits a selector's queued sends and
 *       removals after a millisecond and reaps them; it sleeps while there are none. The chunks come in slabs
 *       ({@code SendChunks}); a slab a burst added is freed once it has lent nothing for a second or two, so
 *       memory goes back down after the burst (this holds for the asynchronous outboxes too).</li>
 * </ul>
 * Datagram channels and pipes ({@code UringDatagramChannel}, {@code UringPipe}) are selectable with plain
 * multishot polls: in blocking mode their calls are RECVMSG/SENDMSG and READ/WRITE requests on a runtime loop, in
 * non-blocking mode plain system calls that clear the cached readiness as the sockets' do. A datagram goes through
 * the channel's own 64 KiB native chunk each way, reused one call at a time, so no caller's buffer is named by a
 * request that a close or an interrupt could leave in flight. Multicast groups are joined, left and filtered by
 * source with setsockopt on the caller's thread ({@code Memberships}). A datagram channel's {@code socket()} adaptor
 * does all the JDK's does but receive into a {@code DatagramPacket}, whose received length cannot be set apart from
 * its buffer length outside java.base (UnsupportedOperationException).
 *
 * <h2>Asynchronous channels: {@link io.uring4j.net.UringAsynchronousChannelProvider}</h2>
 * {@code -Djava.nio.channels.spi.AsynchronousChannelProvider=io.uring4j.net.UringAsynchronousChannelProvider}
 * puts {@code AsynchronousSocketChannel}, {@code AsynchronousServerSocketChannel} and
 * {@code AsynchronousChannelGroup} on io_uring for unmodified code — the completion model io_uring was made for.
 * <ul>
 *   <li>One request per operation: an accept or connect is one ACCEPT or CONNECT on a runtime loop, a read or write
 *       one RECVMSG or SENDMSG (scattering and gathering included, up to IOV_MAX buffers) on one of the group's own
 *       rings (one per CPU; a channel keeps the one it is given), each a user of the fd until its final CQE; close
 *       cancels them by fd and they fail with {@code AsynchronousCloseException}. A read or write (of one buffer or
 *       several) is first tried in place, as the JDK's are — one non-blocking recv or send (recvmsg, sendmsg) on
 *       the calling thread, and only a socket that is not ready makes it a request — except a read started on its
 *       ring's poller, which is queued: the poller's next enter submits it with the rest of its batch, and the
 *       kernel tries it there without a system call of its own.</li>
 *   <li>Writes on the poller: a write made by a handler the poller runs is copied into the channel's outbox
 *       ({@code AsyncOutbox}, 16 KiB of native memory the ring lends while bytes are queued) and completes at once,
 *       as a write into a socket's buffer does; the poller's next enter, which submits the reads its handlers
 *       queued as well, sends what the batch wrote in one SEND per channel. Pipelined responses go out in one send,
 *       and a response with the enter that re-arms its connection's read. A write on another thread, or a larger
 *       one, into an idle outbox goes as above; one that finds bytes queued waits behind them, its timeout counted
 *       meanwhile. A close lets what was taken go out before the fd is closed (for at most 30 s,
 *       {@code uring4j.async.closeLingerMillis}, as the kernel gives up on an orphaned socket's data in the end) —
 *       unless input was left unread: then, as the kernel's close, the connection is reset and they are dropped; a
 *       shutdownOutput returns at once and its FIN follows what was taken, as a socket's follows its buffer (it
 *       never waits for a peer that may not read), and a failed send fails the channel's later writes and
 *       shutdownOutput, and no FIN follows lost bytes. The group's
 *       termination cancels the sends still waiting for a peer to read.</li>
 *   <li>Timeouts: a read or write with a timeout is chained to a LINK_TIMEOUT, so the kernel cancels it when time
 *       is up; it fails with {@code InterruptedByTimeoutException} and, as in the JDK, the channel refuses further
 *       operations of that kind.</li>
 *   <li>Where handlers run: on the group's threads, as the JDK's group threads run them. One task on the group's
 *       executor per ring (its poller, {@code AsyncRing}) submits that ring's reads and writes, waits in
 *       {@code io_uring_enter} and runs the handlers of what it reaps itself: no hand-off per completion, and a
 *       handler's next operation is submitted with the batch. A handler that blocks does not stall the other
 *       channels: a poller found in one handler at two looks of {@code AsyncWatchdog} (10 ms apart,
 *       {@code uring4j.async.handlerStallMillis}) is deposed and another executor task takes the ring over, and a
 *       poller about to wait on one of the group's futures steps down first. Accepts and connects complete on a
 *       loop and go to the executor, never run on a loop. An outcome known at the start (a closed channel, no
 *       room, a read or write done in place) runs the handler on the initiating thread if it is one of the
 *       group's — an executor thread that has run one of its handlers stays so, as the JDK binds it — up to the
 *       JDK's bound of 16 handlers per task, as the JDK's {@code Invoker} does ({@code AsyncHandlers}). The
 *       futures returned are plain {@code Future}s: nothing can be chained onto them to run on a loop or poller.</li>
 *   <li>Buffers: direct buffers are used in place; heap buffers go through the channel's own native staging
 *       (up to 64 KiB an operation), copied at a write's start and a read's completion. The op holds the staging,
 *       the msghdr and the caller's buffers until the final CQE — after a timeout, cancel or close too — and all of
 *       it is GC-managed, so nothing is freed while the kernel may still use it ({@code AsyncTransfer}).</li>
 *   <li>The default group runs on a cached pool of daemon platform threads, as the JDK's (a virtual thread waiting
 *       in {@code io_uring_enter} would hold its carrier); its accepts and connects on
 *       {@link io.uring4j.runtime.Uring#shared()}, the file-system provider's runtime. A group's poller takes one
 *       of its executor's threads for as long as the group lives; a cached pool's {@code initialSize} is not
 *       used.</li>
 * </ul>
 *
 * <h2>Errors</h2>
 * Errnos become the JDK's exceptions — {@link java.net.ConnectException} for ECONNREFUSED,
 * {@code SocketException("Connection reset")} for ECONNRESET, {@link java.net.SocketTimeoutException} for a
 * connect timeout, {@link java.net.BindException} for EADDRINUSE — with the {@link io.uring4j.sys.ErrnoException}
 * as the cause, so code ported from {@code java.net} keeps its catch clauses.
 *
 * <h2>System calls, not requests</h2>
 * socket (for connect), bind, listen and setsockopt stay plain system calls: they never block, so a ring round
 * trip would only add latency ({@link io.uring4j.net.NetOps#socket} exists for direct-descriptor use).
 */
package io.uring4j.net;
