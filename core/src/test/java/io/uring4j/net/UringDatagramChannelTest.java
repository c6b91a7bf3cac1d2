package io.uring4j.net;

import io.uring4j.testkit.BothEngines;

import java.nio.channels.spi.SelectorProvider;

/** The DatagramChannel contract against uring4j's provider, on both engines. */
@BothEngines
class UringDatagramChannelTest extends DatagramChannelContract {
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
