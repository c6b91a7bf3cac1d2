package io.uring4j.runtime;

import io.uring4j.sys.Errno;

import java.util.Arrays;

/**
 * The outcome of every step of a {@link Chain}, in order. The kernel's rules show through: after a step fails
 * (or, for a soft link, returns less than asked, like a short read), the rest of the chain completes with
 * -ECANCELED without running; a link timeout step reports -ETIME if it fired and -ECANCELED if its request won
 * (when both happen at once, the kernel may also report -EALREADY or -ENOENT for the timeout).
 */
public final class ChainResult {
    private final int[] results;

    ChainResult(int[] results) {
        this.results = results;
    }

    public int steps() {
        return results.length;
    }

    /** The CQE result of step {@code index}: {@code >= 0}, or {@code -errno}. */
    public int result(int index) {
        return results[index];
    }

    /** Whether step {@code index} was cancelled without running because an earlier step broke the chain. */
    public boolean wasCancelled(int index) {
        return results[index] == -Errno.ECANCELED;
    }

    /** The index of the first step that failed, or -1 if every step succeeded. */
    public int firstFailure() {
        for (int i = 0; i < results.length; i++) {
            if (results[i] < 0) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return "ChainResult" + Arrays.toString(Arrays.stream(results)
                .mapToObj(r -> r < 0 ? Errno.name(r) : Integer.toString(r)).toArray());
    }
}
