package io.uring4j.net;

import org.junit.jupiter.api.Test;

import static io.uring4j.ring.abi.OpFlags.Poll.POLLERR;
import static io.uring4j.ring.abi.OpFlags.Poll.POLLHUP;
import static io.uring4j.ring.abi.OpFlags.Poll.POLLIN;
import static io.uring4j.ring.abi.OpFlags.Poll.POLLOUT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two rules that keep the cached readiness level-triggered without losing a report, each at the step where
 * a race would break it (the stress version, with real threads and sockets, is SelectorLoadTest).
 */
class ReadinessTest {
    @Test
    void aClearAppliesOnlyToTheStateItsCallBeganWith() {
        Readiness readiness = new Readiness();
        readiness.report(POLLIN | POLLOUT);
        long before = readiness.snapshot();
        readiness.clear(before, POLLIN);
        assertThat(readiness.events()).isEqualTo(POLLOUT);

        long beforeRecv = readiness.snapshot();
        readiness.report(POLLIN);                      // data arrived, and was reported, after the recv began
        readiness.clear(beforeRecv, POLLIN | POLLERR | POLLHUP);
        assertThat(readiness.events()).as("the newer report wins").isEqualTo(POLLIN | POLLOUT);

        long now = readiness.snapshot();
        readiness.clear(now, POLLERR);                 // nothing of it cached: no change
        assertThat(readiness.snapshot()).isEqualTo(now);
    }

    @Test
    void reportsPostedBeforeACallThatFoundNothingAreStale() {
        UringSelectionKey key = new UringSelectionKey(null, null, null);
        assertThat(key.fresh(POLLIN | POLLOUT | POLLHUP, 0)).isEqualTo(POLLIN | POLLOUT | POLLHUP);
        key.stale(POLLIN, 10);                         // a recv that began when 10 CQEs had been posted: EAGAIN
        assertThat(key.fresh(POLLIN | POLLOUT, 9)).isEqualTo(POLLOUT);
        assertThat(key.fresh(POLLIN | POLLOUT, 10)).as("posted after the call began").isEqualTo(POLLIN | POLLOUT);
        assertThat(key.fresh(POLLHUP | POLLERR, 9)).as("the call would have seen those").isZero();
        key.stale(POLLOUT, 5);
        assertThat(key.fresh(POLLOUT, 7)).isEqualTo(POLLOUT);
        key.stale(POLLIN, 3);                          // an older mark never lowers a newer one
        assertThat(key.fresh(POLLIN, 9)).isZero();
    }
}
