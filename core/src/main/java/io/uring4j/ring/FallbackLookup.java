package io.uring4j.ring;

import java.util.ServiceLoader;

/** Finds the {@link FallbackEngine} once, through {@link ServiceLoader}. */
final class FallbackLookup {
    private static final FallbackEngine ENGINE = find(FallbackLookup.class.getClassLoader());

    private FallbackLookup() {
    }

    /** The portable engine; throws, saying what is missing, when no provider is installed. */
    static FallbackEngine engine() {
        return require(ENGINE);
    }

    /** The engine of the first provider {@code loader} sees, or null. */
    static FallbackEngine find(ClassLoader loader) {
        return ServiceLoader.load(FallbackEngine.Provider.class, loader).findFirst()
                .map(FallbackEngine.Provider::engine).orElse(null);
    }

    static FallbackEngine require(FallbackEngine found) {
        if (found == null) {
            throw new IllegalStateException("uring4j: the portable engine is missing: no "
                    + FallbackEngine.Provider.class.getName() + " on the class path or module path (the uring4j jar"
                    + " provides io.uring4j.portable.PortableEngineProvider in META-INF/services and module-info):"
                    + " use a complete uring4j jar, or -During4j.engine=kernel");
        }
        return found;
    }
}
