package io.uring4j.ring;

import io.uring4j.portable.PortableEngine;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * {@link Engine#auto()}: the kernel's io_uring where it is allowed, the portable engine where setup is refused for
 * a reason the portable engine removes — EPERM (seccomp, {@code kernel.io_uring_disabled}), ENOSYS (no io_uring)
 * or ENOMEM (RLIMIT_MEMLOCK) — with one log line naming the cause and the fix. Any other error (EINVAL for a
 * flag, EMFILE) is the caller's and is returned as is.
 *
 * <p>After setup, each ring talks to the engine that created it: {@link IoUringBuilder} asks {@link #owner}.
 * Portable ring fds start at 2^30, above any fd the kernel hands out, so the fd alone says which one it is.
 */
final class AutoEngine implements Engine {
    static final AutoEngine INSTANCE = new AutoEngine(Engine.kernel(), PortableEngine.instance(),
            message -> System.getLogger("io.uring4j").log(System.Logger.Level.WARNING, message));

    private final Engine kernel;
    private final PortableEngine portable;
    private final Consumer<String> log;

    /** {@code kernel} and {@code log} are replaceable so that tests can inject setup failures and read the line. */
    AutoEngine(Engine kernel, PortableEngine portable, Consumer<String> log) {
        this.kernel = kernel;
        this.portable = portable;
        this.log = log;
    }

    @Override
    public String name() {
        return "auto";
    }

    @Override
    public int setup(int entries, MemorySegment params) {
        int ret = kernel.setup(entries, params);
        String fix = switch (-ret) {
            case Errno.EPERM -> "io_uring is blocked by seccomp (Docker's default profile: run with a profile that"
                    + " allows io_uring_setup/enter/register) or by sysctl kernel.io_uring_disabled (set it to 0)";
            case Errno.ENOSYS -> "this kernel has no io_uring (built without CONFIG_IO_URING, or hidden by"
                    + " seccomp): use a kernel with io_uring, 5.19 or newer";
            case Errno.ENOMEM -> "not enough lockable memory for the rings: raise RLIMIT_MEMLOCK (ulimit -l) or"
                    + " use fewer entries";
            default -> null;
        };
        if (fix == null) {
            return ret;
        }
        int fd = portable.setup(entries, params);
        if (fd >= 0) {
            log.accept("uring4j: io_uring_setup failed with " + Errno.name(-ret) + ", using the portable engine: "
                    + fix + ", or force one with -During4j.engine=kernel|portable");
        }
        return fd;
    }

    /** The engine behind a ring fd this engine set up. */
    Engine owner(int ringFd) {
        return ringFd >= PortableEngine.FD_BASE ? portable : kernel;
    }

    @Override
    public MemorySegment map(int ringFd, long offset, long size, Arena arena) throws ErrnoException {
        return owner(ringFd).map(ringFd, offset, size, arena);
    }

    @Override
    public int enter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        return owner(ringFd).enter(ringFd, toSubmit, minComplete, flags, arg, argSize);
    }

    @Override
    public int register(int ringFd, int opcode, long arg, int nrArgs) {
        return owner(ringFd).register(ringFd, opcode, arg, nrArgs);
    }

    @Override
    public int close(int ringFd) {
        return owner(ringFd).close(ringFd);
    }
}
