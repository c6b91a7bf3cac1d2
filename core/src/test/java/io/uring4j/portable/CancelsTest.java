package io.uring4j.portable;

import io.uring4j.ring.Cqe;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/** Cancels against requests other threads are issuing. */
class CancelsTest {
    /**
     * An ASYNC_CANCEL that finds a TIMEOUT running (picked by an io-wq worker, not armed yet) asks it to stop:
     * the timeout must not arm after that, or both wait for its deadline. The worker is held at the ring lock
     * it arms under — we submit the timeout and the cancel holding it — while the cancel runs.
     */
    @Test
    void aTimeoutACancelFoundRunningDoesNotArm() throws Exception {
        try (IoUring r = IoUring.builder().entries(8).engine(Engine.portable()).build();
             Arena arena = Arena.ofConfined()) {
            PortableRing ring = PortableEngine.instance().ring(r.fd());
            MemorySegment ts = arena.allocate(16);
            ts.set(JAVA_LONG, 0, TimeUnit.HOURS.toSeconds(1));
            ring.lock.lock();
            try {
                r.sq().next().prepTimeout(ts, 0, 0).userData(1).flags(SqeFlags.ASYNC);
                assertThat(r.submit()).isEqualTo(1);
                while (!waitsToArm(ring)) {
                    Thread.sleep(1);
                }
                r.sq().next().prepCancel(1, 0).userData(2);
                assertThat(r.submit()).isEqualTo(1);
            } finally {
                ring.lock.unlock();
            }
            Cqe timeout = r.waitCqes(1, TimeUnit.SECONDS.toNanos(10));
            assertThat(timeout).as("the timeout's CQE").isNotNull();
            assertThat(timeout.userData()).isEqualTo(1);
            assertThat(timeout.res()).isEqualTo(-Errno.ECANCELED);
            r.cq().seen(timeout);
            Cqe cancel = r.waitCqe();
            assertThat(cancel.userData()).isEqualTo(2);
            assertThat(cancel.res()).isZero();
            r.cq().seen(cancel);
        }
    }

    /** Whether an io-wq worker of {@code ring} waits for the ring lock to arm a TIMEOUT. */
    private static boolean waitsToArm(PortableRing ring) {
        String prefix = "uring4j-portable-" + Integer.toHexString(ring.fd) + "-iowq-";
        return Thread.getAllStackTraces().entrySet().stream()
                .anyMatch(e -> e.getKey().getName().startsWith(prefix) && e.getKey().getState() == Thread.State.WAITING
                        && Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().equals(Cancels.class.getName())
                                && f.getMethodName().equals("timeout")));
    }
}
