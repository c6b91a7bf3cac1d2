package io.uring4j.testkit;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/** Position-dependent test data: a byte out of place, or read from the wrong offset, shows as a mismatch. */
public final class Patterns {
    private Patterns() {
    }

    /** The byte at {@code pos} of pattern {@code seed}. */
    public static byte patternByte(int seed, long pos) {
        return (byte) (seed * 31 + pos * 7 + (pos >>> 9));
    }

    /** {@code length} bytes of pattern {@code seed}; different seeds (mod 256) give different bytes everywhere. */
    public static byte[] pattern(int seed, int length) {
        return pattern(seed, 0, length);
    }

    /** The pattern's bytes at file positions {@code [from, from + length)}. */
    public static byte[] pattern(int seed, long from, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = patternByte(seed, from + i);
        }
        return bytes;
    }

    /** Fills {@code buf} with pattern {@code seed} from position 0. */
    public static void fillPattern(MemorySegment buf, int seed) {
        for (long i = 0; i < buf.byteSize(); i++) {
            buf.set(JAVA_BYTE, i, patternByte(seed, i));
        }
    }
}
