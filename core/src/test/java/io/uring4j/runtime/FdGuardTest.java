package io.uring4j.runtime;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.Sockets;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fd is closed only after the last request naming it has ended, and close cancels those in flight. */
class FdGuardTest {
    @Test
    void anIdleFdClosesAtOnceAndRefusesNewUsers() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            FdGuard guard = new FdGuard(uring.loop(), udpSocket());
            guard.close().get(10, TimeUnit.SECONDS);
            assertThat(guard.isClosing()).isTrue();
            assertThatThrownBy(guard::acquire).isInstanceOf(ClosedChannelException.class);
        }
    }

    @Test
    void closeWaitsForTheLastUserAndCancelsTheRequestInFlight() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build(); Arena arena = Arena.ofShared()) {
            FdGuard guard = new FdGuard(uring.loop(), udpSocket());     // a read on it waits until cancelled
            MemorySegment buf = arena.allocate(8);
            int fd = guard.acquire();
            CompletableFuture<Integer> read = uring.loop().submitAsync(Ops.read(fd, buf, -1));
            read.whenComplete((n, t) -> guard.release());
            int holder = guard.acquire();           // a user that has not submitted yet

            CompletableFuture<Void> closed = guard.close();
            Throwable cause = catchCause(read);
            assertThat(cause).isInstanceOfSatisfying(ErrnoException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.ECANCELED));
            assertThat(closed).as("a user still holds the fd").isNotDone();

            assertThat(holder).isEqualTo(fd);
            guard.release();
            closed.get(10, TimeUnit.SECONDS);
        }
    }

    private static Throwable catchCause(CompletableFuture<?> f) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    /** An unbound UDP socket, the guard's to close. */
    private static int udpSocket() throws ErrnoException {
        int ret = Sockets.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
        if (ret < 0) {
            throw new ErrnoException("socket", ret);
        }
        return ret;
    }
}
