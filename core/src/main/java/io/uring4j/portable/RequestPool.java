package io.uring4j.portable;

/**
 * The ring's preallocated requests: {@code cq_entries} of them at setup (a ring rarely has more in flight than
 * its CQ holds), doubled on demand so that a burst is never refused. A stack of free slots; callers hold the
 * ring lock, which also lets cancel scan {@link #all} safely.
 */
final class RequestPool {
    Request[] all;
    private int[] free;
    private int freeCount;

    RequestPool(int initial) {
        all = new Request[initial];
        free = new int[initial];
        for (int i = 0; i < initial; i++) {
            all[i] = newRequest(i);
            free[i] = initial - 1 - i;
        }
        freeCount = initial;
    }

    private static Request newRequest(int slot) {
        Request r = new Request();
        r.slot = slot;
        return r;
    }

    Request acquire() {
        if (freeCount == 0) {
            grow();
        }
        return all[free[--freeCount]];
    }

    void release(Request r) {
        r.reset();
        free[freeCount++] = r.slot;
    }

    private void grow() {
        int old = all.length;
        Request[] bigger = java.util.Arrays.copyOf(all, old * 2);
        int[] biggerFree = new int[old * 2];
        for (int i = old; i < old * 2; i++) {
            bigger[i] = newRequest(i);
            biggerFree[freeCount++] = i;
        }
        all = bigger;
        free = biggerFree;
    }
}
