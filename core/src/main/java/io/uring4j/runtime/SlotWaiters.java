package io.uring4j.runtime;

import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * A loop's submissions that found every request slot in flight, retried in order as completions free slots.
 * {@link Submission}s wait as they are (so that a cancel can take them out, and a close of their fd fail them);
 * other submissions wait as Runnables that retry them. Only a completion or a failed preparation frees a slot, so
 * a loop with nothing else to do sleeps while they wait: a full table is no reason to spin.
 *
 * <p>Loop thread only, but for {@link #any}.
 */
final class SlotWaiters {
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    /** Control submissions that found even the reserved slots taken: they may take any slot that frees. */
    private final ArrayDeque<Runnable> control = new ArrayDeque<>();
    /** Whether {@link #waiting} holds anything: lets a closing fd skip a hand-over to a loop with no waiters. */
    private volatile boolean any;

    /** Any thread: whether a submission (other than a control one) waits. */
    boolean any() {
        return any;
    }

    void add(Runnable retry) {
        waiting.add(retry);
        any = true;
    }

    void addControl(Runnable retry) {
        control.add(retry);
    }

    /**
     * Queues a submission on an fd. A close looks for the waiters on its fd only if there are any ({@link #any});
     * one that looked just before this submission came is caught here instead — the close sets its guard closing
     * and then reads the flag, this sets the flag and then reads the guard.
     */
    void add(Submission submission) {
        waiting.add(submission);
        any = true;
        FdGuard guard = submission.guard();
        if (guard != null && guard.isClosing()) {
            waiting.removeLast();
            submission.refuse(new ClosedChannelException());
        }
    }

    /** Takes {@code submission} out if it still waits; true if it did. */
    boolean remove(Submission submission) {
        return waiting.remove(submission);
    }

    /**
     * Retries the waiters in order while {@code table} has slots (one that still finds none goes back to the end);
     * {@code submit} runs one, control ones included.
     */
    void retry(RequestTable table, Consumer<Object> submit) {
        for (int n = control.size(); n > 0 && table.anyFree(); n--) {
            submit.accept(control.poll());
        }
        if (waiting.isEmpty()) {
            if (any) {
                any = false;        // a cancel took the last one out
            }
            return;
        }
        for (int n = waiting.size(); n > 0 && table.hasRoom(1); n--) {
            submit.accept(waiting.poll());
        }
        any = !waiting.isEmpty();
    }

    /** Fails the submissions on {@code closed}'s fd with ClosedChannelException. */
    void refuse(FdGuard closed) {
        if (waiting.removeIf(task -> refuseIfOn(task, closed))) {
            any = !waiting.isEmpty();
        }
    }

    private static boolean refuseIfOn(Object task, FdGuard closed) {
        if (task instanceof Submission submission && submission.guard() == closed) {
            submission.refuse(new ClosedChannelException());
            return true;
        }
        return false;
    }

    /** A closing loop: runs every waiter once, control ones first (each fails its handler: closing is set). */
    void drain(Consumer<Object> submit) {
        for (Runnable r; (r = control.poll()) != null; ) {
            submit.accept(r);
        }
        for (Object r; (r = waiting.poll()) != null; ) {
            submit.accept(r);
        }
    }
}
