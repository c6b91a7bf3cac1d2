package io.uring4j.runtime;

import io.uring4j.ring.Sqe;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Logs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * How other threads wake a loop asleep in {@code io_uring_enter}: an eventfd the ring is reading. A thread that
 * handed work over writes it only if the loop announced it is about to sleep, and only the first of them: one write
 * per sleep, not per task.
 *
 * <p>While a bounded request (regular-file I/O, {@link EventLoop#callBounded}) is in flight the loop is sure to wake
 * for its CQE, so it may announce a bounded sleep: other bounded calls handed over meanwhile ride along with that
 * wake-up instead of writing the eventfd; anything else still wakes it. How long such a sleep lasts is the
 * {@link SleepPolicy}'s.
 */
final class Waker {
    /** Internal user_data: the eventfd read that wakes the loop. */
    static final long WAKEUP = -1L;

    private static final int AWAKE = 0;
    private static final int SLEEPING = 1;
    /** Asleep until a CQE that is sure to come: bounded hand-overs do not wake it. */
    private static final int SLEEPING_BOUNDED = 2;
    /** Parked in Java, not in the kernel ({@link #parking}): a hand-over unparks it. */
    private static final int PARKED = 3;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Waker.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The eventfd increment every waker writes: read-only after initialisation, so shared by all. */
    private static final MemorySegment ONE = Arena.global().allocateFrom(JAVA_LONG, 1L);

    private final int loopId;
    private final Thread loop;
    private final MemorySegment value;
    private final int eventfd;
    @SuppressWarnings("unused") // accessed through STATE
    private volatile int state;
    /**
     * Set by other threads when they hand over a bounded call, cleared by the loop as it goes to sleep. Only
     * then is a sleep bounded (timed): a lone long request — an fsync of milliseconds — sleeps untimed, since
     * no one is there to ride along, and the first caller to come wakes the loop as any hand-over does.
     */
    private volatile boolean boundedHandedOver;
    /** Set once the loop stops taking hand-overs; no eventfd write starts after it. */
    private volatile boolean stopped;
    /**
     * Threads in {@link #wake} — once per sleep of the loop, not per hand-over — so that the loop, once
     * {@link #stopped}, closes the eventfd only after they are out: a write to a closed fd number could land in
     * whatever file reuses it.
     */
    private final AtomicInteger waking = new AtomicInteger();
    /** Loop thread: the eventfd read is in flight. */
    private boolean armed;

    /** Loop thread: opens the eventfd; its read buffer lives in {@code arena}. */
    Waker(int loopId, Arena arena) throws ErrnoException {
        this.loopId = loopId;
        this.loop = Thread.currentThread();
        this.value = arena.allocate(8, 8);
        this.eventfd = LibC.eventfd(0, LibC.EFD_CLOEXEC | LibC.EFD_NONBLOCK);
        if (eventfd < 0) {
            throw new ErrnoException("eventfd", eventfd);
        }
    }

    // ---- loop thread -------------------------------------------------------------------------------------

    /** Whether the eventfd read is in flight: a wake-up can reach the loop. */
    boolean armed() {
        return armed;
    }

    /** Prepares the eventfd read in {@code sqe}. */
    void arm(Sqe sqe) {
        sqe.prepRead(eventfd, value, 0).userData(WAKEUP);
        armed = true;
    }

    /** The eventfd read completed: it must be armed again before the loop sleeps. */
    void fired() {
        armed = false;
    }

    /** Whether a bounded call was handed over since the last sleep (only then is a sleep bounded). */
    boolean boundedHandedOver() {
        return boundedHandedOver;
    }

    /**
     * Announces a sleep; the caller then checks its queue again, since a hand-over may have raced with this. A
     * bounded sleep ends with a CQE for sure, so bounded hand-overs do not wake it.
     */
    void sleeping(boolean bounded) {
        boundedHandedOver = false;
        STATE.setVolatile(this, bounded ? SLEEPING_BOUNDED : SLEEPING);
    }

    /**
     * Announces a sleep in Java ({@link java.util.concurrent.locks.LockSupport#parkNanos}); as with
     * {@link #sleeping}, the caller then checks its queue again. For a loop with nothing in the kernel once the
     * process is ending ({@link VmExit}): HotSpot's last safepoint waits for threads in native code, not for parked
     * ones.
     */
    void parking() {
        STATE.setVolatile(this, PARKED);
    }

    void awake() {
        STATE.setVolatile(this, AWAKE);
    }

    /** Refuses further wake-ups and waits out the threads still writing the eventfd. */
    void stop() {
        stopped = true;
        while (waking.get() != 0) {
            Thread.onSpinWait();
        }
    }

    void closeFd() {
        LibC.close(eventfd);
    }

    // ---- any thread --------------------------------------------------------------------------------------

    /** Whether the loop stopped taking hand-overs. */
    boolean stopped() {
        return stopped;
    }

    /** After a hand-over was queued: wakes the loop if it sleeps, unless the sleep is bounded and so is the call. */
    void handedOver(boolean bounded) {
        if (bounded && !boundedHandedOver) {
            boundedHandedOver = true;
        }
        int s = (int) STATE.getVolatile(this);
        if (s == PARKED && STATE.compareAndSet(this, s, AWAKE)) {
            LockSupport.unpark(loop);
        } else if ((s == SLEEPING || s == SLEEPING_BOUNDED && !bounded) && STATE.compareAndSet(this, s, AWAKE)) {
            wake();
        }
    }

    /** Wakes the loop whatever it announced (a close, the process's end). */
    void wakeNow() {
        STATE.setVolatile(this, AWAKE);
        LockSupport.unpark(loop);
        wake();
    }

    private void wake() {
        waking.incrementAndGet();
        try {
            if (!stopped) {
                long ret = LibC.write(eventfd, ONE);
                if (ret < 0 && ret != -Errno.EAGAIN) {
                    Logs.runtime().log(System.Logger.Level.ERROR,
                            "uring4j loop " + loopId + ": eventfd write failed: " + Errno.name((int) ret));
                }
            }
        } finally {
            waking.decrementAndGet();
        }
    }
}
