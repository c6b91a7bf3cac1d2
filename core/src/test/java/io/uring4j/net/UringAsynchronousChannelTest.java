package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.BeforeAll;

import java.nio.channels.spi.AsynchronousChannelProvider;

/** The asynchronous channel contract against uring4j's provider, on a runtime of the test's own. */
@BothEngines
class UringAsynchronousChannelTest extends AsynchronousChannelContract {
    @UringRuntime(loops = 2)
    private static Uring uring;
    private static AsynchronousChannelProvider provider;

    @BeforeAll
    static void makeProvider() {
        provider = new UringAsynchronousChannelProvider(uring);
    }

    @Override
    AsynchronousChannelProvider provider() {
        return provider;
    }

    @Override
    AsynchronousChannelProvider otherProvider() {
        return AsynchronousChannelProvider.provider();
    }
}
