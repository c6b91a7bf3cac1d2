package io.uring4j.ring;

import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The query interface (REGISTER_QUERY, 6.18; liburing's ring-query.c): what the kernel says it supports. */
class QueryTest {
    private static Query queryOrSkip() throws ErrnoException {
        try {
            return Query.ofKernel();
        } catch (ErrnoException e) {
            assumeTrue(e.errno() != Errno.EINVAL, "kernel lacks IORING_REGISTER_QUERY (6.18)");
            throw e;
        }
    }

    @Test
    void theKernelAnswersWithoutARingAndAgreesWithTheProbe() throws Exception {
        Query query = queryOrSkip();
        Probe probe = Probe.ofKernel();

        assertThat(query.requestOpcodes()).as("opcodes 0..last_op").isEqualTo(probe.lastOp() + 1);
        assertThat(query.hasRegisterOpcode(RegisterOpcode.REGISTER_QUERY)).isTrue();
        assertThat(query.acceptsSetupFlags(SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN)).isTrue();
        assertThat(query.acceptsEnterFlags(EnterFlags.GETEVENTS | EnterFlags.EXT_ARG)).isTrue();
        try (IoUring ring = IoUring.open(2)) {
            assertThat(query.features() & ring.features()).as("the ring's features are among them")
                    .isEqualTo(Integer.toUnsignedLong(ring.features()));
            assertThat(ring.register().query()).as("through a ring: the same answer").isEqualTo(query);
        }
        assertThat(Opcode.KNOWN).as("this library names every opcode the kernel has")
                .isGreaterThanOrEqualTo(query.requestOpcodes());
    }
}
