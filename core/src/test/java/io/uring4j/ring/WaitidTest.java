package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * WAITID (6.7) on a child process (liburing's waitid.c). The child is started with posix_spawn, not
 * ProcessBuilder: the JDK reaps its own children on a thread of its own, which would race the request.
 */
@Timeout(30)
class WaitidTest {
    /** {@code <linux/wait.h>}: P_PID, WEXITED; {@code siginfo_t}: si_signo 0, si_code 8, si_pid 16, si_status 24. */
    private static final int P_PID = 1;
    private static final int WEXITED = 4;
    private static final int SIGCHLD = 17;
    private static final int CLD_EXITED = 1;
    private static final long SIGINFO_SIZE = 128;

    private static final MethodHandle POSIX_SPAWN = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("posix_spawn").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));

    /** Spawns {@code /bin/sh -c "exit <status>"}; returns its pid. */
    private static int spawnExiting(Arena arena, int status) throws Throwable {
        MemorySegment argv = arena.allocate(ADDRESS, 4);
        argv.setAtIndex(ADDRESS, 0, arena.allocateFrom("/bin/sh"));
        argv.setAtIndex(ADDRESS, 1, arena.allocateFrom("-c"));
        argv.setAtIndex(ADDRESS, 2, arena.allocateFrom("exit " + status));
        MemorySegment envp = arena.allocate(ADDRESS, 1);
        MemorySegment pid = arena.allocate(JAVA_INT);
        int ret = (int) POSIX_SPAWN.invokeExact(pid, arena.allocateFrom("/bin/sh"), MemorySegment.NULL,
                MemorySegment.NULL, argv, envp);
        assertThat(ret).as("posix_spawn").isZero();
        return pid.get(JAVA_INT, 0);
    }

    @Test
    void waitidReportsTheChildsExit() throws Throwable {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            assumeSupported(ring, Opcode.WAITID);
            int child = spawnExiting(arena, 7);
            MemorySegment info = arena.allocate(SIGINFO_SIZE, 8);
            ring.sq().next().prepWaitid(P_PID, child, info, WEXITED, 0).userData(1);

            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, 0));
            assertThat(info.get(JAVA_INT, 0)).as("si_signo").isEqualTo(SIGCHLD);
            assertThat(info.get(JAVA_INT, 8)).as("si_code").isEqualTo(CLD_EXITED);
            assertThat(info.get(JAVA_INT, 16)).as("si_pid").isEqualTo(child);
            assertThat(info.get(JAVA_INT, 24)).as("si_status").isEqualTo(7);
        }
    }

    @Test
    void waitidForAProcessThatIsNoChildFailsWithEchild() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            assumeSupported(ring, Opcode.WAITID);
            ring.sq().next().prepWaitid(P_PID, 1, arena.allocate(SIGINFO_SIZE, 8), WEXITED, 0).userData(1);
            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(1, -Errno.ECHILD));
        }
    }
}
