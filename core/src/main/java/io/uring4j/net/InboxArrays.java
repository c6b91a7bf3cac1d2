package io.uring4j.net;

/**
 * The arrays a selector's inboxes hold their bytes in, lent while bytes wait and taken back when the reads have
 * emptied them: a busy connection allocates nothing per receive, and an idle one holds no array. Arrays of
 * {@link #SIZE} bytes only (an inbox that must grow takes a larger one of its own); at most {@link #KEPT} spare,
 * so a burst of many connections' bytes leaves no more than that behind. Any thread: a channel's reads may run on
 * another thread than its selector's.
 */
final class InboxArrays {
    static final int SIZE = 2048;
    private static final int KEPT = 256;

    private final byte[][] spare = new byte[KEPT][];
    private int count;

    /** An array of {@link #SIZE} bytes. */
    synchronized byte[] take() {
        if (count == 0) {
            return new byte[SIZE];
        }
        byte[] array = spare[--count];
        spare[count] = null;
        return array;
    }

    /** An array an inbox no longer uses: kept for the next if it has the lent size and there is room. */
    synchronized void give(byte[] array) {
        if (array.length == SIZE && count < KEPT) {
            spare[count++] = array;
        }
    }
}
