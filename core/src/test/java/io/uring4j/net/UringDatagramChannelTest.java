package io.uring4j.net;

import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.nio.channels.spi.SelectorProvider;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    /** Where the adaptor differs from the JDK's, it says so: the channel's receive is the way. */
    @Test
    void theSocketAdaptorRefusesToReceiveIntoAPacket() throws Exception {
        DatagramSocket s = bound().socket();
        assertThatThrownBy(() -> s.receive(new DatagramPacket(new byte[16], 16)))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("use the channel's receive");
    }
}
