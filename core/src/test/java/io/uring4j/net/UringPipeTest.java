package io.uring4j.net;

import io.uring4j.testkit.BothEngines;

import java.nio.channels.spi.SelectorProvider;

/** The Pipe contract against uring4j's provider, on both engines. */
@BothEngines
class UringPipeTest extends PipeContract {
    private static final UringSelectorProvider PROVIDER = new UringSelectorProvider();

    @Override
    SelectorProvider provider() {
        return PROVIDER;
    }

    @Override
    SelectorProvider otherProvider() {
        return SelectorProvider.provider();
    }
}
