package io.uring4j.ring;

import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.uring4j.ring.Reap.byUserData;
import static io.uring4j.ring.Reap.reap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing test/submit-link-fail.c: a chain member that the kernel refuses at submission (prep) time. Unlike a
 * failure at completion, this one takes the whole chain down: every other member, earlier ones included and
 * even under IO_HARDLINK, completes with -ECANCELED, and submit still counts every SQE of the batch.
 */
@BothEngines
class SubmitLinkFailTest {
    /** user_data of the read that clogs the drain in the DRAIN variants. */
    private static final long CLOG = 42;

    static Stream<Arguments> chains() {
        List<Arguments> cases = new ArrayList<>();
        for (int length = 1; length <= 3; length++) {
            for (int failIndex = 0; failIndex < length; failIndex++) {
                for (int variant = 0; variant < 8; variant++) {
                    cases.add(Arguments.of(length, failIndex, (variant & 1) != 0, (variant & 2) != 0,
                            (variant & 4) != 0));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "length {0}, fails at {1}, hardlink {2}, drain {3}, last unlinked {4}")
    @MethodSource("chains")
    void submitTimeFailureCancelsEveryOtherMember(int length, int failIndex, boolean hardlink, boolean drain,
                                                  boolean lastUnlinked) throws Exception {
        int linkFlags = SqeFlags.IO_LINK | (hardlink ? SqeFlags.IO_HARDLINK : 0) | (drain ? SqeFlags.IO_DRAIN : 0);
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = IoUring.open(8)) {
            MemorySegment buffer = arena.allocate(1);
            int total = length;
            if (drain) {
                // A read of the empty pipe that everything after it must wait for: the chain sits in the
                // drain queue when it fails, the path where kernels once crashed or posted bad results.
                ring.sq().next().prepRead(pipe.readFd(), buffer, 0).userData(CLOG).addFlags(SqeFlags.IO_DRAIN);
                total++;
            }
            for (int i = 0; i < length; i++) {
                Sqe sqe = ring.sq().next();
                if (i == failIndex) {
                    // An invalid I/O priority class is refused while the SQE is prepared, before the fd is used.
                    sqe.prepRead(-1, buffer, 0).ioprio(-1);
                } else {
                    sqe.prepNop();
                }
                if (i != length - 1 || !lastUnlinked) {
                    sqe.addFlags(linkFlags);
                }
                sqe.userData(i);
            }

            assertThat(ring.submit()).as("SQEs consumed").isEqualTo(total);
            if (drain) {
                pipe.write(arena.allocate(1));
            }

            Map<Long, Completion> cqes = byUserData(reap(ring, total));
            if (drain) {
                assertThat(cqes.get(CLOG).res()).as("clog read %s", cqes).isEqualTo(1);
            }
            for (long i = 0; i < length; i++) {
                int res = cqes.get(i).res();
                if (i == failIndex) {
                    assertThat(res).as("the refused SQE %s", cqes).isNegative().isNotEqualTo(-Errno.ECANCELED);
                } else {
                    assertThat(res).as("member %d %s", i, cqes).isEqualTo(-Errno.ECANCELED);
                }
            }
        }
    }
}
