/**
 * uring4j: io_uring for Java, on the Foreign Function and Memory API.
 *
 * <p>Layers: {@code io.uring4j.sys} (system calls and errno) and {@code io.uring4j.ring.abi} (the io_uring ABI:
 * opcodes, flags, struct offsets) → {@code io.uring4j.ring} (the ring core) →
 * {@code io.uring4j.runtime} (event loops, three API styles) → {@code io.uring4j.fs} (files and drop-in channels),
 * {@code io.uring4j.net} (sockets); {@code io.uring4j.portable} is the ring's kernel side where io_uring is refused.
 *
 * <h2>Where an opcode lives</h2>
 * Defined in {@code ring.abi.Opcode}; its SQE prepared by {@code ring.Sqe} through {@code SqeCore} and the
 * {@code SqeFilePrep}/{@code SqeNetPrep} helpers; issued by the portable engine from its row in
 * {@code portable.OpDefs}; tested in {@code core/src/test/java/io/uring4j/ring/*Test} (per area:
 * {@code ReadWriteTest}, {@code TimeoutTest}, ...), on both engines when the class is {@code @BothEngines}.
 *
 * <h2>Glossary</h2>
 * <dl>
 *   <dt>engine</dt><dd>the kernel side of a ring: the kernel's io_uring, or the portable engine (the same ABI
 *       served in Java); {@code auto} picks per ring.</dd>
 *   <dt>prep</dt><dd>writing an SQE's fields for one opcode ({@code Sqe.prepXxx}).</dd>
 *   <dt>issue</dt><dd>the portable engine running a consumed SQE (inline, armed on its epoll set, on its io-wq
 *       or on native AIO), as the kernel's {@code io_issue_sqe}.</dd>
 *   <dt>op</dt><dd>a runtime request's description: the SQE it prepares and the memory it keeps alive
 *       ({@code runtime.Op}).</dd>
 *   <dt>request</dt><dd>an op in flight: a slot of a loop's request table from prep to its final CQE.</dd>
 *   <dt>loop</dt><dd>a thread that owns one ring (its single issuer) and completes what it submitted.</dd>
 *   <dt>chain</dt><dd>requests linked with {@code IOSQE_IO_LINK}, submitted together.</dd>
 *   <dt>guard</dt><dd>an {@code FdGuard}: counts a descriptor's users so a close waits for, or cancels, the
 *       requests that still name it.</dd>
 *   <dt>drop-in</dt><dd>a {@code java.nio} type (FileChannel, SocketChannel, ...) implemented on io_uring.</dd>
 * </dl>
 */
module io.uring4j {
    exports io.uring4j.sys;
    exports io.uring4j.ring;
    exports io.uring4j.ring.abi;
    exports io.uring4j.runtime;
    exports io.uring4j.fs;
    exports io.uring4j.net;

    requires jdk.jfr;
    requires jdk.net;

    // The ring core finds the portable engine as a service, so that io.uring4j.ring does not import it.
    uses io.uring4j.ring.FallbackEngine.Provider;
    provides io.uring4j.ring.FallbackEngine.Provider with io.uring4j.portable.PortableEngineProvider;
}
