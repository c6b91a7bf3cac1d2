package io.uring4j.fs;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;

import java.io.IOException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;

/** The asynchronous contract against UringAsynchronousFileChannel. */
@BothEngines
class UringAsynchronousFileChannelTest extends AsynchronousFileChannelContract {
    @UringRuntime(loops = 2)
    private static Uring uring;

    @Override
    AsynchronousFileChannel open(Path path, Set<? extends OpenOption> options) throws IOException {
        return UringAsynchronousFileChannel.open(uring, path, options, null);
    }
}
