package io.uring4j.runtime;

/**
 * Boxed request results, reused: a future's {@code Integer} is a fresh object for every result above 127, yet
 * requests complete with the same few byte counts again and again (a block size, a message size). A small
 * direct-mapped table keeps the last box of each; any thread may read or replace an entry, which is safe because
 * an {@code Integer} is immutable and its value field final, and a lost race costs only a box.
 */
final class ResultBoxes {
    private static final int MASK = 63;
    private static final Integer[] BOXES = new Integer[MASK + 1];

    private ResultBoxes() {
    }

    static Integer of(int value) {
        if (value >= -128 && value <= 127) {
            return value;                               // Integer's own cache
        }
        int slot = (value ^ value >>> 7 ^ value >>> 15) & MASK;
        Integer box = BOXES[slot];
        if (box == null || box.intValue() != value) {
            box = Integer.valueOf(value);
            BOXES[slot] = box;
        }
        return box;
    }
}
