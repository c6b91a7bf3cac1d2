package io.uring4j.portable;

/**
 * A growable FIFO of (long, int, int) records in three parallel arrays, so that a backlog costs no object per
 * record: the CQ overflow list (user_data, res, flags; FEAT_NODROP: kept, never dropped) and a legacy buffer
 * group (addr, len, bid). Not thread-safe: its owner's lock guards it.
 */
final class LongIntIntQueue {
    private long[] longs = new long[16];
    private int[] firsts = new int[16];
    private int[] seconds = new int[16];
    private int head;
    int count;

    void add(long l, int first, int second) {
        if (count == longs.length) {
            grow();
        }
        int at = (head + count) & (longs.length - 1);
        longs[at] = l;
        firsts[at] = first;
        seconds[at] = second;
        count++;
    }

    /** The oldest record's long. */
    long peekLong() {
        return longs[head];
    }

    /** The oldest record's first int. */
    int peekFirst() {
        return firsts[head];
    }

    /** The oldest record's second int. */
    int peekSecond() {
        return seconds[head];
    }

    void removeFirst() {
        remove(1);
    }

    /** Drops the {@code n} oldest records ({@code n <= count}). */
    void remove(int n) {
        head = (head + n) & (longs.length - 1);
        count -= n;
    }

    private void grow() {
        int n = longs.length;
        long[] l = new long[n * 2];
        int[] f = new int[n * 2];
        int[] s = new int[n * 2];
        for (int i = 0; i < count; i++) {
            int from = (head + i) & (n - 1);
            l[i] = longs[from];
            f[i] = firsts[from];
            s[i] = seconds[from];
        }
        longs = l;
        firsts = f;
        seconds = s;
        head = 0;
    }
}
