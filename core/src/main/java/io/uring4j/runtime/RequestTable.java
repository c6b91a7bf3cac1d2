package io.uring4j.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The request slots of one event loop — our {@code io_kiocb} table.
 *
 * <p>A request's user_data is {@code generation << 32 | index}. Every acquire bumps the slot's generation, so a
 * CQE for a slot that was released and reused (stale, or delivered twice) no longer matches and is dropped
 * instead of being delivered to the wrong request. Negative user_data values (bit 63) are reserved for the
 * loop's internal requests and never produced here.
 *
 * <p>Three kinds of request share the slots, each with its own bound:
 * <ul>
 *   <li>ordinary ({@link #acquire}): at most {@link #size()} in flight — the builder's maxInFlight, the bound
 *       on the work a loop has taken on;</li>
 *   <li>control ({@link #acquireControl}): {@link #CONTROL_SLOTS} more on top, so a close's cancellation
 *       reaches the kernel even when every ordinary slot is taken by a request it is there to cancel;</li>
 *   <li>standing ({@link #acquireStanding}): a multishot that stays armed while its owner lives — a connection's
 *       receive, a listener's accept. Descriptors bound them, not the table: idle connections must not use up
 *       the slots their own sends need, nor stop new connections while the loop has room for work.</li>
 * </ul>
 *
 * <p>Slots are made as they are first needed, in chunks that double: a bound of a million costs nothing until
 * it is used, and a slot once made is kept. Per slot: one {@link Request} (about 40 bytes of heap: header, index,
 * generation, opcode, flags, three references, the scratch view) and {@link Op#SCRATCH_BYTES} bytes of native
 * scratch. Only the loop thread touches the table, so nothing here is synchronized.
 */
final class RequestTable {
    /** Slots beyond {@link #size()} that only control requests take. */
    static final int CONTROL_SLOTS = 8;
    /** Slots made at the start, at most: most loops never need more. */
    private static final int FIRST_CHUNK = 1024;
    /** The most slots a table makes: the index is the low half of user_data, and bit 31 is kept clear. */
    static final int MAX_SLOTS = 1 << 30;

    /** Which bound a request counts against. */
    enum Kind { ORDINARY, CONTROL, STANDING }

    private final Arena arena;
    /** Ordinary requests at most in flight; control requests may take {@link #CONTROL_SLOTS} more. */
    private final int size;
    /** Slots made so far: {@code slots[0, made)}. */
    private int made;
    private Request[] slots;
    /** A stack of free slot indexes, lowest on top. */
    private int[] free;
    private int freeCount;
    /** Ordinary and control requests in flight: those the size bounds (standing ones are the rest). */
    private int counted;

    RequestTable(int size, Arena arena) {
        this.arena = arena;
        this.size = size;
        slots = new Request[0];
        free = new int[0];
        grow(Math.min(size + CONTROL_SLOTS, FIRST_CHUNK));
    }

    /**
     * A free slot bound to {@code handler} and {@code owner}, or {@code null} when {@link #size()} ordinary
     * requests are in flight.
     */
    Request acquire(CompletionHandler handler, Object owner) {
        return counted < size ? take(handler, owner, false) : null;
    }

    /** {@link #acquire} for a control request, which may also take the reserved slots. */
    Request acquireControl(CompletionHandler handler, Object owner) {
        return counted < size + CONTROL_SLOTS ? take(handler, owner, false) : null;
    }

    /** A slot for a standing request: never {@code null} short of {@link #MAX_SLOTS}. */
    Request acquireStanding(CompletionHandler handler, Object owner) {
        return take(handler, owner, true);
    }

    /** {@link #acquire}, {@link #acquireControl} or {@link #acquireStanding}, as {@code kind} says. */
    Request acquire(Kind kind, CompletionHandler handler, Object owner) {
        return switch (kind) {
            case ORDINARY -> acquire(handler, owner);
            case CONTROL -> acquireControl(handler, owner);
            case STANDING -> acquireStanding(handler, owner);
        };
    }

    /** Whether any slot is free or can be made, a reserved one included. */
    boolean anyFree() {
        return counted < size + CONTROL_SLOTS;
    }

    /** Whether {@code n} ordinary requests can be acquired now. */
    boolean hasRoom(int n) {
        return size - counted >= n;
    }

    /** Ordinary slots free: {@link #size()} less the ordinary and control requests in flight. */
    int freeOrdinary() {
        return Math.max(0, size - counted);
    }

    private Request take(CompletionHandler handler, Object owner, boolean standing) {
        if (freeCount == 0) {
            if (made == MAX_SLOTS) {
                return null;
            }
            // Twice as many, but no more than the bounded kinds can use and room to double the standing ones.
            long wanted = (long) size + CONTROL_SLOTS + 2L * (made - counted);
            grow((int) Math.min(MAX_SLOTS, Math.min(2L * made, Math.max(made + 1L, wanted))));
        }
        Request r = slots[free[--freeCount]];
        r.generation = r.generation == Integer.MAX_VALUE ? 1 : r.generation + 1;
        r.handler = handler;
        r.owner = owner;
        r.opcode = 0;
        r.bounded = false;
        r.standing = standing;
        if (!standing) {
            counted++;
        }
        return r;
    }

    private void grow(int total) {
        int first = made;
        MemorySegment scratch = arena.allocate((long) (total - first) * Op.SCRATCH_BYTES, 64);
        slots = Arrays.copyOf(slots, total);
        free = Arrays.copyOf(free, total);
        for (int i = total - 1; i >= first; i--) {       // pushed high to low: low indexes are handed out first
            slots[i] = new Request(i, scratch.asSlice((long) (i - first) * Op.SCRATCH_BYTES, Op.SCRATCH_BYTES));
            free[freeCount++] = i;
        }
        made = total;
    }

    /**
     * Returns a slot after its final CQE (or a failed preparation): drops the references that kept the op's
     * memory alive, and ends the request's use of its fd.
     */
    void release(Request r) {
        r.handler = null;
        r.owner = null;
        r.releaseGuard();
        r.generation = r.generation == Integer.MAX_VALUE ? 1 : r.generation + 1;   // retire the user_data now
        if (!r.standing) {
            counted--;
        }
        free[freeCount++] = r.index;
    }

    /** The in-flight request a CQE's user_data names, or {@code null} if it is stale. */
    Request lookup(long userData) {
        int index = (int) userData;
        int generation = (int) (userData >>> 32);
        if (index < 0 || index >= made) {
            return null;
        }
        Request r = slots[index];
        return r.generation == generation && r.handler != null ? r : null;
    }

    /** Requests in flight, of every kind. */
    int inFlight() {
        return made - freeCount;
    }

    /** How many ordinary requests may be in flight at once (the builder's maxInFlight). */
    int size() {
        return size;
    }

    /** Calls {@code action} for every request in flight (close uses it to fail what never completes). */
    void forEachInFlight(java.util.function.Consumer<Request> action) {
        for (int i = 0; i < made; i++) {
            Request r = slots[i];
            if (r.handler != null) {
                action.accept(r);
            }
        }
    }

    /** One slot. Fields are the loop thread's; the scratch view is fixed at creation. */
    static final class Request {
        final int index;
        final MemorySegment scratch;
        int generation;
        byte opcode;
        CompletionHandler handler;
        /** Whatever owns the memory the kernel may touch (usually the {@link Op}): kept until the final CQE. */
        Object owner;
        /**
         * The guard of the fd the request names, whose user the request is until its slot is released, or null.
         * The submitter takes the use as it prepares the request ({@link FdGuard#acquireForRequests}).
         */
        FdGuard guard;
        /** The request completes without an outside event ({@link EventLoop#callBounded}). */
        boolean bounded;
        /** A standing request ({@link #acquireStanding}): not counted against the table's size. */
        boolean standing;

        Request(int index, MemorySegment scratch) {
            this.index = index;
            this.scratch = scratch;
        }

        long userData() {
            return (long) generation << 32 | index;
        }

        /** Ends the request's use of its fd: at its final CQE, or when the runtime gives up on it. */
        void releaseGuard() {
            FdGuard g = guard;
            if (g != null) {
                guard = null;
                g.release();
            }
        }
    }
}
