package io.uring4j.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Set;

/** The contract against the JDK's own FileChannel: the reference the uring4j channel must match. */
class JdkFileChannelTest extends FileChannelContract {
    @Override
    boolean wakesBlockedVirtualThreads() {
        return false;
    }

    @Override
    boolean transfersWholeCounts() {
        return false;
    }

    @Override
    FileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
        return FileChannel.open(path, options, attrs);
    }
}
