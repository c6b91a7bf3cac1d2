package io.uring4j.sys;

/**
 * The library's loggers, each made on its first message. {@code System.getLogger} starts the platform's logging
 * (java.util.logging's LogManager, which reads its configuration): a tenth of the runtime's start, in which the
 * library has nothing to say unless something goes wrong.
 */
public final class Logs {
    private Logs() {
    }

    /** The event loops' ({@code io.uring4j.runtime}). */
    public static System.Logger runtime() {
        return RuntimeLog.LOG;
    }

    /** The sockets' ({@code io.uring4j.net}). */
    public static System.Logger net() {
        return NetLog.LOG;
    }

    private static final class RuntimeLog {
        static final System.Logger LOG = System.getLogger("io.uring4j.runtime");
    }

    private static final class NetLog {
        static final System.Logger LOG = System.getLogger("io.uring4j.net");
    }
}
