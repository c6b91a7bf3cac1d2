package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.Reap.assertNoMoreCqes;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.userDataOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * liburing test/skip-cqe.c: {@code IOSQE_CQE_SKIP_SUCCESS} suppresses a request's CQE when it succeeds. A failure
 * still posts (and the members it cancels then post nothing), link timeouts that skip never post, and the CQEs
 * that are posted keep chain order. Each case ends by checking that nothing else is in the CQ.
 */
@BothEngines
class SkipCqeTest {
    private static final int LINK_SIZE = 6;
    private static final int MID = LINK_SIZE / 2;
    private static final int LAST = LINK_SIZE - 1;
    private static final long TIMEOUT_USER_DATA = -1;

    private Arena arena;
    private Pipe pipe;
    private IoUring ring;

    @BeforeEach
    void openRing() throws Exception {
        arena = Arena.ofConfined();
        pipe = Pipe.open();
        ring = IoUring.open(16);
        assumeTrue(ring.hasFeature(Features.CQE_SKIP), "kernel lacks IORING_FEAT_CQE_SKIP");
    }

    /** The ring goes first: nothing may still point into the arena when it is freed. */
    @AfterEach
    void closeRing() {
        if (ring != null) {
            ring.close();
        }
        if (pipe != null) {
            pipe.close();
        }
        arena.close();
    }

    /**
     * Chain member {@code i} (its user_data): a NOP, or at {@code failIndex} a request that is submitted fine but
     * fails when it runs, a 100-byte write from address NULL (-EFAULT).
     */
    private Sqe prepMember(int i, int failIndex) {
        Sqe sqe = ring.sq().next();
        return (i == failIndex ? sqe.prepRw(Opcode.WRITE, pipe.writeFd(), 0, 100, 0) : sqe.prepNop()).userData(i);
    }

    @ParameterizedTest(name = "length {0}, last skips too {1}")
    @CsvSource({"1, false", "1, true", "6, false", "6, true"})
    void successfulChainPostsOnlyTheMembersThatDoNotSkip(int length, boolean skipLast) throws Exception {
        for (int i = 0; i < length; i++) {
            Sqe sqe = ring.sq().next().prepNop().userData(i);
            if (i != length - 1 || skipLast) {
                sqe.addFlags(SqeFlags.IO_LINK | SqeFlags.CQE_SKIP_SUCCESS);
            }
        }
        assertThat(ring.submit()).isEqualTo(length);

        if (!skipLast) {
            assertThat(reap(ring)).isEqualTo(cqe(length - 1, 0));
        }
        assertNoMoreCqes(ring);
    }

    @ParameterizedTest(name = "failing member {0}")
    @CsvSource({MID + "", LAST + ""})
    void failedMemberPostsItsErrorAndTheCancelledRestPostsNothing(int failIndex) throws Exception {
        for (int i = 0; i < LINK_SIZE; i++) {
            Sqe sqe = prepMember(i, failIndex);
            if (i != LINK_SIZE - 1) {
                sqe.addFlags(SqeFlags.IO_LINK | SqeFlags.CQE_SKIP_SUCCESS);
            }
        }
        assertThat(ring.submit()).isEqualTo(LINK_SIZE);

        assertThat(reap(ring)).isEqualTo(cqe(failIndex, -Errno.EFAULT));
        assertNoMoreCqes(ring);
    }

    static Stream<Arguments> linkTimeoutPlacements() {
        List<Arguments> cases = new ArrayList<>();
        for (boolean async : new boolean[] {false, true}) {
            cases.add(Arguments.of(1, 0, async, -1));
            cases.add(Arguments.of(LINK_SIZE, MID, async, -1));
            cases.add(Arguments.of(LINK_SIZE, LAST, async, -1));
            cases.add(Arguments.of(LINK_SIZE, MID, async, MID));
            cases.add(Arguments.of(LINK_SIZE, MID, async, MID - 1));
            cases.add(Arguments.of(LINK_SIZE, MID, async, MID + 1));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "length {0}, link timeout after {1}, async {2}, failing member {3}")
    @MethodSource("linkTimeoutPlacements")
    void cancelledLinkTimeoutThatSkipsNeverPosts(int length, int timeoutAfter, boolean async, int failIndex)
            throws Exception {
        MemorySegment ts = Timespec.allocate(arena, Duration.ofSeconds(1).toNanos());
        for (int i = 0; i < length; i++) {
            Sqe sqe = prepMember(i, failIndex).addFlags(SqeFlags.IO_LINK | (async ? SqeFlags.ASYNC : 0));
            if (i != length - 1) {
                sqe.addFlags(SqeFlags.CQE_SKIP_SUCCESS);
            }
            if (i == timeoutAfter) {
                ring.sq().next().prepLinkTimeout(ts, 0).userData(TIMEOUT_USER_DATA)
                        .addFlags(SqeFlags.IO_LINK | SqeFlags.CQE_SKIP_SUCCESS);
            }
        }
        assertThat(ring.submit()).isEqualTo(length + 1);

        // One CQE: the failure if there is one, else the last member (the only one without SKIP).
        Completion expected = failIndex >= 0 ? cqe(failIndex, -Errno.EFAULT) : cqe(length - 1, 0);
        assertThat(reap(ring)).isEqualTo(expected);
        assertNoMoreCqes(ring);
    }

    @ParameterizedTest(name = "async {0}, read skips {1}, timeout skips {2}")
    @CsvSource({"false, false, false", "true, false, false", "false, true, false", "true, true, false",
        "false, false, true", "true, false, true", "false, true, true", "true, true, true"})
    void firingLinkTimeoutPostsOnlyIfItDoesNotSkip(boolean async, boolean skipRead, boolean skipTimeout)
            throws Exception {
        Sqe read = ring.sq().next().prepRead(pipe.readFd(), arena.allocate(1), 0).userData(0).link();
        if (async) {
            read.addFlags(SqeFlags.ASYNC);
        }
        if (skipRead) {
            read.addFlags(SqeFlags.CQE_SKIP_SUCCESS);
        }
        Sqe timeout = ring.sq().next().prepLinkTimeout(Timespec.allocate(arena, Duration.ofMillis(1).toNanos()), 0)
                .userData(1);
        if (skipTimeout) {
            timeout.addFlags(SqeFlags.CQE_SKIP_SUCCESS);
        }
        assertThat(ring.submit()).isEqualTo(2);

        // The cancelled read failed, so it posts even with SKIP; the timeout firing counts as its success.
        List<Completion> cqes = reap(ring, skipTimeout ? 1 : 2);
        List<Long> userData = userDataOf(cqes);
        assertThat(userData).as("CQEs %s", cqes).containsExactlyInAnyOrderElementsOf(
                skipTimeout ? List.of(0L) : List.of(0L, 1L));
        Completion readCqe = cqes.get(userData.indexOf(0L));
        assertThat(readCqe.res()).as("read %s", readCqe).isIn(-Errno.ECANCELED, -Errno.EINTR);
        assertNoMoreCqes(ring);
    }

    static Stream<Arguments> hardLinkCases() {
        List<Arguments> cases = new ArrayList<>();
        for (int fail = 0; fail <= 6; fail += 3) {
            for (int skip = 0; skip <= 6; skip += 3) {
                cases.add(Arguments.of(fail, skip, false));
                cases.add(Arguments.of(fail, skip, true));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "fails at {0}, skips at {1}, last hard-linked {2}")
    @MethodSource("hardLinkCases")
    void hardLinkedChainPostsInOrderAndSkipsOnlySuccess(int failIndex, int skipIndex, boolean hardLinkLast)
            throws Exception {
        final int length = 7;
        for (int i = 0; i < length; i++) {
            Sqe sqe = prepMember(i, failIndex);
            if (i != length - 1 || hardLinkLast) {
                sqe.addFlags(SqeFlags.IO_HARDLINK);
            }
            if (i == skipIndex) {
                sqe.addFlags(SqeFlags.CQE_SKIP_SUCCESS);
            }
        }
        assertThat(ring.submit()).isEqualTo(length);

        List<Completion> expected = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            if (i == failIndex) {
                expected.add(cqe(i, -Errno.EFAULT));    // posts even if it asked to skip: it failed
            } else if (i != skipIndex) {
                expected.add(cqe(i, 0));                // the hard link carries on past the failure
            }
        }
        assertThat(reap(ring, expected.size())).containsExactlyElementsOf(expected);
        assertNoMoreCqes(ring);
    }
}
