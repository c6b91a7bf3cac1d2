package io.uring4j.fs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.spi.FileSystemProvider;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;

import static io.uring4j.fs.UringPath.unwrap;

/**
 * The platform's default file system provider with uring4j's channels: {@code newFileChannel},
 * {@code newByteChannel} (and so {@code Files.newInputStream}, {@code readAllBytes}, {@code write}, ...) and
 * {@code newAsynchronousFileChannel} return {@link UringFileChannel}s and {@link UringAsynchronousFileChannel}s on
 * the shared runtime; everything else is the platform's. As the JDK's, the channels behind
 * {@code Files.newInputStream}, {@code newOutputStream} and {@code readAllBytes} (and the helpers built on them)
 * are uninterruptible. Install it for an unmodified application with one flag:
 *
 * <pre>{@code
 * java -Djava.nio.file.spi.DefaultFileSystemProvider=io.uring4j.fs.UringFileSystemProvider \
 *      --enable-native-access=ALL-UNNAMED -cp app.jar:uring4j.jar Main
 * }</pre>
 *
 * <p>It wraps the file system and its paths too: {@code FileChannel.open(path)} asks the path's own file system
 * for its provider, so a bare provider wrapper would be bypassed by every platform path.
 *
 * <p>The JDK builds this provider while it initialises the default file system, so nothing here may touch the
 * file system API until then; the runtime starts with the first channel. Until it is up (a few hundred milliseconds,
 * most of a short program's life), streams, {@code newByteChannel} and {@code Files.lines} are the platform's: they
 * are read and closed at once, and a program that only reads its configuration need not wait for rings.
 * {@code FileChannel.open} and {@code AsynchronousFileChannel.open}, whose channels an application keeps, wait for it.
 */
public final class UringFileSystemProvider extends FileSystemProvider {
    private final FileSystemProvider platform;
    private final UringFileSystem fileSystem;

    /** Called by the JDK with the platform's provider when named by {@code java.nio.file.spi.DefaultFileSystemProvider}. */
    public UringFileSystemProvider(FileSystemProvider platform) {
        this.platform = platform;
        this.fileSystem = new UringFileSystem(this, platform.getFileSystem(URI.create("file:///")));
    }

    /** The provider this one wraps. */
    public FileSystemProvider platform() {
        return platform;
    }

    /** The file system of this provider, whose paths lead back here. */
    public FileSystem fileSystem() {
        return fileSystem;
    }

    // ---- the channels: uring4j's ------------------------------------------------------------------------
    //
    // The platform's while the shared runtime starts, for a stream (SharedFiles.ifUp), and for a file opened while a
    // class loads or by Files.lines (SharedFiles.orStart); a channel an application holds waits for the runtime.

    @Override
    public FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        UringFiles files = SharedFiles.orStart();
        return files == null ? platform.newFileChannel(unwrap(path), options, attrs)
                : UringChannels.fileChannel(files, path, options, attrs);
    }

    @Override
    public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        UringFiles files = SharedFiles.ifUp();
        return files == null ? platform.newByteChannel(unwrap(path), options, attrs)
                : UringChannels.byteChannel(files, path, options, attrs);
    }

    @Override
    public InputStream newInputStream(Path path, OpenOption... options) throws IOException {
        UringFiles files = SharedFiles.ifUp();
        return files == null ? platform.newInputStream(unwrap(path), options)
                : UringChannels.inputStream(files, path, options);
    }

    @Override
    public OutputStream newOutputStream(Path path, OpenOption... options) throws IOException {
        UringFiles files = SharedFiles.ifUp();
        return files == null ? platform.newOutputStream(unwrap(path), options)
                : UringChannels.outputStream(files, path, options);
    }

    @Override
    public AsynchronousFileChannel newAsynchronousFileChannel(Path path, Set<? extends OpenOption> options,
                                                              ExecutorService executor, FileAttribute<?>... attrs)
            throws IOException {
        UringFiles files = SharedFiles.orStart();
        return files == null ? platform.newAsynchronousFileChannel(unwrap(path), options, executor, attrs)
                : UringChannels.asynchronous(files, path, options, executor, attrs);
    }

    // ---- the file system: the platform's, with wrapped paths ----------------------------------------------

    @Override
    public String getScheme() {
        return platform.getScheme();
    }

    @Override
    public FileSystem newFileSystem(URI uri, Map<String, ?> env) throws IOException {
        return platform.newFileSystem(uri, env);
    }

    @Override
    public FileSystem getFileSystem(URI uri) {
        platform.getFileSystem(uri);        // the platform's checks of the URI
        return fileSystem;
    }

    @Override
    public Path getPath(URI uri) {
        return fileSystem.wrap(platform.getPath(uri));
    }

    @Override
    public FileSystem newFileSystem(Path path, Map<String, ?> env) throws IOException {
        return platform.newFileSystem(unwrap(path), env);
    }

    @Override
    public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
            throws IOException {
        return UringDirectoryStream.of(fileSystem,
                platform.newDirectoryStream(unwrap(dir), new UringDirectoryStream.PlatformFilter(fileSystem, filter)));
    }

    @Override
    public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
        platform.createDirectory(unwrap(dir), attrs);
    }

    @Override
    public void createSymbolicLink(Path link, Path target, FileAttribute<?>... attrs) throws IOException {
        platform.createSymbolicLink(unwrap(link), unwrap(target), attrs);
    }

    @Override
    public void createLink(Path link, Path existing) throws IOException {
        platform.createLink(unwrap(link), unwrap(existing));
    }

    @Override
    public void delete(Path path) throws IOException {
        platform.delete(unwrap(path));
    }

    @Override
    public boolean deleteIfExists(Path path) throws IOException {
        return platform.deleteIfExists(unwrap(path));
    }

    @Override
    public Path readSymbolicLink(Path link) throws IOException {
        return fileSystem.wrap(platform.readSymbolicLink(unwrap(link)));
    }

    @Override
    public void copy(Path source, Path target, CopyOption... options) throws IOException {
        platform.copy(unwrap(source), unwrap(target), options);
    }

    @Override
    public void move(Path source, Path target, CopyOption... options) throws IOException {
        platform.move(unwrap(source), unwrap(target), options);
    }

    @Override
    public boolean isSameFile(Path path, Path path2) throws IOException {
        return platform.isSameFile(unwrap(path), unwrap(path2));
    }

    @Override
    public boolean isHidden(Path path) throws IOException {
        return platform.isHidden(unwrap(path));
    }

    @Override
    public FileStore getFileStore(Path path) throws IOException {
        return platform.getFileStore(unwrap(path));
    }

    @Override
    public void checkAccess(Path path, AccessMode... modes) throws IOException {
        platform.checkAccess(unwrap(path), modes);
    }

    @Override
    public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
        return platform.getFileAttributeView(unwrap(path), type, options);
    }

    @Override
    public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
            throws IOException {
        return platform.readAttributes(unwrap(path), type, options);
    }

    @Override
    public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
        return platform.readAttributes(unwrap(path), attributes, options);
    }

    @Override
    public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
        platform.setAttribute(unwrap(path), attribute, value, options);
    }

    @Override
    public boolean exists(Path path, LinkOption... options) {
        return platform.exists(unwrap(path), options);
    }

    @Override
    public <A extends BasicFileAttributes> A readAttributesIfExists(Path path, Class<A> type, LinkOption... options)
            throws IOException {
        return platform.readAttributesIfExists(unwrap(path), type, options);
    }
}
