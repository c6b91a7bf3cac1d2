package io.uring4j.ring;

import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The ring core finds the portable engine through ServiceLoader, and says what to do when it cannot. */
class FallbackLookupTest {
    @Test
    void theProviderOnTheClassPathIsThePortableEngine() {
        FallbackEngine found = FallbackLookup.find(FallbackLookup.class.getClassLoader());
        assertThat(found).isSameAs(Engine.portable());
        assertThat(found.name()).isEqualTo("portable");
    }

    @Test
    void aMissingProviderIsNamedWithTheWayOut() throws Exception {
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            FallbackEngine found = FallbackLookup.find(empty);
            assertThat(found).isNull();
            assertThatThrownBy(() -> FallbackLookup.require(found)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("portable engine is missing")
                    .hasMessageContaining("io.uring4j.portable.PortableEngineProvider")
                    .hasMessageContaining("-During4j.engine=kernel");
        }
    }
}
