package io.uring4j.sys;

import java.io.IOException;

/**
 * A system call or io_uring operation failed with an errno. The message names the operation and the errno
 * ({@code io_uring_setup: EPERM (Operation not permitted)}) and, where one helps, what to do about it.
 */
public class ErrnoException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String operation;
    private final int errno;

    public ErrnoException(String operation, int errno) {
        this(operation, errno, null);
    }

    /**
     * @param errno positive errno, or the negative result convention ({@code -errno}); stored positive
     * @param hint  what the user can do about it, or {@code null}
     */
    public ErrnoException(String operation, int errno, String hint) {
        super(operation + ": " + Errno.name(errno) + " (" + Errno.describe(errno) + ")"
                + (hint == null ? "" : " — " + hint));
        this.operation = operation;
        this.errno = Math.abs(errno);
    }

    /** The operation that failed, e.g. {@code io_uring_register(REGISTER_BUFFERS)}. */
    public String operation() {
        return operation;
    }

    /** The positive errno value. */
    public int errno() {
        return errno;
    }

    /** The errno's symbolic name, e.g. {@code EBADF}. */
    public String errnoName() {
        return Errno.name(errno);
    }
}
