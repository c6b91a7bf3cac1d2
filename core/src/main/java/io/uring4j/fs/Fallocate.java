package io.uring4j.fs;

/** {@code fallocate(2)} mode bits; 0 allocates and extends the file as needed. */
public final class Fallocate {
    /** Allocate without changing the file size. */
    public static final int KEEP_SIZE = 0x01;
    /** Deallocate the range (must be combined with KEEP_SIZE). */
    public static final int PUNCH_HOLE = 0x02;
    /** Remove the range and shift the rest of the file down (block-aligned). */
    public static final int COLLAPSE_RANGE = 0x08;
    /** Zero the range, allocating it. */
    public static final int ZERO_RANGE = 0x10;
    /** Insert a hole of the range's size, shifting the rest of the file up (block-aligned). */
    public static final int INSERT_RANGE = 0x20;
    /** Unshare shared blocks of the range (reflinks). */
    public static final int UNSHARE_RANGE = 0x40;

    private Fallocate() {
    }
}
