package io.uring4j.fs;

/** {@code posix_fadvise} advice: how the application expects to access a range of a file. */
public enum Advice {
    NORMAL(0),
    RANDOM(1),
    SEQUENTIAL(2),
    WILL_NEED(3),
    DONT_NEED(4),
    NO_REUSE(5);

    private final int value;

    Advice(int value) {
        this.value = value;
    }

    /** The {@code POSIX_FADV_*} value. */
    public int value() {
        return value;
    }
}
