/**
 * Files on the runtime: an async file API and a drop-in {@link java.nio.channels.FileChannel}.
 *
 * <h2>Layers</h2>
 * <ul>
 *   <li>{@link io.uring4j.fs.FileOps}: {@link io.uring4j.runtime.Op}s for files and paths that own what the kernel
 *       reads — each path (NUL-terminated, in the JDK's {@code sun.jnu.encoding}), iovec array and
 *       {@code struct statx} lives in memory the op holds (an automatic arena) or in the request's scratch. The
 *       runtime keeps an op referenced until its final CQE, so that memory outlives the request whatever the
 *       caller does; nothing the kernel reads lives in a caller's frame. Usable with all three runtime
 *       styles.</li>
 *   <li>{@link io.uring4j.fs.UringFiles} and {@link io.uring4j.fs.AsyncFile}: open, positional and vectored
 *       I/O, sync, fallocate, ftruncate, fadvise, statx, close, and the path operations, each blocking and as a
 *       {@code CompletableFuture}, with typed results ({@link io.uring4j.fs.Statx}) and
 *       {@code java.nio.file} exceptions for path errors.</li>
 *   <li>{@link io.uring4j.fs.UringFileChannel}: {@code FileChannel}'s contract, checked by one conformance suite
 *       that runs against the JDK's FileChannel and this one (its transferTo and transferFrom in
 *       {@code ChannelTransfers}); {@link io.uring4j.fs.UringAsynchronousFileChannel} likewise for
 *       {@code AsynchronousFileChannel}.</li>
 *   <li>{@link io.uring4j.fs.UringFileSystemProvider}: the platform's default provider with these channels,
 *       installable with {@code -Djava.nio.file.spi.DefaultFileSystemProvider}. It wraps the file system and
 *       the paths as well — {@code FileChannel.open} asks the path's own file system for its provider — and
 *       unwraps paths for everything it passes to the platform. The JDK channels that map and lock for uring4j's
 *       are opened through the platform provider ({@code PlatformFiles}), never back through the wrapper.</li>
 * </ul>
 *
 * <h2>The fd's lifetime</h2>
 * A request names its file by number until the kernel has looked it up; a number closed too early can be
 * reused by the next open, and the request would then touch someone else's file. So an open file's fd is
 * guarded ({@link io.uring4j.runtime.FdGuard}, shared with the sockets): every request counts as a user from
 * submit to its final CQE, in a striped count that threads do not contend on; close refuses new users, cancels
 * the requests in flight on every loop (each cancel is a user too, since it looks the fd up), and closes the fd
 * when the count reaches zero. Requests still queued in a loop when the close starts see it
 * in {@code prepare} and fail without reaching the kernel. The future style has its own request object for
 * this: the count must drop at the CQE, not when a caller cancels the future.
 *
 * <h2>The channel</h2>
 * {@code UringFileChannel} keeps {@code FileChannelImpl}'s structure where it shows: {@code begin}/{@code end}
 * around every blocking call (so an interrupt closes the channel and throws {@code ClosedByInterruptException},
 * and a close from another thread gives {@code AsynchronousCloseException}), a position lock for relative
 * operations, the JDK's argument checks and messages, and its O_DIRECT alignment checks against the block
 * size. The position is kept in Java (requests carry explicit offsets); append-mode writes rely on O_APPEND,
 * where the kernel writes at the end whatever the offset. io_uring ignores offsets on FIFOs and sockets where
 * pread and lseek fail, so positional calls there answer ESPIPE ("Illegal seek") like the JDK's.
 * Heap buffers never reach the kernel: they are copied through a leased native buffer (pooled up to 64 KiB),
 * released only once the kernel is done with it. {@code map} and {@code lock} go to a JDK channel opened on
 * {@code /proc/self/fd/N}: the same file even after a rename or DELETE_ON_CLOSE, and POSIX locks belong to the
 * process and inode, so the JDK's JVM-wide lock table keeps working. A FIFO's reopen for one end would wait for a
 * peer, where the JDK's calls on its own fd never do, so the other end is held open, non-blocking, for that moment.
 *
 * <h2>Blocking reads</h2>
 * {@code BlockingReads} chooses where each blocking read of a file goes, in one method: a buffered file's read
 * tries {@code preadv2(RWF_NOWAIT)} on the calling thread, so what the page cache holds is copied without a
 * hand-over to an event loop and back; a virtual thread's attempt is batched with its carrier's other readers
 * ({@code InlineReads}) where system calls are dear ({@link ReadBatching}); a virtual thread alone on a file whose
 * attempts keep hitting makes plain preads, with an RWF_NOWAIT probe now and then ({@code CacheHits}); a virtual
 * thread's O_DIRECT read is batched and waited for on its carrier while the device answers fast
 * ({@code DirectDevice}). Everything else, and what an attempt left (a miss, the rest of a short read, an error),
 * goes through the ring: a carrier waits for a device only while it has been answering fast (or, in a run of
 * cache hits, until a probe misses), and no caller gets a short read the JDK would not give. A batch's readers
 * park untimed behind its combiner's yield; should every carrier be held by pinned readers, so that the combiner
 * cannot resume, a platform thread ({@code StallWatch}) tells them to read in place.
 *
 * <p>The blocking style parks virtual threads instead of pinning or adding carriers — and, unlike the JDK's
 * FileChannel, a virtual thread blocked in a read (of a FIFO, say) can be woken by interrupt or close.
 *
 * <h2>Many threads on one loop</h2>
 * When an open file is adopted, its type is asked once: I/O on a regular file or block device ends on its own,
 * so its blocking calls go through {@link io.uring4j.runtime.EventLoop#callBounded}. While one is in flight, the
 * next thread's call need not wake the loop (an eventfd write and a context switch each): it rides along with
 * the loop's next wake-up, at most 50 µs later. The loop wakes the virtual threads whose reads it reaped together
 * with one foreign unpark. A FIFO or character device still wakes the loop: its read may never end.
 */
package io.uring4j.fs;
