package io.uring4j.ring;

import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.BitSet;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The remaining register calls: NAPI busy-poll settings (6.9), io-wq CPU affinity (5.14), a message posted
 * without a ring (REGISTER_SEND_MSG_RING, 6.13; liburing's msg-ring.c) and tagged files (FILES2 / FILES_UPDATE2
 * with tags, 5.13; liburing's rsrc_tags.c).
 */
@Timeout(30)
class NapiAffinityMsgTagsTest {
    private static void assumeRegisterOpcode(int opcode) {
        try {
            assumeTrue(Query.ofKernel().hasRegisterOpcode(opcode), () -> "kernel lacks " + RegisterOpcode.name(opcode));
        } catch (ErrnoException e) {
            // before 6.18 there is no query: the call itself will tell
        }
    }

    @Test
    void napiSettingsAreRegisteredAndHandedBack() throws Exception {
        assumeRegisterOpcode(RegisterOpcode.REGISTER_NAPI);
        try (IoUring ring = IoUring.open(4)) {
            try {
                ring.register().napi(50, true);
            } catch (ErrnoException e) {
                assumeTrue(e.errno() != Errno.EINVAL, "kernel built without NAPI busy polling");
                throw e;
            }
            assertThat(ring.register().unregisterNapi()).as("the busy-poll timeout that was set").isEqualTo(50);
        }
    }

    @Test
    void ioWqAffinityCanBeSetAndCleared() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            BitSet cpu0 = new BitSet();
            cpu0.set(0);
            ring.register().iowqAffinity(cpu0);
            ring.sq().next().prepNop().addFlags(SqeFlags.ASYNC).userData(1);
            assertThat(submitAndReap(ring)).as("a request punted to the io-wq still runs").isEqualTo(Completion.cqe(1, 0));
            ring.register().unregisterIowqAffinity();
        }
    }

    @Test
    void aThreadWithoutARingPostsACqe() throws Exception {
        assumeRegisterOpcode(RegisterOpcode.REGISTER_SEND_MSG_RING);
        try (IoUring ring = IoUring.open(4)) {
            Rings.onPlatformThread(() -> {
                Registrar.sendMsgRing(ring.fd(), 42, 0xfeedL);
                return null;
            });
            assertThat(reap(ring)).isEqualTo(Completion.cqe(0xfeedL, 42));
        }
    }

    @Test
    void aTaggedSlotPostsItsTagOnceReplaced() throws Exception {
        try (IoUring ring = IoUring.open(4); Pipe pipe = Pipe.open()) {
            ring.register().filesTagged(new int[] {pipe.readFd(), -1}, new long[] {77, 0});

            assertThat(ring.register().updateFilesTagged(0, new int[] {-1}, new long[] {0})).isOne();

            assertThat(reap(ring)).as("the tag, once the kernel let go of the file").isEqualTo(Completion.cqe(77, 0));
        }
    }
}
