package io.uring4j.fs;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.WatchService;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The default file system as seen through {@link UringFileSystemProvider}: the platform's, except that its paths
 * are {@link UringPath}s, whose provider is ours — also those its watch service hands back
 * ({@link UringWatchService}).
 */
final class UringFileSystem extends FileSystem {
    private final UringFileSystemProvider provider;
    private final FileSystem platform;

    UringFileSystem(UringFileSystemProvider provider, FileSystem platform) {
        this.provider = provider;
        this.platform = platform;
    }

    /**
     * {@code path}, a platform's path, as ours. Installed, this is the default file system, and the platform's own
     * code makes paths through it (a {@code file:/x} URI's path is {@code new File(uri).toPath()}): those are
     * ours already, and wrapping one again would hand the platform a path it cannot use.
     */
    Path wrap(Path path) {
        return path == null ? null : new UringPath(this, UringPath.unwrap(path));
    }

    @Override
    public UringFileSystemProvider provider() {
        return provider;
    }

    @Override
    public void close() throws IOException {
        platform.close();           // the default file system refuses: UnsupportedOperationException
    }

    @Override
    public boolean isOpen() {
        return platform.isOpen();
    }

    @Override
    public boolean isReadOnly() {
        return platform.isReadOnly();
    }

    @Override
    public String getSeparator() {
        return platform.getSeparator();
    }

    @Override
    public Iterable<Path> getRootDirectories() {
        List<Path> roots = new ArrayList<>();
        for (Path root : platform.getRootDirectories()) {
            roots.add(wrap(root));
        }
        return roots;
    }

    @Override
    public Iterable<FileStore> getFileStores() {
        return platform.getFileStores();
    }

    @Override
    public Set<String> supportedFileAttributeViews() {
        return platform.supportedFileAttributeViews();
    }

    @Override
    public Path getPath(String first, String... more) {
        return wrap(platform.getPath(first, more));
    }

    @Override
    public PathMatcher getPathMatcher(String syntaxAndPattern) {
        PathMatcher matcher = platform.getPathMatcher(syntaxAndPattern);
        return path -> matcher.matches(UringPath.unwrap(path));
    }

    @Override
    public UserPrincipalLookupService getUserPrincipalLookupService() {
        return platform.getUserPrincipalLookupService();
    }

    @Override
    public WatchService newWatchService() throws IOException {
        return new UringWatchService(this, platform.newWatchService());
    }
}
