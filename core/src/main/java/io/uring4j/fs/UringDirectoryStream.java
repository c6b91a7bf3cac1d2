package io.uring4j.fs;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.util.Iterator;
import java.util.Set;

import static io.uring4j.fs.UringPath.unwrap;

/**
 * The platform's directory stream with this file system's paths. Where the platform's is a
 * {@link SecureDirectoryStream} (Linux: one open directory, operations relative to it, immune to a concurrent
 * rename of the tree), this one is too: libraries that delete trees safely (Guava's
 * {@code MoreFiles.deleteRecursively}) insist on it. Its channels are the platform's — opened relative to the
 * directory, which only the platform's stream can do.
 */
class UringDirectoryStream implements DirectoryStream<Path> {
    final UringFileSystem fs;
    private final DirectoryStream<Path> platform;

    UringDirectoryStream(UringFileSystem fs, DirectoryStream<Path> platform) {
        this.fs = fs;
        this.platform = platform;
    }

    /** {@code platform} with wrapped paths: a secure stream if it is one. */
    static DirectoryStream<Path> of(UringFileSystem fs, DirectoryStream<Path> platform) {
        return platform instanceof SecureDirectoryStream<Path> secure ? new Secure(fs, secure)
                : new UringDirectoryStream(fs, platform);
    }

    /** A filter of this file system's paths as the platform's stream asks it (a class: no lambda to bootstrap). */
    static final class PlatformFilter implements DirectoryStream.Filter<Path> {
        private final UringFileSystem fs;
        private final DirectoryStream.Filter<? super Path> filter;

        PlatformFilter(UringFileSystem fs, DirectoryStream.Filter<? super Path> filter) {
            this.fs = fs;
            this.filter = filter;
        }

        @Override
        public boolean accept(Path entry) throws IOException {
            return filter.accept(fs.wrap(entry));
        }
    }

    @Override
    public Iterator<Path> iterator() {
        Iterator<Path> it = platform.iterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Path next() {
                return fs.wrap(it.next());
            }
        };
    }

    @Override
    public void close() throws IOException {
        platform.close();
    }

    private static final class Secure extends UringDirectoryStream implements SecureDirectoryStream<Path> {
        private final SecureDirectoryStream<Path> platform;

        Secure(UringFileSystem fs, SecureDirectoryStream<Path> platform) {
            super(fs, platform);
            this.platform = platform;
        }

        @Override
        public SecureDirectoryStream<Path> newDirectoryStream(Path path, LinkOption... options) throws IOException {
            return new Secure(fs, platform.newDirectoryStream(unwrap(path), options));
        }

        @Override
        public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options,
                                                  FileAttribute<?>... attrs) throws IOException {
            return platform.newByteChannel(unwrap(path), options, attrs);
        }

        @Override
        public void deleteFile(Path path) throws IOException {
            platform.deleteFile(unwrap(path));
        }

        @Override
        public void deleteDirectory(Path path) throws IOException {
            platform.deleteDirectory(unwrap(path));
        }

        @Override
        public void move(Path source, SecureDirectoryStream<Path> targetDir, Path target) throws IOException {
            if (!(targetDir instanceof Secure ours)) {
                throw new ProviderMismatchException("the target directory stream is not of this file system");
            }
            platform.move(unwrap(source), ours.platform, unwrap(target));
        }

        @Override
        public <V extends FileAttributeView> V getFileAttributeView(Class<V> type) {
            return platform.getFileAttributeView(type);
        }

        @Override
        public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
            return platform.getFileAttributeView(unwrap(path), type, options);
        }
    }
}
