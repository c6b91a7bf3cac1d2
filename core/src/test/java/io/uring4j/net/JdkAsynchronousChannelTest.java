package io.uring4j.net;

import java.nio.channels.spi.AsynchronousChannelProvider;

/** The asynchronous channel contract against the JDK's provider: the reference. */
class JdkAsynchronousChannelTest extends AsynchronousChannelContract {
    private static final AsynchronousChannelProvider JDK = AsynchronousChannelProvider.provider();
    private static final AsynchronousChannelProvider URING = new UringAsynchronousChannelProvider();

    @Override
    AsynchronousChannelProvider provider() {
        return JDK;
    }

    @Override
    AsynchronousChannelProvider otherProvider() {
        return URING;
    }
}
