package io.uring4j.bench;

/**
 * One reader's block numbers for the runtime and channel drivers: xorshift random blocks (-R1) or consecutive
 * ones (-R0), each reader starting from a seed of its own.
 */
final class Blocks {
    private final boolean random;
    private final long count;
    private long seed;

    Blocks(int reader, boolean random, long count) {
        this.random = random;
        this.count = count;
        this.seed = 0x9E3779B97F4A7C15L * (reader + 1);
    }

    long next() {
        if (!random) {
            return seed++ % count;
        }
        seed ^= seed << 13;
        seed ^= seed >>> 7;
        seed ^= seed << 17;
        return Math.floorMod(seed, count);
    }
}
