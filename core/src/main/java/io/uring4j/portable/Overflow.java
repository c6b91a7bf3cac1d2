package io.uring4j.portable;

/**
 * CQEs that did not fit in the CQ, oldest first (FEAT_NODROP: kept, never dropped). A growable ring of three
 * parallel arrays, so that a backlog costs no object per CQE. Under the ring lock.
 */
final class Overflow {
    private long[] userData = new long[16];
    private int[] res = new int[16];
    private int[] flags = new int[16];
    private int first;
    int count;

    void add(long ud, int result, int cqeFlags) {
        if (count == userData.length) {
            grow();
        }
        int at = (first + count) & (userData.length - 1);
        userData[at] = ud;
        res[at] = result;
        flags[at] = cqeFlags;
        count++;
    }

    long userData() {
        return userData[first];
    }

    int res() {
        return res[first];
    }

    int flags() {
        return flags[first];
    }

    void removeFirst() {
        first = (first + 1) & (userData.length - 1);
        count--;
    }

    private void grow() {
        int n = userData.length;
        long[] u = new long[n * 2];
        int[] r = new int[n * 2];
        int[] f = new int[n * 2];
        for (int i = 0; i < count; i++) {
            int from = (first + i) & (n - 1);
            u[i] = userData[from];
            r[i] = res[from];
            f[i] = flags[from];
        }
        userData = u;
        res = r;
        flags = f;
        first = 0;
    }
}
