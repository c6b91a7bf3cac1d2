package io.uring4j.runtime;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The request table: slots made as they are needed, up to the size, with the control slots on top. */
class RequestTableTest {
    private static final CompletionHandler NONE = (result, flags) -> { };

    @Test
    void slotsAreMadeAsNeededUpToTheSizeAndControlSlotsComeOnTop() {
        try (TrackedArena arena = new TrackedArena()) {
            long before = TrackedArena.inUse();
            RequestTable table = new RequestTable(5_000, arena);
            assertThat(TrackedArena.inUse() - before).as("scratch made at the start: the first chunk only")
                    .isEqualTo(1_024L * Op.SCRATCH_BYTES);
            List<RequestTable.Request> taken = new ArrayList<>();
            Set<Integer> indexes = new HashSet<>();
            for (int i = 0; i < 5_000; i++) {
                assertThat(table.hasRoom(5_000 - i)).isTrue();
                RequestTable.Request r = table.acquire(NONE, this);
                assertThat(r).as("ordinary slot %d", i).isNotNull();
                assertThat(indexes.add(r.index)).isTrue();
                taken.add(r);
            }
            assertThat(table.hasRoom(1)).isFalse();
            assertThat(table.acquire(NONE, this)).as("beyond the size").isNull();
            for (int i = 0; i < RequestTable.CONTROL_SLOTS; i++) {
                RequestTable.Request r = table.acquireControl(NONE, this);
                assertThat(r).as("control slot %d", i).isNotNull();
                taken.add(r);
            }
            assertThat(table.acquireControl(NONE, this)).isNull();
            assertThat(table.anyFree()).isFalse();
            assertThat(table.inFlight()).isEqualTo(5_000 + RequestTable.CONTROL_SLOTS);
            assertThat(TrackedArena.inUse() - before).isEqualTo((5_000L + RequestTable.CONTROL_SLOTS) * Op.SCRATCH_BYTES);

            long[] userData = taken.stream().mapToLong(RequestTable.Request::userData).toArray();
            for (int i = 0; i < taken.size(); i++) {
                assertThat(table.lookup(userData[i])).isSameAs(taken.get(i));
            }
            taken.forEach(table::release);
            assertThat(table.inFlight()).isZero();
            for (long ud : userData) {
                assertThat(table.lookup(ud)).as("a released slot's user_data is stale").isNull();
            }
            assertThat(table.hasRoom(5_000)).as("every slot reusable").isTrue();
        }
    }

    @Test
    void standingRequestsTakeSlotsBeyondTheSizeAndLeaveOrdinaryRoomAlone() {
        try (TrackedArena arena = new TrackedArena()) {
            RequestTable table = new RequestTable(16, arena);
            List<RequestTable.Request> standing = new ArrayList<>();
            for (int i = 0; i < 3_000; i++) {
                RequestTable.Request r = table.acquireStanding(NONE, this);
                assertThat(r).as("standing %d", i).isNotNull();
                standing.add(r);
            }
            assertThat(table.hasRoom(16)).as("ordinary room untouched").isTrue();
            assertThat(table.freeOrdinary()).isEqualTo(16);
            List<RequestTable.Request> ordinary = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                ordinary.add(table.acquire(NONE, this));
            }
            assertThat(ordinary).doesNotContainNull();
            assertThat(table.acquire(NONE, this)).as("the size still bounds ordinary requests").isNull();
            assertThat(table.acquireControl(NONE, this)).as("control slots still on top").isNotNull();
            assertThat(table.acquireStanding(NONE, this)).as("standing ones are not bounded by the size").isNotNull();
            assertThat(table.inFlight()).isEqualTo(3_000 + 16 + 1 + 1);

            standing.forEach(table::release);
            assertThat(table.freeOrdinary()).as("releasing standing slots frees no ordinary room").isZero();
            ordinary.forEach(table::release);
            assertThat(table.freeOrdinary()).isEqualTo(16 - 1);       // the control request is still in flight
        }
    }

    @Test
    void aRuntimeWithAMillionSlotsMakesThemOnlyAsTheyAreUsed() throws Exception {
        long before = Uring.nativeBytesInUse();
        try (Uring uring = Uring.builder().loops(1).maxInFlight(1 << 20).build()) {
            assertThat(uring.submitAsync(Op.nop(3)).get()).isEqualTo(3);
            // A million slots' scratch would be 64 MiB; the ring and the first chunk are far less.
            assertThat(Uring.nativeBytesInUse() - before).isLessThan(4L << 20);
        }
    }
}
