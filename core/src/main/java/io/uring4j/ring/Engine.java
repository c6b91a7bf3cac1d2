package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The kernel side of a ring: the only operations whose implementation differs between Linux's io_uring and a
 * user-space one. Everything else — the SQ/CQ memory, SQE and CQE formats, the ordering rules — is shared, so
 * the ring API and everything built on it run unchanged on any engine.
 *
 * <p>Results follow the system-call convention: {@code >= 0} on success, {@code -errno} on failure.
 */
public interface Engine {
    /** Linux's own io_uring, through the io_uring_setup/enter/register system calls. */
    static Engine kernel() {
        return KernelEngine.INSTANCE;
    }

    /** io_uring's kernel side written in Java, for hosts where the kernel refuses io_uring. */
    static Engine portable() {
        return FallbackLookup.engine();
    }

    /**
     * The kernel's io_uring, or the portable engine when the kernel refuses io_uring_setup with EPERM, ENOSYS or
     * ENOMEM — logged once per ring as a WARNING line of the {@code io.uring4j} System.Logger naming the cause
     * and the fix.
     */
    static Engine auto() {
        return AutoEngine.INSTANCE;
    }

    /**
     * {@link #auto()}, also choosing the portable engine when the kernel's probe lacks some of {@code opcodes}
     * (see {@link Opcode}) that the portable engine implements.
     */
    static Engine auto(int... opcodes) {
        return AutoEngine.INSTANCE.requiring(opcodes);
    }

    /**
     * A kernel side whose io_uring_setup always fails with {@code errno} (e.g. {@code Errno.EPERM}, as under
     * seccomp): for trying how code behaves where io_uring is refused, here, with
     * {@code IoUring.builder().engine(...)} or inside {@link #auto()}'s tests.
     */
    static Engine refusing(int errno) {
        return new RefusingEngine(errno);
    }

    /**
     * Why io_uring_setup failing with {@code errno} sends {@link #auto()} to the portable engine, and the fix;
     * null for errors that choose nothing (they are the caller's).
     */
    static String setupRefusal(int errno) {
        return AutoEngine.refusalFix(errno);
    }

    /**
     * The engine named by the system property {@code uring4j.engine} ({@code auto}, the default, {@code kernel}
     * or {@code portable}): what builders use unless told otherwise. With {@code auto} a ring on a host that
     * refuses io_uring comes from the portable engine, with one log line saying why.
     */
    static Engine configured() {
        String name = System.getProperty("uring4j.engine", "auto");
        return switch (name) {
            case "kernel" -> kernel();
            case "portable" -> portable();
            case "auto" -> auto();
            default -> throw new IllegalArgumentException("uring4j.engine must be kernel, portable or auto: " + name);
        };
    }

    /** A short name for reports: {@code kernel}, {@code portable} or {@code auto}. */
    String name();

    /** {@code io_uring_setup}: fills {@code params} (io_uring_params, 120 bytes) and returns the ring fd. */
    int setup(int entries, MemorySegment params);

    /**
     * Maps {@code size} bytes of the ring region at {@code offset} (IORING_OFF_SQ_RING / CQ_RING / SQES /
     * PBUF_RING). The mapping lives until {@code arena} is closed.
     */
    MemorySegment map(int ringFd, long offset, long size, Arena arena) throws ErrnoException;

    /** {@code io_uring_enter2}; {@code arg} is a raw address (0 for none). */
    int enter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize);

    /** {@code io_uring_register}; {@code arg} is a raw address (0 for none). */
    int register(int ringFd, int opcode, long arg, int nrArgs);

    /** Releases the ring fd. */
    int close(int ringFd);
}
