package io.uring4j.ring;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;

import static io.uring4j.ring.Reap.only;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing msg-ring.c, msg-ring-flags.c and msg-ring-fd.c: MSG_RING posts a CQE with chosen user_data and
 * result (and, with FLAGS_PASS, flags) into another ring — a normal or a DEFER_TASKRUN one —, fails with
 * -EBADFD for a target that is not a ring or is still disabled, and passes a registered file into the target's
 * file table.
 */
@BothEngines
class MsgRingTest {
    private static final long SOURCE = 1;

    private static IoUring target(boolean deferTaskrun) throws ErrnoException {
        IoUringBuilder builder = IoUring.builder().entries(8);
        return (deferTaskrun ? builder.deferTaskrun() : builder).build();
    }

    @ParameterizedTest(name = "DEFER_TASKRUN target: {0}")
    @ValueSource(booleans = {false, true})
    void dataMessageArrivesAsACqeOnTheTargetRing(boolean deferTaskrun) throws Exception {
        try (IoUring source = IoUring.open(8); IoUring target = target(deferTaskrun)) {
            assumeSupported(source, Opcode.MSG_RING);
            source.sq().next().prepMsgRing(target.fd(), 0x1234, 0xcafeL, 0).userData(SOURCE);

            Completion sent = submitAndReap(source);
            Completion received = reap(target);

            assertThat(sent.userData()).isEqualTo(SOURCE);
            assertThat(sent.res()).isZero();
            assertThat(received.userData()).isEqualTo(0xcafeL);
            assertThat(received.res()).isEqualTo(0x1234);
            assertThat(received.flags()).isZero();
            assertThat(source.cq().ready()).as("the source sees only its own completion").isZero();
        }
    }

    @Test
    void flagsPassSetsTheTargetCqeFlags() throws Exception {
        try (IoUring source = IoUring.open(8); IoUring target = IoUring.open(8)) {
            assumeSupported(source, Opcode.MSG_RING);
            int flags = CqeFlags.F_MORE | CqeFlags.F_BUFFER | (42 << CqeFlags.BUFFER_SHIFT);
            source.sq().next().prepMsgRingCqeFlags(target.fd(), 7, 0xbeefL, 0, flags).userData(SOURCE);

            assertThat(submitAndReap(source).res()).isZero();
            Completion received = reap(target);

            assertThat(received.userData()).isEqualTo(0xbeefL);
            assertThat(received.res()).isEqualTo(7);
            assertThat(received.flags()).isEqualTo(flags);
            assertThat(received.hasMore()).isTrue();
            assertThat(received.bufferId()).isEqualTo(42);
        }
    }

    /** A disabled target takes no message until it is enabled: -EBADFD, and nothing posted. */
    @Test
    void aMessageToADisabledRingIsEBADFD() throws Exception {
        try (IoUring source = IoUring.open(8); IoUring target = IoUring.builder().entries(8).disabled().build()) {
            assumeSupported(source, Opcode.MSG_RING);
            source.sq().next().prepMsgRing(target.fd(), 7, 0xbeefL, 0).userData(SOURCE);
            assertThat(submitAndReap(source).res()).isEqualTo(-Errno.EBADFD);
            assertThat(target.cq().ready()).isZero();

            target.register().enableRings();
            source.sq().next().prepMsgRing(target.fd(), 7, 0xbeefL, 0).userData(SOURCE);
            assertThat(submitAndReap(source).res()).isZero();
            assertThat(reap(target).userData()).isEqualTo(0xbeefL);
        }
    }

    @Test
    void passingAFileToADisabledRingIsEBADFD() throws Exception {
        try (Pipe pipe = Pipe.open(); IoUring source = IoUring.open(8);
             IoUring target = IoUring.builder().entries(8).disabled().build()) {
            assumeSupported(source, Opcode.MSG_RING);
            source.register().files(pipe.writeFd());
            target.register().filesSparse(1);
            source.sq().next().prepMsgRingFd(target.fd(), 0, 0, 0x77L, 0).userData(SOURCE);
            assertThat(submitAndReap(source).res()).isEqualTo(-Errno.EBADFD);
        }
    }

    @Test
    void cqeFlagsWithoutFlagsPassAreInvalid() throws Exception {
        try (IoUring source = IoUring.open(8); IoUring target = IoUring.open(8)) {
            assumeSupported(source, Opcode.MSG_RING);
            // The flags travel in file_index; without FLAGS_PASS a non-zero value is refused.
            source.sq().next().prepMsgRing(target.fd(), 7, 0xbeefL, 0).fileIndex(CqeFlags.F_MORE).userData(SOURCE);

            assertThat(submitAndReap(source).res()).isEqualTo(-Errno.EINVAL);
            assertThat(target.cq().ready()).isZero();
        }
    }

    @Test
    void aTargetThatIsNotARingIsEbadfd() throws Exception {
        try (Pipe pipe = Pipe.open(); IoUring source = IoUring.open(8)) {
            assumeSupported(source, Opcode.MSG_RING);
            source.sq().next().prepMsgRing(pipe.readFd(), 1, 2, 0).userData(SOURCE);

            assertThat(submitAndReap(source).res()).isEqualTo(-Errno.EBADFD);
        }
    }

    @Test
    void messageToItselfLandsOnTheSameRing() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            assumeSupported(ring, Opcode.MSG_RING);
            ring.sq().next().prepMsgRing(ring.fd(), 5, 0x5eL, 0).userData(SOURCE);

            var cqes = submitAndReap(ring, 2);

            assertThat(only(cqes, SOURCE).res()).isZero();
            assertThat(only(cqes, 0x5eL).res()).isEqualTo(5);
        }
    }

    // ---- fd passing ------------------------------------------------------------------------------------

    @ParameterizedTest(name = "target slot {0} (-1: ALLOC)")
    @ValueSource(ints = {2, OpFlags.FileIndex.ALLOC})
    void aRegisteredFileCanBePassedToAnotherRing(int targetSlot) throws Exception {
        try (Pipe pipe = Pipe.open(); IoUring source = IoUring.open(8); IoUring target = IoUring.open(8)) {
            assumeSupported(source, Opcode.MSG_RING);
            source.register().files(pipe.writeFd());          // the pipe's write end, as source slot 0
            target.register().filesSparse(4);

            source.sq().next().prepMsgRingFd(target.fd(), 0, targetSlot, 0x77L, 0).userData(SOURCE);
            assertThat(submitAndReap(source).res()).isZero();
            Completion installed = reap(target);

            assertThat(installed.userData()).isEqualTo(0x77L);
            int slot = installed.res();
            if (targetSlot == OpFlags.FileIndex.ALLOC) {
                assertThat(slot).as("the allocated slot").isBetween(0, 3);
            } else {
                assertThat(slot).as("an explicit slot reports 0").isZero();
                slot = targetSlot;
            }
            assertWritesThroughSlot(target, slot, pipe);
        }
    }

    @Test
    void fdPassingWithCqeSkipPostsNothingOnTheTarget() throws Exception {
        try (Pipe pipe = Pipe.open(); IoUring source = IoUring.open(8); IoUring target = IoUring.open(8)) {
            assumeSupported(source, Opcode.MSG_RING);
            source.register().files(pipe.writeFd());
            target.register().filesSparse(4);

            source.sq().next().prepMsgRingFd(target.fd(), 0, 1, 0x77L, OpFlags.MsgRing.CQE_SKIP).userData(SOURCE);
            assertThat(submitAndReap(source).res()).isZero();

            assertThat(target.cq().ready()).isZero();
            // The file did arrive: the slot works.
            assertWritesThroughSlot(target, 1, pipe);
        }
    }

    @Test
    void fdPassingToARingWithoutAFileTableFails() throws Exception {
        try (Pipe pipe = Pipe.open(); IoUring source = IoUring.open(8); IoUring target = IoUring.open(8)) {
            assumeSupported(source, Opcode.MSG_RING);
            source.register().files(pipe.writeFd());

            source.sq().next().prepMsgRingFd(target.fd(), 0, 0, 0x77L, 0).userData(SOURCE);

            assertThat(submitAndReap(source).res()).isEqualTo(-Errno.ENXIO);
            assertThat(target.cq().ready()).isZero();
        }
    }

    @Test
    void fdPassingFromAnEmptySlotOrToItselfFails() throws Exception {
        try (Pipe pipe = Pipe.open(); IoUring source = IoUring.open(8); IoUring target = IoUring.open(8)) {
            assumeSupported(source, Opcode.MSG_RING);
            source.register().files(pipe.writeFd(), -1);
            target.register().filesSparse(4);

            source.sq().next().prepMsgRingFd(target.fd(), 1, 0, 0x77L, 0).userData(SOURCE);
            assertThat(submitAndReap(source).res()).as("empty source slot").isEqualTo(-Errno.EBADF);
            source.sq().next().prepMsgRingFd(source.fd(), 0, 1, 0x77L, 0).userData(SOURCE);
            assertThat(submitAndReap(source).res()).as("to its own ring").isEqualTo(-Errno.EINVAL);
            assertThat(target.cq().ready()).isZero();
        }
    }

    @Test
    void aPassedFileOutlivesItsSourceSlot() throws Exception {
        try (Pipe pipe = Pipe.open(); IoUring source = IoUring.open(8); IoUring target = IoUring.open(8)) {
            assumeSupported(source, Opcode.MSG_RING);
            source.register().files(pipe.writeFd());
            target.register().filesSparse(1);
            source.sq().next().prepMsgRingFd(target.fd(), 0, 0, 0x77L, OpFlags.MsgRing.CQE_SKIP).userData(SOURCE);
            assertThat(submitAndReap(source).res()).isZero();

            source.register().unregisterFiles();

            assertWritesThroughSlot(target, 0, pipe);
        }
    }

    /** A fixed-file WRITE on {@code ring}'s {@code slot} shows up on the pipe's read end. */
    private static void assertWritesThroughSlot(IoUring ring, int slot, Pipe pipe) throws ErrnoException {
        byte[] data = "passed".getBytes();
        try (Arena arena = Arena.ofConfined()) {
            ring.sq().next().prepWrite(slot, arena.allocateFrom(JAVA_BYTE, data), 0)
                    .addFlags(SqeFlags.FIXED_FILE).userData(9);
            assertThat(submitAndReap(ring).res()).isEqualTo(data.length);
        }
        assertThat(pipe.read(16)).isEqualTo(data);
    }
}
