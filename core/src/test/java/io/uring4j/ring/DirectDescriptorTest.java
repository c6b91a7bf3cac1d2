package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.run;
import static io.uring4j.ring.Reap.submitAndReap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The registered file table as direct descriptors fill it (liburing accept.c, socket-direct, file-alloc-range-hint,
 * fd-install): which slot FILE_INDEX_ALLOC picks, the errors of a missing or too small table, and that a slot
 * owns its file — replacing the slot, closing it, unregistering the table or closing the ring closes the file
 * (the peer sees end of stream), while a request already working on the slot's file and an fd installed from
 * the slot keep it open.
 */
@BothEngines
class DirectDescriptorTest {
    private Arena arena;
    private NetFixture net;
    private IoUring ring;

    @BeforeEach
    void setUp() throws Exception {
        arena = Arena.ofConfined();
        net = new NetFixture(arena);
        ring = IoUring.open(8);
    }

    @AfterEach
    void tearDown() {
        ring.close();
        net.close();
        arena.close();
    }

    /** A SOCKET into {@code slot} (or FILE_INDEX_ALLOC): its result. */
    private int socketDirect(int slot) throws Exception {
        ring.sq().next().prepSocketDirect(Sockets.AF_INET, Sockets.SOCK_STREAM, 0, slot);
        return run(ring);
    }

    /** An ACCEPT of one connection from {@code listener} into {@code slot}: the result, and the client in {@code client[0]}. */
    private int acceptDirect(int listener, int slot, int[] client) throws Exception {
        client[0] = net.connect(listener);
        ring.sq().next().prepAcceptDirect(listener, MemorySegment.NULL, MemorySegment.NULL, 0, slot);
        return run(ring);
    }

    @Test
    void allocationTakesTheSlotLastFreedThenGoesOnFromThere() throws Exception {
        ring.register().filesSparse(4);
        int alloc = OpFlags.FileIndex.ALLOC;
        assertThat(new int[] {socketDirect(alloc), socketDirect(alloc), socketDirect(alloc)}).containsExactly(0, 1, 2);

        ring.sq().next().prepCloseDirect(1);
        assertThat(run(ring)).isZero();
        assertThat(socketDirect(alloc)).as("the slot just emptied").isEqualTo(1);
        assertThat(socketDirect(alloc)).as("on past the last allocation").isEqualTo(3);
        assertThat(socketDirect(alloc)).as("full").isEqualTo(-Errno.ENFILE);
    }

    @Test
    void aMissingOrTooSmallTableIsRefused() throws Exception {
        assertThat(socketDirect(0)).as("explicit slot, no table").isEqualTo(-Errno.ENXIO);
        assertThat(socketDirect(OpFlags.FileIndex.ALLOC)).as("allocation, no table").isEqualTo(-Errno.ENFILE);
        ring.register().filesSparse(2);
        assertThat(socketDirect(2)).as("past the table").isEqualTo(-Errno.EINVAL);
        assertThat(socketDirect(1)).isZero();
    }

    @Test
    void aSlotFilledAgainClosesTheFileItHeld() throws Exception {
        ring.register().filesSparse(2);
        int listener = net.tcpListener();
        int[] first = new int[1];
        int[] second = new int[1];
        assertThat(acceptDirect(listener, 0, first)).isZero();
        assertThat(acceptDirect(listener, 0, second)).as("an occupied slot is replaced").isZero();

        net.assertEndOfStream(first[0]);
        ring.sq().next().prepSend(0, arena.allocateFrom("new"), 0).addFlags(SqeFlags.FIXED_FILE);
        assertThat(run(ring)).isEqualTo(4);
        assertThat(net.read(second[0], 16)).as("the slot is the second connection").hasSize(4);
    }

    @Test
    void unregisteringTheTableClosesItsFiles() throws Exception {
        ring.register().filesSparse(2);
        int listener = net.tcpListener();
        int[] first = new int[1];
        int[] second = new int[1];
        assertThat(acceptDirect(listener, OpFlags.FileIndex.ALLOC, first)).isZero();
        assertThat(acceptDirect(listener, OpFlags.FileIndex.ALLOC, second)).isEqualTo(1);

        ring.register().unregisterFiles();

        net.assertEndOfStream(first[0]);
        net.assertEndOfStream(second[0]);
    }

    @Test
    void closingTheRingClosesItsSlots() throws Exception {
        ring.register().filesSparse(1);
        int listener = net.tcpListener();
        int[] client = new int[1];
        assertThat(acceptDirect(listener, 0, client)).isZero();

        ring.close();

        net.assertEndOfStream(client[0]);
    }

    @Test
    void aFullTableEndsTheAcceptAndClosesTheConnection() throws Exception {
        ring.register().filesSparse(1);
        int listener = net.tcpListener();
        int[] placed = new int[1];
        int[] refused = new int[1];
        assertThat(acceptDirect(listener, OpFlags.FileIndex.ALLOC, placed)).isZero();
        assertThat(acceptDirect(listener, OpFlags.FileIndex.ALLOC, refused)).isEqualTo(-Errno.ENFILE);

        net.assertEndOfStream(refused[0]);
    }

    @Test
    void aRequestWaitingOnASlotKeepsItsFileWhenTheSlotCloses() throws Exception {
        ring.register().filesSparse(1);
        int listener = net.tcpListener();
        int[] client = new int[1];
        assertThat(acceptDirect(listener, 0, client)).isZero();
        MemorySegment in = arena.allocate(16);
        ring.sq().next().prepRecv(0, in, 0).addFlags(SqeFlags.FIXED_FILE).userData(1);
        ring.submit();

        ring.sq().next().prepCloseDirect(0).userData(2);
        assertThat(submitAndReap(ring).userData()).as("the close completes first: the recv still waits").isEqualTo(2);
        net.write(client[0], "late");
        Completion recv = reap(ring);
        assertThat(recv.userData()).isEqualTo(1);
        assertThat(recv.res()).as("the recv had the connection all along").isEqualTo(4);

        net.assertEndOfStream(client[0]);       // its last holder is done
    }

    @Test
    void aCancelByFixedFdMatchesTheFileTheSlotHoldsNow() throws Exception {
        ring.register().filesSparse(1);
        int listener = net.tcpListener();
        int[] first = new int[1];
        int[] second = new int[1];
        assertThat(acceptDirect(listener, 0, first)).isZero();
        MemorySegment in = arena.allocate(16);
        ring.sq().next().prepRecv(0, in, 0).addFlags(SqeFlags.FIXED_FILE).userData(1);
        ring.submit();
        assertThat(acceptDirect(listener, 0, second)).isZero();

        ring.sq().next().prepCancelFd(0, OpFlags.Cancel.FD_FIXED).userData(2);
        assertThat(run(ring)).as("the recv holds the slot's former file").isEqualTo(-Errno.ENOENT);
        ring.sq().next().prepCloseDirect(0);
        assertThat(run(ring)).isZero();
        ring.sq().next().prepCancelFd(0, OpFlags.Cancel.FD_FIXED).userData(3);
        assertThat(run(ring)).as("an empty slot").isEqualTo(-Errno.EBADF);

        net.write(first[0], "to first");
        Completion recv = reap(ring);
        assertThat(recv.userData()).isEqualTo(1);
        assertThat(recv.res()).isEqualTo(8);
    }

    @Test
    void anInstalledFdKeepsTheFileAfterItsSlotCloses() throws Exception {
        assumeInstall();
        ring.register().filesSparse(1);
        int listener = net.tcpListener();
        int[] client = new int[1];
        assertThat(acceptDirect(listener, 0, client)).isZero();

        ring.sq().next().prepFixedFdInstall(0, 0);
        int installed = net.track(run(ring));
        ring.sq().next().prepCloseDirect(0);
        assertThat(run(ring)).isZero();

        net.assertCarries(installed, client[0], "still open");
        net.close(installed);
        net.assertEndOfStream(client[0]);
    }

    private void assumeInstall() throws Exception {
        Rings.assumeSupported(ring, Opcode.FIXED_FD_INSTALL);
    }
}
