package io.uring4j.net;

import java.nio.channels.spi.SelectorProvider;

/** The multicast contract against the JDK's own provider: the reference uring4j's must match. */
class JdkMulticastTest extends MulticastContract {
    @Override
    SelectorProvider provider() {
        return SelectorProvider.provider();
    }
}
