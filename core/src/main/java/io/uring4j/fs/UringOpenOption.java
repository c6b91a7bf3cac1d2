package io.uring4j.fs;

import java.nio.file.OpenOption;

/**
 * uring4j's own open options, for code that cannot reach the JDK's {@code com.sun.nio.file.ExtendedOpenOption}
 * (module {@code jdk.unsupported}); {@link UringFileChannel#open} accepts both.
 */
public enum UringOpenOption implements OpenOption {
    /**
     * O_DIRECT: bypass the page cache. As with the JDK's {@code ExtendedOpenOption.DIRECT}, buffers, lengths and
     * positions must then be multiples of the file system's block size.
     */
    DIRECT
}
