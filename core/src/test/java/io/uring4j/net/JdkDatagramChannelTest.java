package io.uring4j.net;

import java.nio.channels.spi.SelectorProvider;

/** The DatagramChannel contract against the JDK's own provider: the reference uring4j's must match. */
class JdkDatagramChannelTest extends DatagramChannelContract {
    @Override
    SelectorProvider provider() {
        return SelectorProvider.provider();
    }

    @Override
    SelectorProvider otherProvider() {
        return new UringSelectorProvider();
    }
}
