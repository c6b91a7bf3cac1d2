package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@link Engine#auto()}: the kernel's io_uring where it is allowed, the portable engine where setup is refused for
 * a reason the portable engine removes — EPERM (seccomp, {@code kernel.io_uring_disabled}), ENOSYS (no io_uring)
 * or ENOMEM (RLIMIT_MEMLOCK) — with one log line naming the cause and the fix. Any other error (EINVAL for a
 * flag, EMFILE) is the caller's and is returned as is. With {@linkplain #requiring required opcodes}, a kernel
 * ring whose probe lacks some of them that the portable engine has is closed again and a portable one set up,
 * with a line naming them: an older kernel behind a newer library.
 *
 * <p>After setup, each ring talks to the engine that created it: {@link IoUringBuilder} asks {@link #owner}.
 * Portable ring fds never collide with the kernel's ({@link FallbackEngine#owns}), so the fd alone says which
 * one it is.
 */
final class AutoEngine implements Engine {
    static final AutoEngine INSTANCE = new AutoEngine(Engine.kernel(), FallbackLookup::engine,
            message -> System.getLogger("io.uring4j").log(System.Logger.Level.WARNING, message), new int[0]);

    private final Engine kernel;
    /**
     * Finds the portable engine: only when the kernel refuses, or lacks a required opcode. A process the kernel
     * serves never loads it (its lookup and classes are some milliseconds of the first runtime's start).
     */
    private final Supplier<FallbackEngine> portableLookup;
    private volatile FallbackEngine portable;
    private final Consumer<String> log;
    private final int[] required;

    /** {@code kernel} and {@code log} are replaceable so that tests can inject setup failures and read the line. */
    AutoEngine(Engine kernel, Supplier<FallbackEngine> portableLookup, Consumer<String> log, int[] required) {
        this.kernel = kernel;
        this.portableLookup = portableLookup;
        this.log = log;
        this.required = required.clone();
    }

    /** This selection, also choosing the portable engine when the kernel lacks some of {@code opcodes} it has. */
    AutoEngine requiring(int... opcodes) {
        return new AutoEngine(kernel, portableLookup, log, opcodes);
    }

    @Override
    public String name() {
        return "auto";
    }

    @Override
    public int setup(int entries, MemorySegment params) {
        MemorySegment request = required.length == 0 ? null : Arena.ofAuto().allocate(params.byteSize()).copyFrom(params);
        int ret = kernel.setup(entries, params);
        if (ret >= 0) {
            return request == null ? ret : unlessOpcodesMissing(ret, entries, params, request);
        }
        String fix = refusalFix(-ret);
        if (fix == null) {
            return ret;
        }
        int fd = portable().setup(entries, params);
        if (fd >= 0) {
            log.accept("uring4j: io_uring_setup failed with " + Errno.name(-ret) + ", using the portable engine: "
                    + fix + ", or force one with -During4j.engine=kernel|portable");
        }
        return fd;
    }

    /**
     * The kernel ring {@code fd}, unless its probe lacks required opcodes that the portable engine has: then that
     * ring is closed and a portable one set up from the caller's original {@code request}.
     */
    private int unlessOpcodesMissing(int fd, int entries, MemorySegment params, MemorySegment request) {
        List<String> missing = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment probe = Probe.allocate(arena);
            boolean probed = kernel.register(fd, RegisterOpcode.REGISTER_PROBE, probe.address(), Probe.OPS) >= 0;
            Probe p = Probe.decode(probe);
            for (int op : required) {
                if (!probed || !p.isSupported(op)) {
                    if (!portable().supports(op)) {
                        return fd;          // neither has everything: the kernel's is the better partial answer
                    }
                    missing.add(Opcode.name(op));
                }
            }
        }
        if (missing.isEmpty()) {
            return fd;
        }
        kernel.close(fd);
        params.copyFrom(request);
        int portableFd = portable().setup(entries, params);
        if (portableFd >= 0) {
            log.accept("uring4j: this kernel's io_uring lacks " + String.join(", ", missing)
                    + ", using the portable engine, which has them: use a newer kernel for the kernel's own,"
                    + " or force one with -During4j.engine=kernel|portable");
        }
        return portableFd;
    }

    /** What to do about a setup refusal the portable engine removes; null for any other error. */
    static String refusalFix(int errno) {
        return switch (errno) {
            case Errno.EPERM -> "io_uring is blocked by seccomp (Docker's default profile: run with a profile that"
                    + " allows io_uring_setup/enter/register) or by sysctl kernel.io_uring_disabled (set it to 0)";
            case Errno.ENOSYS -> "this kernel has no io_uring (built without CONFIG_IO_URING, or hidden by"
                    + " seccomp): use a kernel with io_uring, 5.19 or newer";
            case Errno.ENOMEM -> "not enough lockable memory for the rings: raise RLIMIT_MEMLOCK (ulimit -l) or"
                    + " use fewer entries";
            default -> null;
        };
    }

    private FallbackEngine portable() {
        FallbackEngine p = portable;
        if (p == null) {
            p = portableLookup.get();
            portable = p;
        }
        return p;
    }

    /** The engine behind a ring fd this engine set up: the kernel's while the portable one was never needed. */
    Engine owner(int ringFd) {
        FallbackEngine p = portable;
        return p != null && p.owns(ringFd) ? p : kernel;
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
