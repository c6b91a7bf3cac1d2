package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.run;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.errnoOf;
import static io.uring4j.ring.Rings.onPlatformThread;
import static io.uring4j.ring.SetupModesTest.assertNopBatchesRoundTrip;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing reg-reg-ring.c, personality.c, register-restrictions.c, sync-cancel.c and the io-wq worker limits of
 * io_uring_register.c: registrations that change how the ring itself behaves.
 */
@BothEngines
class RegistrationTest {
    private static final long ONE_SECOND = 1_000_000_000L;

    // ---- registered ring fd ------------------------------------------------------------------------------

    @Test
    void registeredRingFdServesEnterAndRegisterUntilUnregistered() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            int index = ring.register().ringFd();
            assertThat(index).isBetween(0, 15);     // at most 16 registered rings per thread
            assertNopBatchesRoundTrip(ring, 8, 3);
            assertThat(ring.register().probe().isSupported(Opcode.NOP)).as("register through the index").isTrue();
            assertThat(errnoOf(() -> ring.register().ringFd())).as("second registration").isEqualTo(Errno.EEXIST);

            ring.register().unregisterRingFd();
            assertNopBatchesRoundTrip(ring, 8, 1);
            assertThat(errnoOf(() -> ring.register().unregisterRingFd())).isEqualTo(Errno.EINVAL);

            // And it can be registered again; close() then unregisters it.
            assertThat(ring.register().ringFd()).isBetween(0, 15);
            assertNopBatchesRoundTrip(ring, 8, 1);
        }
    }

    /** As the kernel keeps it in the task's io_uring context, a registered ring index means nothing elsewhere. */
    @Test
    void aRegisteredRingIndexServesOnlyTheThreadThatRegisteredIt() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            ring.register().ringFd();
            int elsewhere = onPlatformThread(() -> ring.enter(0, 0, 0, 0, 0));
            assertThat(elsewhere).as("enter through the index on another thread").isIn(-Errno.EINVAL, -Errno.EBADF);
            assertNopBatchesRoundTrip(ring, 8, 1);
        }
    }

    // ---- io-wq limits -------------------------------------------------------------------------------------

    @Test
    @Timeout(30)
    void iowqMaxWorkersReturnsThePreviousLimits() throws Exception {
        // io-wq is per thread and shared by all of a thread's rings: use a fresh thread so no other test sees
        // the limits set here.
        onPlatformThread(() -> {
            try (IoUring ring = IoUring.open(8)) {
                // A request through io-wq makes this thread's worker pool exist.
                ring.sq().next().prepNop().addFlags(SqeFlags.ASYNC);
                assertThat(run(ring)).isZero();

                int[] initial = ring.register().iowqMaxWorkers(0, 0);     // 0, 0: only read them
                assertThat(initial[0]).as("bounded").isPositive();
                assertThat(initial[1]).as("unbounded").isPositive();
                assertThat(ring.register().iowqMaxWorkers(2, 3)).isEqualTo(initial);
                assertThat(ring.register().iowqMaxWorkers(0, 0)).containsExactly(2, 3);
                assertThat(ring.register().iowqMaxWorkers(0, 5)).as("0 leaves one alone").containsExactly(2, 3);
                assertThat(ring.register().iowqMaxWorkers(0, 0)).containsExactly(2, 5);
            }
            return null;
        });
    }

    // ---- personality --------------------------------------------------------------------------------------

    @Test
    void registeredPersonalityIsUsableUntilUnregistered() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            int id = ring.register().personality();
            assertThat(id).isPositive();

            ring.sq().next().prepNop().personality(id);
            assertThat(run(ring)).isZero();

            ring.register().unregisterPersonality(id);
            ring.sq().next().prepNop().personality(id);
            assertThat(run(ring)).as("unknown personality").isEqualTo(-Errno.EINVAL);
            assertThat(errnoOf(() -> ring.register().unregisterPersonality(id))).isEqualTo(Errno.EINVAL);
        }
    }

    // ---- restrictions and R_DISABLED ------------------------------------------------------------------------

    @Test
    void restrictedRingAllowsOnlyTheListedOpcodesAndRegisterOps() throws Exception {
        try (Pipe pipe = Pipe.open(); Arena arena = Arena.ofConfined();
             IoUring ring = IoUring.builder().entries(8).disabled().build()) {
            ring.register().restrictions(Restriction.sqeOp(Opcode.NOP), Restriction.sqeOp(Opcode.WRITE),
                    Restriction.registerOp(RegisterOpcode.REGISTER_BUFFERS));
            ring.register().enableRings();

            MemorySegment data = arena.allocate(8);
            ring.sq().next().prepNop().userData(1);
            ring.sq().next().prepWrite(pipe.writeFd(), data, 0).userData(2);
            ring.sq().next().prepRead(pipe.readFd(), data, 0).userData(3);
            List<Completion> completions = submitAndReap(ring, 3);
            assertThat(completions).extracting(Completion::userData).containsExactlyInAnyOrder(1L, 2L, 3L);
            for (Completion c : completions) {
                int expected = switch ((int) c.userData()) {
                    case 1 -> 0;
                    case 2 -> 8;
                    default -> -Errno.EACCES;       // READ was not allowed
                };
                assertThat(c.res()).as("user_data %d", c.userData()).isEqualTo(expected);
            }

            ring.register().buffers(arena.allocate(4096, 4096));
            assertThat(errnoOf(() -> ring.register().files(pipe.readFd(), pipe.writeFd()))).isEqualTo(Errno.EACCES);
            assertThat(errnoOf(() -> ring.register().probe())).isEqualTo(Errno.EACCES);
        }
    }

    /** SQE flags: those required must all be set, and no other than those allowed; else -EACCES. */
    @Test
    void restrictedSqeFlagsRefuseAMissingRequiredFlagAndAnyFlagNotAllowed() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).disabled().build()) {
            ring.register().restrictions(Restriction.sqeOp(Opcode.NOP), Restriction.sqeFlagsRequired(SqeFlags.ASYNC),
                    Restriction.sqeFlagsAllowed(SqeFlags.IO_DRAIN));
            ring.register().enableRings();

            ring.sq().next().prepNop();
            assertThat(run(ring)).as("required flag missing").isEqualTo(-Errno.EACCES);
            ring.sq().next().prepNop().addFlags(SqeFlags.ASYNC);
            assertThat(run(ring)).as("required flag").isZero();
            ring.sq().next().prepNop().addFlags(SqeFlags.ASYNC | SqeFlags.IO_DRAIN);
            assertThat(run(ring)).as("required and allowed").isZero();
            ring.sq().next().prepNop().addFlags(SqeFlags.ASYNC | SqeFlags.CQE_SKIP_SUCCESS);
            assertThat(run(ring)).as("a flag not allowed (the failure is posted)").isEqualTo(-Errno.EACCES);
        }
    }

    /** One registration per ring; an invalid one registers nothing, and enabling twice is EBADFD. */
    @Test
    void restrictionsAreRegisteredOnceAndAnInvalidSetRegistersNothing() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).disabled().build()) {
            assertThat(errnoOf(() -> ring.register().restrictions(new Restriction(9, 0)))).as("unknown type")
                    .isEqualTo(Errno.EINVAL);
            assertThat(errnoOf(() -> ring.register().restrictions(Restriction.sqeOp(Opcode.NOP),
                    Restriction.sqeOp(250)))).as("unknown opcode").isEqualTo(Errno.EINVAL);
            ring.register().restrictions(Restriction.sqeOp(Opcode.NOP),
                    Restriction.registerOp(RegisterOpcode.REGISTER_ENABLE_RINGS));
            assertThat(errnoOf(() -> ring.register().restrictions(Restriction.sqeOp(Opcode.NOP))))
                    .isEqualTo(Errno.EBUSY);
            ring.register().enableRings();
            assertThat(errnoOf(() -> ring.register().enableRings())).isEqualTo(Errno.EBADFD);
            ring.sq().next().prepNop();
            assertThat(run(ring)).isZero();
        }
    }

    @Test
    void disabledRingRefusesToSubmitUntilEnabled() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).disabled().build()) {
            ring.sq().next().prepNop().userData(5);
            assertThat(errnoOf(ring::submit)).isEqualTo(Errno.EBADFD);

            ring.register().enableRings();
            // The refused SQE is still queued and goes in with the next submit.
            assertThat(ring.submitAndWait(1)).isEqualTo(1);
            assertThat(reap(ring)).isEqualTo(Completion.cqe(5, 0));
        }
    }

    @Test
    void restrictionsAndEnableNeedADisabledRing() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            assertThat(errnoOf(() -> ring.register().restrictions(Restriction.sqeOp(Opcode.NOP))))
                    .isEqualTo(Errno.EBADFD);
            assertThat(errnoOf(() -> ring.register().enableRings())).isEqualTo(Errno.EBADFD);
        }
    }

    // ---- synchronous cancel --------------------------------------------------------------------------------

    @Test
    void syncCancelOfAPendingPipeReadCancelsItBeforeReturning() throws Exception {
        try (Pipe pipe = Pipe.open(); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepRead(pipe.readFd(), arena.allocate(16), 0).userData(7);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(ring.register().syncCancel(7, 0, 0, ONE_SECOND)).isZero();
            // Done synchronously: the CQE is there without waiting.
            assertThat(ring.cq().ready()).isEqualTo(1);
            Completion c = reap(ring);
            assertThat(c.userData()).isEqualTo(7);
            assertThat(c.res()).isIn(-Errno.ECANCELED, -Errno.EINTR);

            assertThat(errnoOf(() -> ring.register().syncCancel(7, 0, 0, ONE_SECOND))).as("nothing left")
                    .isEqualTo(Errno.ENOENT);
        }
    }

    @Test
    void syncCancelByFdWithAllCancelsEveryMatchAndCountsThem() throws Exception {
        try (Pipe pipe = Pipe.open(); Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            for (int i = 0; i < 3; i++) {
                ring.sq().next().prepRead(pipe.readFd(), arena.allocate(16), 0).userData(i);
            }
            assertThat(ring.submit()).isEqualTo(3);

            int flags = OpFlags.Cancel.FD | OpFlags.Cancel.ALL;
            assertThat(ring.register().syncCancel(0, pipe.readFd(), flags, -1)).as("cancelled").isEqualTo(3);
            assertThat(reap(ring, 3)).extracting(Completion::res)
                    .allSatisfy(res -> assertThat(res).isIn(-Errno.ECANCELED, -Errno.EINTR));
        }
    }

    @Test
    void syncCancelOfAllWhenNothingMatchesIsZeroAndOfABadFdIsEBADF() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            assertThat(ring.register().syncCancel(0, 0, OpFlags.Cancel.ANY, ONE_SECOND)).isZero();
            assertThat(ring.register().syncCancel(3, 0, OpFlags.Cancel.ALL, ONE_SECOND)).isZero();
            assertThat(errnoOf(() -> ring.register().syncCancel(0, Integer.MAX_VALUE, OpFlags.Cancel.FD, ONE_SECOND)))
                    .isEqualTo(Errno.EBADF);
            assertThat(errnoOf(() -> ring.register().syncCancel(0, 0, OpFlags.Cancel.FD | OpFlags.Cancel.FD_FIXED,
                    ONE_SECOND))).as("no file table").isEqualTo(Errno.EBADF);
        }
    }

    /** liburing raises RLIMIT_NOFILE once when a file table hits EMFILE; so does Registrar. */
    @org.junit.jupiter.api.Test
    void aFileTableBeyondTheSoftFdLimitRaisesTheLimitOnce() throws Exception {
        long[] limit = io.uring4j.sys.LibC.getrlimit(io.uring4j.sys.LibC.RLIMIT_NOFILE);
        org.junit.jupiter.api.Assumptions.assumeTrue(limit != null && limit[1] > 4096, "hard fd limit too low to test");
        assertThat(io.uring4j.sys.LibC.setrlimit(io.uring4j.sys.LibC.RLIMIT_NOFILE, 1024, limit[1])).isZero();
        try (IoUring ring = IoUring.open(4)) {
            ring.register().filesSparse(2048);
            assertThat(io.uring4j.sys.LibC.getrlimit(io.uring4j.sys.LibC.RLIMIT_NOFILE)[0]).isGreaterThanOrEqualTo(2048);
        } finally {
            io.uring4j.sys.LibC.setrlimit(io.uring4j.sys.LibC.RLIMIT_NOFILE, limit[0], limit[1]);
        }
    }
}
