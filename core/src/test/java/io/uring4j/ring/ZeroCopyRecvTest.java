package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import org.junit.jupiter.api.Test;

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
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Zero-copy receive (RECV_ZC + REGISTER_ZCRX_IFQ, 6.15) as far as loopback goes: it needs a NIC queue with
 * header split and flow steering, so here the registration is refused, clearly, and a receive naming no
 * registered queue fails (liburing's zcrx.c does the same checks).
 */
class ZeroCopyRecvTest {
    private static final MethodHandle IF_NAMETOINDEX = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("if_nametoindex").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** The ring zcrx wants: DEFER_TASKRUN (so SINGLE_ISSUER) and 32-byte CQEs. */
    private static IoUring zcrxRing() throws ErrnoException {
        return IoUring.builder().entries(8).singleIssuer().deferTaskrun().cqe32().build();
    }

    @Test
    void registeringLoopbackIsRefusedWithTheReason() throws Throwable {
        try (Arena arena = Arena.ofConfined(); IoUring ring = zcrxRing()) {
            assumeSupported(ring, Opcode.RECV_ZC);
            int lo = (int) IF_NAMETOINDEX.invokeExact(arena.allocateFrom("lo"));
            assertThat(lo).as("loopback's interface index").isPositive();
            MemorySegment area = arena.allocate(64 * 1024, 4096);
            MemorySegment refill = arena.allocate(2 * 4096, 4096);

            ErrnoException refused = catchThrowableOfType(ErrnoException.class,
                    () -> ring.register().zcrxIfq(lo, 0, 64, area, refill));

            assertThat(refused).as("loopback has no queue for zero-copy receive").isNotNull();
            assertThat(refused.getMessage()).contains(RegisterOpcode.name(RegisterOpcode.REGISTER_ZCRX_IFQ));
            assertThat(refused.errno()).isIn(Errno.EINVAL, Errno.EOPNOTSUPP, Errno.ENODEV, Errno.EPERM);
            assertThat(refused.getMessage()).containsAnyOf("header split", "CAP_NET_ADMIN");
        }
    }

    @Test
    void aReceiveNamingNoRegisteredQueueFails() throws Exception {
        try (Arena arena = Arena.ofConfined(); NetFixture net = new NetFixture(arena); IoUring ring = zcrxRing()) {
            assumeSupported(ring, Opcode.RECV_ZC);
            int[] tcp = net.tcpPair();
            ring.sq().next().prepRecvZc(tcp[1], 0, 0, 0).userData(1);

            Completion cqe = submitAndReap(ring);

            assertThat(cqe.res()).isEqualTo(-Errno.EINVAL);
            assertThat(cqe.hasMore()).isFalse();
        }
    }
}
