package io.uring4j.fs;

import java.io.IOException;
import java.net.URI;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Objects;

/**
 * A path of the {@link UringFileSystem}: the platform's path inside, so that everything asked of it — and every
 * {@code Files} call on it, which asks the path's own file system for its provider — comes to
 * {@link UringFileSystemProvider}. Paths it returns are wrapped again; paths it is given are unwrapped.
 */
final class UringPath implements Path {
    private final UringFileSystem fs;
    private final Path platform;

    UringPath(UringFileSystem fs, Path platform) {
        this.fs = fs;
        this.platform = platform;
    }

    /** The platform path of {@code path}, which may be ours or the platform's own. */
    static Path unwrap(Path path) {
        return path instanceof UringPath u ? u.platform : path;
    }

    private Path wrap(Path path) {
        return fs.wrap(path);
    }

    @Override
    public UringFileSystem getFileSystem() {
        return fs;
    }

    @Override
    public boolean isAbsolute() {
        return platform.isAbsolute();
    }

    @Override
    public Path getRoot() {
        return wrap(platform.getRoot());
    }

    @Override
    public Path getFileName() {
        return wrap(platform.getFileName());
    }

    @Override
    public Path getParent() {
        return wrap(platform.getParent());
    }

    @Override
    public int getNameCount() {
        return platform.getNameCount();
    }

    @Override
    public Path getName(int index) {
        return wrap(platform.getName(index));
    }

    @Override
    public Path subpath(int beginIndex, int endIndex) {
        return wrap(platform.subpath(beginIndex, endIndex));
    }

    @Override
    public boolean startsWith(Path other) {
        return platform.startsWith(unwrap(other));
    }

    @Override
    public boolean endsWith(Path other) {
        return platform.endsWith(unwrap(other));
    }

    @Override
    public Path normalize() {
        return wrap(platform.normalize());
    }

    @Override
    public Path resolve(Path other) {
        return wrap(platform.resolve(unwrap(other)));
    }

    @Override
    public Path relativize(Path other) {
        return wrap(platform.relativize(unwrap(other)));
    }

    @Override
    public URI toUri() {
        return platform.toUri();
    }

    @Override
    public Path toAbsolutePath() {
        return wrap(platform.toAbsolutePath());
    }

    @Override
    public Path toRealPath(LinkOption... options) throws IOException {
        return wrap(platform.toRealPath(options));
    }

    @Override
    public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers)
            throws IOException {
        Objects.requireNonNull(watcher);
        if (!(watcher instanceof UringWatchService ours)) {
            throw new ProviderMismatchException();      // as the platform's paths with a service not theirs
        }
        return ours.register(this, events, modifiers);
    }

    @Override
    public int compareTo(Path other) {
        return platform.compareTo(unwrap(other));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof UringPath u && platform.equals(u.platform);
    }

    @Override
    public int hashCode() {
        return platform.hashCode();
    }

    @Override
    public String toString() {
        return platform.toString();
    }
}
