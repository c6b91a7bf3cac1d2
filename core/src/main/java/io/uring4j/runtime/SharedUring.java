package io.uring4j.runtime;

import java.io.IOException;

/**
 * The runtime shared by the drop-ins that the JDK creates by name — the file system provider and the selector
 * provider — and so have no way to be handed one: one loop per core, created on first use. Its loops are daemon
 * threads, so it needs no closing (and must not be closed).
 */
public final class SharedUring {
    private static Uring shared;

    private SharedUring() {
    }

    /** The shared runtime, created by the first call. */
    public static synchronized Uring get() throws IOException {
        if (shared == null) {
            shared = Uring.builder().build();
        }
        return shared;
    }
}
