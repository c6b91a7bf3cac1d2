/**
 * uring4j: io_uring for Java, on the Foreign Function and Memory API.
 *
 * <p>Layers: {@code io.uring4j.sys} (system calls and errno) and {@code io.uring4j.ring.abi} (the io_uring ABI:
 * opcodes, flags, struct offsets) → {@code io.uring4j.ring} (the ring core) →
 * {@code io.uring4j.runtime} (event loops, three API styles) → {@code io.uring4j.fs} (files and drop-in channels),
 * {@code io.uring4j.net} (sockets); {@code io.uring4j.portable} is the ring's kernel side where io_uring is refused.
 */
module io.uring4j {
    exports io.uring4j.sys;
    exports io.uring4j.ring;
    exports io.uring4j.ring.abi;
    exports io.uring4j.runtime;
    exports io.uring4j.fs;
    exports io.uring4j.net;

    requires jdk.jfr;

    // The ring core finds the portable engine as a service, so that io.uring4j.ring does not import it.
    uses io.uring4j.ring.FallbackEngine.Provider;
    provides io.uring4j.ring.FallbackEngine.Provider with io.uring4j.portable.PortableEngineProvider;
}
