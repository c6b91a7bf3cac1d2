/**
 * uring4j: io_uring for Java, on the Foreign Function and Memory API.
 *
 * <p>Layers: {@code io.uring4j.sys} (system calls and errno) → {@code io.uring4j.ring} (the ring core), with
 * {@code io.uring4j.portable} as the ring's kernel side where the kernel refuses io_uring.
 */
module io.uring4j {
    exports io.uring4j.sys;
    exports io.uring4j.ring;
    exports io.uring4j.portable;
    exports io.uring4j.runtime;

    requires jdk.jfr;
}
