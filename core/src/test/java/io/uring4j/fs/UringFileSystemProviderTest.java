package io.uring4j.fs;

import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.ChildJvm;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.StandardCopyOption;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.uring4j.testkit.Patterns.pattern;
import static java.nio.file.StandardOpenOption.*;
import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The provider wrapper in this JVM (not installed as the default: {@link UnmodifiedApplicationTest} does that in
 * a child JVM, as does the watch test here): its paths lead back to it, its channels are uring4j's, everything
 * else is the platform's with its paths.
 */
@BothEngines
class UringFileSystemProviderTest {
    @TempDir
    Path tmp;

    private FileSystem fs;
    private Path dir;

    @BeforeEach
    void wrap() throws IOException {
        UringFiles.shared();    // up before the first channel, which would otherwise be the platform's (SignedJarStartTest)
        fs = new UringFileSystemProvider(FileSystems.getDefault().provider()).fileSystem();
        dir = fs.getPath(tmp.toString());
    }

    @Test
    void pathsLeadBackToTheProvider() {
        Path p = dir.resolve("a/b/../c");
        assertThat(p).isInstanceOf(UringPath.class);
        assertThat(p.getFileSystem()).isSameAs(fs);
        assertThat(p.getFileSystem().provider()).isInstanceOf(UringFileSystemProvider.class);
        for (Path derived : List.of(p.normalize(), p.getParent(), p.getFileName(), p.getRoot(), p.toAbsolutePath(),
                p.subpath(0, 2), dir.relativize(p), p.resolveSibling("d"), fs.provider().getPath(p.toUri()))) {
            assertThat(derived.getFileSystem()).as("%s", derived).isSameAs(fs);
        }
        assertThat(p.toString()).isEqualTo(tmp.resolve("a/b/../c").toString());
        assertThat(p).isEqualTo(dir.resolve("a/b/../c")).hasSameHashCodeAs(dir.resolve("a/b/../c"));
        assertThat(p.startsWith(tmp)).as("a platform path is understood too").isTrue();
        assertThat(p.compareTo(dir.resolve("a"))).isPositive();
        assertThat(fs.getPathMatcher("glob:**/*.txt").matches(dir.resolve("x.txt"))).isTrue();
        assertThat(fs.getRootDirectories()).allSatisfy(root -> assertThat(root.getFileSystem()).isSameAs(fs));
    }

    @Test
    void channelsAreUring4jsAndFilesHelpersUseThem() throws Exception {
        Path file = dir.resolve("data");
        Files.write(file, pattern(1, 100_000));
        assertThat(Files.readAllBytes(file)).isEqualTo(pattern(1, 100_000));
        try (FileChannel ch = FileChannel.open(file, READ, WRITE)) {
            assertThat(ch).isInstanceOf(UringFileChannel.class);
            assertThat(ch.size()).isEqualTo(100_000);
            try (FileLock lock = ch.lock()) {
                assertThat(lock.channel()).isSameAs(ch);
            }
            assertThat(ch.map(FileChannel.MapMode.READ_ONLY, 0, 10).get(3)).isEqualTo(pattern(1, 10)[3]);
        }
        try (SeekableByteChannel ch = Files.newByteChannel(file)) {
            assertThat(ch).isInstanceOf(UringFileChannel.class);
        }
        try (AsynchronousFileChannel ch = AsynchronousFileChannel.open(file, READ)) {
            assertThat(ch).isInstanceOf(UringAsynchronousFileChannel.class);
            ByteBuffer b = ByteBuffer.allocate(10);
            assertThat(ch.read(b, 5).get()).isEqualTo(10);
        }
        try (var in = Files.newInputStream(file)) {
            assertThat(in.readAllBytes()).isEqualTo(pattern(1, 100_000));
        }
        Files.writeString(dir.resolve("text"), "io_uring\n");
        assertThat(Files.readAllLines(dir.resolve("text"))).containsExactly("io_uring");
        assertThatThrownBy(() -> Files.readAllBytes(dir.resolve("missing"))).isInstanceOf(NoSuchFileException.class);
    }

    /** Keys and events of the watch service hand back the file system's paths, and keys keep their identity. */
    @Test
    void watchServiceHandsBackOurPaths() throws Exception {
        try (WatchService watcher = fs.newWatchService()) {
            WatchKey key = dir.register(watcher, ENTRY_CREATE);
            assertThat(dir.register(watcher, ENTRY_CREATE)).as("the same directory, the same key").isSameAs(key);
            assertThat(key.watchable()).isEqualTo(dir);
            Files.createFile(dir.resolve("new"));
            WatchKey taken = watcher.poll(30, TimeUnit.SECONDS);
            assertThat(taken).isSameAs(key);
            List<WatchEvent<?>> events = taken.pollEvents();
            assertThat(events).hasSize(1);
            WatchEvent<?> event = events.getFirst();
            assertThat(event.kind()).isEqualTo(ENTRY_CREATE);
            assertThat(event.count()).isEqualTo(1);
            assertThat(event.context()).isEqualTo(fs.getPath("new"));
            assertThat(((Path) event.context()).getFileSystem()).isSameAs(fs);
            assertThat(((Path) taken.watchable()).resolve((Path) event.context())).isEqualTo(dir.resolve("new"));
            assertThat(taken.reset()).isTrue();
            taken.cancel();
            assertThat(key.isValid()).isFalse();
            assertThat(watcher.poll()).isNull();
        }
        try (WatchService platform = FileSystems.getDefault().newWatchService()) {
            assertThatThrownBy(() -> dir.register(platform, ENTRY_CREATE))
                    .isExactlyInstanceOf(ProviderMismatchException.class);
        }
    }

    /**
     * Installed by the flag (a child JVM), the provider's paths are the default file system's: a key's directory
     * is a {@code File} and an event's name equals {@code Path.of(name)}.
     */
    @Test
    void underTheFlagAWatchedDirectoryIsAFile() throws Exception {
        String classPath = location(UringFileSystemProvider.class) + File.pathSeparator + location(WatchProbe.class);
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Djava.nio.file.spi.DefaultFileSystemProvider=" + UringFileSystemProvider.class.getName(),
                "-cp", classPath, WatchProbe.class.getName(), tmp.toString())
                .redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes());
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(out).isZero();
        assertThat(out).contains("watched " + tmp + ", created probe");
    }

    private static String location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    /** The child JVM's part: watches a directory through the default file system, which is uring4j's. */
    static final class WatchProbe {
        public static void main(String[] args) throws Exception {
            Path dir = Path.of(args[0]);
            check(dir.getFileSystem().provider() instanceof UringFileSystemProvider, "provider installed");
            try (WatchService watcher = dir.getFileSystem().newWatchService()) {
                WatchKey key = dir.register(watcher, ENTRY_CREATE);
                Files.createFile(dir.resolve("probe"));
                WatchKey taken = watcher.poll(30, TimeUnit.SECONDS);
                check(taken == key, "the registered key");
                Path watched = (Path) taken.watchable();
                check(watched.equals(dir) && watched.toFile().equals(new File(args[0])), "watchable " + watched);
                Object name = taken.pollEvents().getFirst().context();
                check(name.equals(Path.of("probe")), "context " + name);
                System.out.println("watched " + watched.toFile() + ", created " + name);
            }
        }

        private static void check(boolean condition, String what) {
            if (!condition) {
                throw new AssertionError(what);
            }
        }
    }

    /**
     * Installed, the provider's file system is the one the platform's own code makes paths with: the path of a
     * {@code file:/x} URI (no authority, as {@code URL.toURI()} gives it) is {@code new File(uri).toPath()}, ours
     * already, and must not be wrapped again.
     */
    @Test
    void underTheFlagAFileUriWithoutAuthorityIsAPathOfOurs() throws Exception {
        String out = ChildJvm.output(UriProbe.class,
                "-Djava.nio.file.spi.DefaultFileSystemProvider=" + UringFileSystemProvider.class.getName());
        assertThat(out).contains("exists true, read 'uri'");
    }

    /** The child JVM's part: a file's path by a {@code file:/} URI, under the flag. */
    static final class UriProbe {
        public static void main(String[] args) throws Exception {
            Path file = Files.writeString(Files.createTempFile("uring4j-uri", ".txt"), "uri");
            try {
                Path byUri = Path.of(file.toUri().toURL().toURI());
                System.out.println("exists " + Files.exists(byUri) + ", read '" + Files.readString(byUri) + "'");
            } finally {
                Files.delete(file);
            }
        }
    }

    @Test
    void theRestIsThePlatformsWithWrappedPaths() throws Exception {
        Path sub = Files.createDirectories(dir.resolve("x/y"));
        Path a = Files.write(sub.resolve("a"), pattern(2, 10));
        Path b = Files.copy(a, sub.resolve("b"));
        Files.move(b, sub.resolve("c"), StandardCopyOption.ATOMIC_MOVE);
        Files.createSymbolicLink(sub.resolve("link"), a.getFileName());
        assertThat(Files.readSymbolicLink(sub.resolve("link")).getFileSystem()).isSameAs(fs);
        assertThat(Files.isSameFile(sub.resolve("link"), a)).isTrue();
        assertThat(Files.size(sub.resolve("c"))).isEqualTo(10);
        assertThat(Files.getPosixFilePermissions(a)).isNotEmpty();
        try (Stream<Path> walk = Files.walk(dir)) {
            List<Path> all = walk.toList();
            assertThat(all).allSatisfy(p -> assertThat(p.getFileSystem()).isSameAs(fs));
            assertThat(all).contains(a, sub.resolve("c"), sub.resolve("link"));
        }
        try (var entries = Files.newDirectoryStream(sub, "[ac]")) {
            assertThat(entries).containsExactlyInAnyOrder(a, sub.resolve("c"));
        }
        assertThat(Files.exists(sub.resolve("b"))).isFalse();
        Files.delete(sub.resolve("link"));
        assertThat(Files.deleteIfExists(sub.resolve("c"))).isTrue();
        assertThat(Files.getFileStore(a).type()).isNotEmpty();
    }
}
