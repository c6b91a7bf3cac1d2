package io.uring4j.fs;

import java.net.URI;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.spi.FileSystemProvider;

/**
 * The JDK's own file system provider, for the JDK channels that map and lock on behalf of uring4j's. When
 * {@link UringFileSystemProvider} is the default, opening those through {@code FileChannel.open} would come back
 * to uring4j; they are opened through the platform provider it wraps.
 */
final class PlatformFiles {
    private PlatformFiles() {
    }

    static FileSystemProvider provider() {
        FileSystemProvider p = FileSystems.getDefault().provider();
        return p instanceof UringFileSystemProvider u ? u.platform() : p;
    }

    /** {@code name} as a path of the platform's file system. */
    static Path path(String name) {
        return provider().getFileSystem(URI.create("file:///")).getPath(name);
    }
}
