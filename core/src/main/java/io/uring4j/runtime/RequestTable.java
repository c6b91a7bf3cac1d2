package io.uring4j.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The preallocated request slots of one event loop — our {@code io_kiocb} table.
 *
 * <p>A request's user_data is {@code generation << 32 | index}. Every acquire bumps the slot's generation, so a
 * CQE for a slot that was released and reused (stale, or delivered twice) no longer matches and is dropped
 * instead of being delivered to the wrong request. Negative user_data values (bit 63) are reserved for the
 * loop's internal requests and never produced here.
 *
 * <p>A few slots beyond the table's size are kept for control requests ({@link #acquireControl}): a close's
 * cancellation must reach the kernel even when every ordinary slot is taken by a request it is there to cancel.
 *
 * <p>Per request: one {@link Request} (about 40 bytes of heap: header, index, generation, opcode, two
 * references, the scratch view) and {@link Op#SCRATCH_BYTES} bytes of native scratch, all allocated once.
 * Only the loop thread touches the table, so nothing here is synchronized.
 */
final class RequestTable {
    /** Slots beyond {@link #size()} that only control requests take. */
    static final int CONTROL_SLOTS = 8;

    private final Request[] slots;
    private final int[] free;
    private final int size;
    private int freeCount;

    RequestTable(int size, Arena arena) {
        int total = size + CONTROL_SLOTS;
        MemorySegment scratch = arena.allocate((long) total * Op.SCRATCH_BYTES, 64);
        this.size = size;
        slots = new Request[total];
        free = new int[total];
        for (int i = 0; i < total; i++) {
            slots[i] = new Request(i, scratch.asSlice((long) i * Op.SCRATCH_BYTES, Op.SCRATCH_BYTES));
            free[i] = total - 1 - i;         // hand out low indexes first
        }
        freeCount = total;
    }

    /**
     * A free slot bound to {@code handler} and {@code owner}, or {@code null} when {@link #size()} requests are
     * in flight.
     */
    Request acquire(CompletionHandler handler, Object owner) {
        return freeCount > CONTROL_SLOTS ? take(handler, owner) : null;
    }

    /** {@link #acquire} for a control request, which may also take the reserved slots. */
    Request acquireControl(CompletionHandler handler, Object owner) {
        return freeCount > 0 ? take(handler, owner) : null;
    }

    /** Whether any slot is free, a reserved one included. */
    boolean anyFree() {
        return freeCount > 0;
    }

    /** Whether {@code n} ordinary requests can be acquired now. */
    boolean hasRoom(int n) {
        return freeCount - CONTROL_SLOTS >= n;
    }

    private Request take(CompletionHandler handler, Object owner) {
        Request r = slots[free[--freeCount]];
        r.generation = r.generation == Integer.MAX_VALUE ? 1 : r.generation + 1;
        r.handler = handler;
        r.owner = owner;
        r.opcode = 0;
        return r;
    }

    /** Returns a slot after its final CQE: drops the references that kept the op's memory alive. */
    void release(Request r) {
        r.handler = null;
        r.owner = null;
        r.generation = r.generation == Integer.MAX_VALUE ? 1 : r.generation + 1;   // retire the user_data now
        free[freeCount++] = r.index;
    }

    /** The in-flight request a CQE's user_data names, or {@code null} if it is stale. */
    Request lookup(long userData) {
        int index = (int) userData;
        int generation = (int) (userData >>> 32);
        if (index < 0 || index >= slots.length) {
            return null;
        }
        Request r = slots[index];
        return r.generation == generation && r.handler != null ? r : null;
    }

    /** Requests in flight, control requests included. */
    int inFlight() {
        return slots.length - freeCount;
    }

    /** How many ordinary requests may be in flight at once (the builder's maxInFlight). */
    int size() {
        return size;
    }

    /** Calls {@code action} for every request in flight (close uses it to fail what never completes). */
    void forEachInFlight(java.util.function.Consumer<Request> action) {
        for (Request r : slots) {
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

        Request(int index, MemorySegment scratch) {
            this.index = index;
            this.scratch = scratch;
        }

        long userData() {
            return (long) generation << 32 | index;
        }
    }
}
