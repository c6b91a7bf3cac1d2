package io.uring4j.fs;

import java.io.IOException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;

/** The asynchronous contract against the JDK's AsynchronousFileChannel: the reference. */
class JdkAsynchronousFileChannelTest extends AsynchronousFileChannelContract {
    @Override
    AsynchronousFileChannel open(Path path, Set<? extends OpenOption> options) throws IOException {
        return AsynchronousFileChannel.open(path, options, null);
    }
}
