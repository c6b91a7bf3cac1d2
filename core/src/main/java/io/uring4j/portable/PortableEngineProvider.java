package io.uring4j.portable;

import io.uring4j.ring.FallbackEngine;

/** How the ring core reaches {@link PortableEngine} without importing it: the provider ServiceLoader finds. */
public final class PortableEngineProvider implements FallbackEngine.Provider {
    /** For {@link java.util.ServiceLoader}. */
    public PortableEngineProvider() {
    }

    @Override
    public FallbackEngine engine() {
        return PortableEngine.instance();
    }
}
