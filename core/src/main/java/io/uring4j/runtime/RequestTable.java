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
 * <p>A few slots beyond the table's size are kept for control requests ({@link #acquireControl}): a close's
 * cancellation must reach the kernel even when every ordinary slot is taken by a request it is there to cancel.
 *
 * <p>Slots are made as they are first needed, in chunks that double, up to the size: a bound of a million
 * (a server's idle connections each keep a receive in flight) costs nothing until it is used, and a slot once
 * made is kept. Per slot: one {@link Request} (about 40 bytes of heap: header, index, generation, opcode, a
 * flag, three references, the scratch view) and {@link Op#SCRATCH_BYTES} bytes of native scratch.
 * Only the loop thread touches the table, so nothing here is synchronized.
 */
final class RequestTable {
    /** Slots beyond {@link #size()} that only control requests take. */
    static final int CONTROL_SLOTS = 8;
    /** Slots made at the start, at most: most loops never need more. */
    private static final int FIRST_CHUNK = 1024;

    private final Arena arena;
    /** Ordinary slots; control slots come on top. */
    private final int size;
    /** Slots made so far: {@code slots[0, made)}. */
    private int made;
    private Request[] slots;
    /** A stack of free slot indexes, lowest on top. */
    private int[] free;
    private int freeCount;

    RequestTable(int size, Arena arena) {
        this.arena = arena;
        this.size = size;
        slots = new Request[0];
        free = new int[0];
        grow(Math.min(size + CONTROL_SLOTS, FIRST_CHUNK));
    }

    /**
     * A free slot bound to {@code handler} and {@code owner}, or {@code null} when {@link #size()} requests are
     * in flight.
     */
    Request acquire(CompletionHandler handler, Object owner) {
        if (freeCount <= CONTROL_SLOTS && !growForMore()) {
            return null;
        }
        return take(handler, owner);
    }

    /** {@link #acquire} for a control request, which may also take the reserved slots. */
    Request acquireControl(CompletionHandler handler, Object owner) {
        if (freeCount == 0 && !growForMore()) {
            return null;
        }
        return take(handler, owner);
    }

    /** Whether any slot is free or can be made, a reserved one included. */
    boolean anyFree() {
        return freeCount > 0 || made < limit();
    }

    /** Whether {@code n} ordinary requests can be acquired now. */
    boolean hasRoom(int n) {
        return freeCount - CONTROL_SLOTS + (limit() - made) >= n;
    }

    private int limit() {
        return size + CONTROL_SLOTS;
    }

    /** Makes more slots, twice as many as there are (up to the limit); false if the table is at its limit. */
    private boolean growForMore() {
        if (made == limit()) {
            return false;
        }
        grow((int) Math.min(limit(), 2L * made));
        return true;
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

    private Request take(CompletionHandler handler, Object owner) {
        Request r = slots[free[--freeCount]];
        r.generation = r.generation == Integer.MAX_VALUE ? 1 : r.generation + 1;
        r.handler = handler;
        r.owner = owner;
        r.opcode = 0;
        r.bounded = false;
        return r;
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

    /** Requests in flight, control requests included. */
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
