package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What the kernel supports (skipping a test when it lacks it), errno from exceptions, and a second OS thread. */
final class Rings {
    private Rings() {
    }

    /** Whether this test runs on the portable engine ({@code -During4j.engine=portable}, the both-engines run). */
    static boolean portable() {
        return "portable".equals(System.getProperty("uring4j.engine"));
    }

    /**
     * An intended difference: skips the test on the portable engine, saying why. Every call names something the
     * portable engine does not do (yet), so the list of calls is the list of differences.
     */
    static void kernelOnly(String reason) {
        assumeTrue(!portable(), () -> "portable engine: " + reason);
    }

    /** Setup flags the portable engine refuses (EINVAL, as an older kernel): skips a test that needs them. */
    static void kernelOnlyFlags(int setupFlags) {
        int unsupported = SetupFlags.IOPOLL | SetupFlags.SQPOLL
                | SetupFlags.NO_MMAP | SetupFlags.ATTACH_WQ | SetupFlags.HYBRID_IOPOLL | SetupFlags.CQE_MIXED;
        if ((setupFlags & unsupported) != 0) {
            kernelOnly("setup flags " + SetupFlags.toString(setupFlags & unsupported) + " are not implemented");
        }
    }

    /** Skips the test when the kernel lacks any of {@code opcodes} (found by probe, never by version). */
    static void assumeSupported(IoUring ring, byte... opcodes) throws ErrnoException {
        Probe probe = ring.register().probe();
        for (byte opcode : opcodes) {
            assumeTrue(probe.isSupported(opcode), () -> "kernel lacks IORING_OP_" + Opcode.name(opcode));
        }
    }

    /**
     * Skips the test when a request's result says the kernel does not know what it asked for: EINVAL or
     * EOPNOTSUPP, the answers of a kernel that predates a flag or a command which no probe lists.
     */
    static void skipIfRefused(int res, String what) {
        assumeTrue(res != -Errno.EINVAL && res != -Errno.EOPNOTSUPP,
                () -> "kernel refuses " + what + " (" + Errno.name(-res) + ")");
    }

    /**
     * A ring with {@code setupFlags}, or a skipped test when the kernel refuses them with EINVAL: setup flags
     * have no probe, and a kernel that predates one answers EINVAL (liburing.md §6.4). Other errors fail.
     */
    static IoUring openOrSkip(int entries, int setupFlags) throws ErrnoException {
        try {
            return IoUring.builder().entries(entries).flags(setupFlags).build();
        } catch (ErrnoException e) {
            assumeTrue(e.errno() != Errno.EINVAL, "kernel refuses setup flags " + SetupFlags.toString(setupFlags));
            throw e;
        }
    }

    /** Runs a call expected to throw {@link ErrnoException}; returns its positive errno. */
    static int errnoOf(ThrowingCallable call) {
        ErrnoException e = catchThrowableOfType(ErrnoException.class, call);
        assertThat(e).as("expected an ErrnoException").isNotNull();
        return e.errno();
    }

    /**
     * Runs {@code task} on a new platform thread named {@code uring4j-other-issuer} (a distinct kernel task),
     * waits for it, and returns its result or rethrows its failure. Starting and joining the thread orders every
     * access to a ring handed to it and back.
     */
    static <T> T onPlatformThread(Callable<T> task) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = Thread.ofPlatform().name("uring4j-other-issuer").start(() -> {
            try {
                result.set(task.call());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        thread.join();
        Throwable t = failure.get();
        if (t instanceof Exception e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return result.get();
    }
}
