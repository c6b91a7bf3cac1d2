package io.uring4j.fs;

import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.spi.FileSystemProvider;

/**
 * The JDK's own file system provider, for the JDK channels that map and lock on behalf of uring4j's. When
 * {@link UringFileSystemProvider} is the default, opening those through {@code FileChannel.open} would come back
 * to uring4j; they are opened through the platform provider it wraps. Looked up once, on first use — the default
 * file system is built by then (a uring4j channel exists) — since a delegate is opened per file transferred.
 */
final class PlatformFiles {
    private PlatformFiles() {
    }

    static FileSystemProvider provider() {
        return Platform.PROVIDER;
    }

    /** {@code name} as a path of the platform's file system. */
    static Path path(String name) {
        return Platform.FILE_SYSTEM.getPath(name);
    }

    /**
     * A platform path that opens the same file as {@code fd}: {@code /proc/self/fd/N}, which still reaches the file
     * after a rename or unlink; or {@code path} where /proc is not mounted (asked once: a system call per delegate
     * was a tenth of a small transfer's cost).
     */
    static Path sameFile(int fd, Path path) {
        return Platform.PROC_FDS ? path("/proc/self/fd/" + fd) : path(path.toString());
    }

    private static final class Platform {
        static final FileSystemProvider PROVIDER;
        static final FileSystem FILE_SYSTEM;
        static final boolean PROC_FDS;

        static {
            FileSystemProvider p = FileSystems.getDefault().provider();
            PROVIDER = p instanceof UringFileSystemProvider u ? u.platform() : p;
            FILE_SYSTEM = PROVIDER.getFileSystem(URI.create("file:///"));
            PROC_FDS = PROVIDER.exists(FILE_SYSTEM.getPath("/proc/self/fd"));
        }
    }
}
