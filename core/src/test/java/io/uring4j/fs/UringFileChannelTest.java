package io.uring4j.fs;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Set;

/** The contract against UringFileChannel. */
@BothEngines
class UringFileChannelTest extends FileChannelContract {
    @UringRuntime(loops = 2)
    private static Uring uring;

    @Override
    boolean wakesBlockedVirtualThreads() {
        return true;
    }

    @Override
    boolean transfersWholeCounts() {
        return true;
    }

    @Override
    FileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
        return UringFileChannel.open(uring, path, options, attrs);
    }
}
