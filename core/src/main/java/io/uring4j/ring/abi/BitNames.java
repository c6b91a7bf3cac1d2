package io.uring4j.ring.abi;

import java.util.StringJoiner;

/** Renders a bit set as names ({@code SINGLE_MMAP|NODROP|...}); unknown bits print as {@code 1<<n}. */
final class BitNames {
    private BitNames() {
    }

    static String of(long bits, String[] namesByBit) {
        if (bits == 0) {
            return "0";
        }
        StringJoiner out = new StringJoiner("|");
        for (int bit = 0; bit < 64; bit++) {
            if ((bits & (1L << bit)) != 0) {
                out.add(bit < namesByBit.length && namesByBit[bit] != null ? namesByBit[bit] : "1<<" + bit);
            }
        }
        return out.toString();
    }
}
