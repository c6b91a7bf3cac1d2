package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import static io.uring4j.ring.Reap.reapResults;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every error path of the Java API: use after close, bad sizes, a full SQ, heap memory handed to a prep, bad
 * descriptors, and what {@link ErrnoException} messages say. Errors must be exceptions with a message that
 * names the operation and the errno, never a crash.
 */
@BothEngines
class ApiErrorsTest {
    // ---- use after close -----------------------------------------------------------------------------

    private static IoUring closedRing() throws Exception {
        IoUring ring = IoUring.open(8);
        ring.close();
        return ring;
    }

    @Test
    void closingTwiceIsFine() throws Exception {
        IoUring ring = IoUring.open(8);
        ring.close();
        assertThatCode(ring::close).doesNotThrowAnyException();
        assertThat(ring.isOpen()).isFalse();
        assertThat(ring.toString()).contains("closed");
    }

    @Test
    void everyRingOperationOnAClosedRingThrowsIllegalState() throws Exception {
        IoUring ring = closedRing();
        List<ThrowingConsumer<IoUring>> uses = List.of(
                r -> r.sq().next(),
                r -> r.cq().peek(),
                IoUring::submit,
                r -> r.submitAndWait(1),
                r -> r.submitAndWait(1, 1_000_000),
                IoUring::submitAndGetEvents,
                IoUring::getEvents,
                IoUring::waitCqe,
                r -> r.waitCqes(1, 0),
                IoUring::peekCqe,
                IoUring::register,
                IoUring::fd,
                r -> r.enter(0, 0, 0, 0, 0));
        for (ThrowingConsumer<IoUring> use : uses) {
            assertThatThrownBy(() -> use.accept(ring)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("io_uring is closed");
        }
    }

    @Test
    void aRegistrarKeptFromBeforeCloseThrowsIllegalState() throws Exception {
        IoUring ring = IoUring.open(8);
        Registrar registrar = ring.register();
        ring.close();
        assertThatThrownBy(registrar::probe).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("io_uring is closed");
        assertThatThrownBy(() -> registrar.eventfd(0)).isInstanceOf(IllegalStateException.class);
    }

    /** The SQE is a view of the unmapped SQE array: writing it fails cleanly instead of touching freed memory. */
    @Test
    void anSqeKeptFromBeforeCloseThrowsOnWrite() throws Exception {
        IoUring ring = IoUring.open(8);
        Sqe sqe = ring.sq().next();
        SubmissionQueue sq = ring.sq();
        CompletionQueue cq = ring.cq();
        ring.close();
        assertThatThrownBy(sqe::prepNop).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> sqe.userData(1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(sqe::userData).isInstanceOf(IllegalStateException.class);
        // Queues kept from before close are views of the unmapped rings too.
        assertThatThrownBy(sq::next).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(cq::ready).isInstanceOf(IllegalStateException.class);
    }

    // ---- sizes -----------------------------------------------------------------------------------------

    @Test
    void zeroOrNegativeEntriesAreRejectedBeforeTheKernelIsAsked() {
        for (int entries : new int[] {0, -1, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> IoUring.open(entries)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("entries").hasMessageContaining(String.valueOf(entries));
        }
        assertThatThrownBy(() -> IoUring.builder().entries(8).cqEntries(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cqEntries");
    }

    @Test
    void tooManyEntriesWithoutClampIsEINVALNamingEntriesAndFlags() {
        assertThatThrownBy(() -> IoUring.builder().entries(65536).singleIssuer().build())
                .isInstanceOfSatisfying(ErrnoException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.operation()).isEqualTo("io_uring_setup");
                    assertThat(e.getMessage()).contains("io_uring_setup", "EINVAL", "65536 entries", "SINGLE_ISSUER");
                });
        assertThatThrownBy(() -> IoUring.builder().entries(8).cqEntries(1 << 20).build())
                .isInstanceOfSatisfying(ErrnoException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.getMessage()).contains("CQSIZE");
                });
    }

    @Test
    void clampShrinksOversizedRingsToTheKernelMaximum() throws Exception {
        try (IoUring ring = IoUring.builder().entries(65536).clamp().build()) {
            assertThat(ring.sqEntries()).isEqualTo(32768);
            assertThat(ring.sq().entries()).isEqualTo(32768);
        }
        try (IoUring ring = IoUring.builder().entries(8).cqEntries(1 << 20).clamp().build()) {
            assertThat(ring.cqEntries()).isEqualTo(65536);
            assertThat(ring.cq().entries()).isEqualTo(65536);
        }
    }

    // ---- a full SQ -------------------------------------------------------------------------------------

    @Test
    void aFullSqReturnsNullUntilSubmitMakesRoom() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            for (int i = 0; i < 4; i++) {
                Sqe sqe = ring.sq().next();
                assertThat(sqe).isNotNull();
                sqe.prepNop().userData(i);
            }
            assertThat(ring.sq().next()).isNull();
            assertThat(ring.sq().next()).as("asking again changes nothing").isNull();
            assertThat(ring.submit()).isEqualTo(4);
            assertThat(ring.sq().next()).isNotNull();
        }
    }

    // ---- memory ----------------------------------------------------------------------------------------

    @Test
    void heapSegmentsAreRefusedByEveryPrepThatPassesAnAddress() throws Exception {
        MemorySegment heap = MemorySegment.ofArray(new byte[64]);
        try (IoUring ring = IoUring.open(8)) {
            Sqe sqe = ring.sq().next();
            List<ThrowingConsumer<Sqe>> preps = List.of(
                    s -> s.prepRead(0, heap, 0),
                    s -> s.prepWrite(1, heap, 0),
                    s -> s.prepReadv(0, heap, 1, 0, 0),
                    s -> s.prepTimeout(heap, 0, 0),
                    s -> s.prepSend(0, heap, 0),
                    s -> s.prepOpenat(LibC.AT_FDCWD, heap, 0, 0));
            for (ThrowingConsumer<Sqe> prep : preps) {
                assertThatThrownBy(() -> prep.accept(sqe)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("heap memory");
            }
            // The refused preps left the SQE as next() handed it out: a zeroed NOP, harmless if submitted.
            assertThat(sqe.opcode()).isEqualTo(Opcode.NOP);
            assertThat(sqe.addr()).isZero();
            assertThatThrownBy(() -> ring.register().buffers(heap)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    // ---- bad descriptors and errno in results ------------------------------------------------------------

    @Test
    void aReadOfABadFdCompletesWithEBADF() throws Exception {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            ring.sq().next().prepRead(Integer.MAX_VALUE, arena.allocate(8), 0).userData(1);
            ring.sq().next().prepRead(-1, arena.allocate(8), 0).userData(2);
            // A fixed-file read on a ring without a file table.
            ring.sq().next().prepRead(0, arena.allocate(8), 0).userData(3).addFlags(SqeFlags.FIXED_FILE);
            ring.submitAndWait(3);
            assertThat(reapResults(ring, 3)).isEqualTo(Map.of(1L, -Errno.EBADF, 2L, -Errno.EBADF, 3L, -Errno.EBADF));
        }
    }

    @Test
    void registerFailuresNameTheRegisterOpcodeAndTheErrno() throws Exception {
        try (IoUring ring = IoUring.open(8); EventFd efd = EventFd.open(0)) {
            assertThatThrownBy(() -> ring.register().eventfd(-1)).isInstanceOfSatisfying(ErrnoException.class, e -> {
                assertThat(e.errno()).isEqualTo(Errno.EBADF);
                assertThat(e.operation()).isEqualTo("io_uring_register(REGISTER_EVENTFD)");
                assertThat(e.getMessage()).contains("REGISTER_EVENTFD", "EBADF");
            });

            ring.register().eventfd(efd.fd());
            assertThatThrownBy(() -> ring.register().eventfd(efd.fd()))
                    .isInstanceOfSatisfying(ErrnoException.class, e -> {
                        assertThat(e.errnoName()).isEqualTo("EBUSY");
                        assertThat(e.getMessage()).contains("REGISTER_EVENTFD", "EBUSY", "already registered");
                    });

            ring.register().unregisterEventfd();
            assertThatThrownBy(() -> ring.register().unregisterEventfd())
                    .isInstanceOfSatisfying(ErrnoException.class, e ->
                            assertThat(e.getMessage()).contains("UNREGISTER_EVENTFD", e.errnoName()));
        }
    }

    @Test
    void unregisteringFilesThatWereNeverRegisteredIsENXIO() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            assertThatThrownBy(() -> ring.register().unregisterFiles())
                    .isInstanceOfSatisfying(ErrnoException.class, e -> {
                        assertThat(e.errno()).isEqualTo(Errno.ENXIO);
                        assertThat(e.getMessage()).contains("UNREGISTER_FILES", "ENXIO");
                    });
        }
    }

    @Test
    void enterFailuresNameTheOperationTheErrnoAndAHint() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).disabled().build()) {
            ring.sq().next().prepNop();
            assertThatThrownBy(ring::submit).isInstanceOfSatisfying(ErrnoException.class, e -> {
                assertThat(e.errno()).isEqualTo(Errno.EBADFD);
                assertThat(e.getMessage()).startsWith("io_uring_enter: EBADFD (").contains("R_DISABLED");
            });
        }
    }

    @Test
    void errnoExceptionAcceptsBothSignConventions() {
        ErrnoException negative = new ErrnoException("op", -Errno.EAGAIN);
        ErrnoException positive = new ErrnoException("op", Errno.EAGAIN, "try again");
        assertThat(negative.errno()).isEqualTo(positive.errno()).isEqualTo(Errno.EAGAIN);
        assertThat(negative.getMessage()).isEqualTo("op: EAGAIN (Resource temporarily unavailable)");
        assertThat(positive.getMessage()).isEqualTo("op: EAGAIN (Resource temporarily unavailable) — try again");
        assertThat(new ErrnoException("op", 200).getMessage()).contains("errno 200");
    }
}
