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
 * <p>Per request: one {@link Request} (about 40 bytes of heap: header, index, generation, opcode, two
 * references, the scratch view) and {@link Op#SCRATCH_BYTES} bytes of native scratch, all allocated once.
 * Only the loop thread touches the table, so nothing here is synchronized.
 */
final class RequestTable {
    private final Request[] slots;
    private final int[] free;
    private int freeCount;

    RequestTable(int size, Arena arena) {
        MemorySegment scratch = arena.allocate((long) size * Op.SCRATCH_BYTES, 64);
        slots = new Request[size];
        free = new int[size];
        for (int i = 0; i < size; i++) {
            slots[i] = new Request(i, scratch.asSlice((long) i * Op.SCRATCH_BYTES, Op.SCRATCH_BYTES));
            free[i] = size - 1 - i;         // hand out low indexes first
        }
        freeCount = size;
    }

    /** A free slot bound to {@code handler} and {@code owner}, or {@code null} when every slot is in flight. */
    Request acquire(CompletionHandler handler, Object owner) {
        if (freeCount == 0) {
            return null;
        }
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

    int inFlight() {
        return slots.length - freeCount;
    }

    int size() {
        return slots.length;
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
