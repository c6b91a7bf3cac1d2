package io.uring4j.fs;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;

/** The asynchronous contract against UringAsynchronousFileChannel. */
@BothEngines
class UringAsynchronousFileChannelTest extends AsynchronousFileChannelContract {
    private static Uring uring;

    @BeforeAll
    static void start() throws Exception {
        uring = Uring.builder().loops(2).build();
    }

    @AfterAll
    static void stop() {
        uring.close();
    }

    @Override
    AsynchronousFileChannel open(Path path, Set<? extends OpenOption> options) throws IOException {
        return UringAsynchronousFileChannel.open(uring, path, options, null);
    }
}
