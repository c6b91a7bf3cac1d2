package io.uring4j.net;

import java.nio.channels.spi.SelectorProvider;

/** The Pipe contract against the JDK's own provider: the reference uring4j's must match. */
class JdkPipeTest extends PipeContract {
    @Override
    SelectorProvider provider() {
        return SelectorProvider.provider();
    }

    @Override
    SelectorProvider otherProvider() {
        return new UringSelectorProvider();
    }
}
