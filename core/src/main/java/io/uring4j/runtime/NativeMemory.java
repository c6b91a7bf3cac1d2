package io.uring4j.runtime;

import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The native memory uring4j holds for its own buffers — request tables, buffer pools, receive buffer rings,
 * connections' pending output and input — and the limit it keeps to, as {@code -XX:MaxDirectMemorySize} bounds
 * the JDK's direct buffers (which these are not). An allocation past the limit throws {@link OutOfMemoryError}
 * naming it; a loop-style connection that hits it is closed with that error, others go on.
 *
 * <p>The limit: {@code -During4j.maxNativeMemory=SIZE} (bytes, or with a K, M or G suffix); by default the
 * JVM's maximum heap, which is also the JDK's default for MaxDirectMemorySize, but at least
 * {@link #SMALLEST_DEFAULT}: a server's fixed share (a 16 MiB receive buffer ring per loop, request tables) must
 * not use up the limit of a small heap.
 */
public final class NativeMemory {
    private static final String PROPERTY = "uring4j.maxNativeMemory";
    /** The least the default limit is. */
    static final long SMALLEST_DEFAULT = 512L << 20;
    private static final AtomicLong IN_USE = new AtomicLong();
    private static final long LIMIT = limitFrom(System.getProperty(PROPERTY));

    private NativeMemory() {
    }

    /** Native bytes uring4j holds now. */
    public static long inUse() {
        return IN_USE.get();
    }

    /** The most it may hold. */
    public static long limit() {
        return LIMIT;
    }

    /** An arena for one thread whose allocations count against the limit. */
    public static Arena confinedArena() {
        return new TrackedArena(Arena.ofConfined());
    }

    /** An arena any thread may use, likewise counted. */
    public static Arena sharedArena() {
        return new TrackedArena(Arena.ofShared());
    }

    /**
     * {@code size} bytes (rounded up to whole pages) of zero-filled anonymous memory that takes RAM only as its pages
     * are first touched, counted like an allocation and unmapped when {@code arena} closes. For large buffers a
     * workload may use only the start of, such as a receive buffer ring consumed incrementally.
     */
    public static MemorySegment mapPages(long size, Arena arena) {
        long length = (size + LibC.PAGE_SIZE - 1) & -LibC.PAGE_SIZE;
        reserve(length);
        long address = LibC.mmap(0, length, LibC.PROT_READ | LibC.PROT_WRITE,
                LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS, -1, 0);
        if (address < 0) {
            unreserve(length);
            throw new OutOfMemoryError("uring4j native memory: mmap of " + length + " bytes: "
                    + Errno.name((int) -address));
        }
        return MemorySegment.ofAddress(address).reinterpret(length, arena, unused -> {
            LibC.munmap(address, length);
            unreserve(length);
        });
    }

    static void reserve(long bytes) {
        reserve(bytes, LIMIT);
    }

    /** Counts {@code bytes} as in use, unless that passes {@code limit}: then nothing is counted. */
    static void reserve(long bytes, long limit) {
        long now = IN_USE.addAndGet(bytes);
        if (now > limit) {
            IN_USE.addAndGet(-bytes);
            throw new OutOfMemoryError("uring4j native memory: " + bytes + " more bytes would pass the limit of "
                    + limit + " (" + (now - bytes) + " in use); raise it with -D" + PROPERTY + "=SIZE");
        }
    }

    static void unreserve(long bytes) {
        IN_USE.addAndGet(-bytes);
    }

    /** The limit a property value sets: bytes, or with a K, M or G suffix; null for the default. */
    static long limitFrom(String value) {
        if (value == null || value.isBlank()) {
            return Math.max(Runtime.getRuntime().maxMemory(), SMALLEST_DEFAULT);
        }
        String v = value.strip().toUpperCase(Locale.ROOT);
        int shift = switch (v.charAt(v.length() - 1)) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            default -> 0;
        };
        try {
            long n = Long.parseLong(shift == 0 ? v : v.substring(0, v.length() - 1));
            if (n > 0 && n <= Long.MAX_VALUE >> shift) {
                return n << shift;
            }
        } catch (NumberFormatException notANumber) {
            // refused below
        }
        throw new IllegalArgumentException("-D" + PROPERTY + "=" + value
                + ": not a positive size (bytes, or with a K, M or G suffix)");
    }
}
