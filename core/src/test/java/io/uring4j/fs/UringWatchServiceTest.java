package io.uring4j.fs;

import io.uring4j.testkit.Fields;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.uring4j.testkit.Await.awaitCondition;
import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The provider's watch service beside the JDK's, on a real directory: cancelled keys and keys of deleted
 * directories behave as the JDK's do, and the service lets go of them — no wrapper kept for ever, no inotify watch
 * left behind.
 */
class UringWatchServiceTest {
    private static final long BOUND_SECONDS = 10;

    @TempDir
    Path tmp;

    private FileSystem fs;

    @BeforeEach
    void wrap() throws IOException {
        UringFiles.shared();
        fs = new UringFileSystemProvider(FileSystems.getDefault().provider()).fileSystem();
    }

    /** The JDK's file system or the provider's, for the same directory. */
    private FileSystem side(String which) {
        return which.equals("jdk") ? FileSystems.getDefault() : fs;
    }

    /**
     * A register and cancel loop: each cancelled key is invalid, never queued, its inotify watch removed, and the
     * directory registered again gives a new valid key. The provider's service holds none of them afterwards.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring4j"})
    void cancelledKeysAreDroppedWithTheirWatches(String which) throws Exception {
        Path dir = side(which).getPath(tmp.toString());
        long watchesBefore = inotifyWatches();
        try (WatchService watcher = side(which).newWatchService()) {
            WatchKey previous = null;
            for (int i = 0; i < 500; i++) {
                WatchKey key = dir.register(watcher, ENTRY_CREATE);
                assertThat(key.isValid()).isTrue();
                assertThat(key).as("registered again after a cancel: a new key").isNotSameAs(previous);
                assertThat(inotifyWatches()).isEqualTo(watchesBefore + 1);
                key.cancel();
                assertThat(key.isValid()).isFalse();
                assertThat(key.reset()).isFalse();
                previous = key;
            }
            assertThat(inotifyWatches()).as("every cancel removed its watch").isEqualTo(watchesBefore);
            Files.createFile(dir.resolve("after"));
            assertThat(watcher.poll()).as("a cancelled key is never queued").isNull();
            assertThat(held(watcher)).as("keys the service still holds").isZero();
        }
    }

    /**
     * A key cancelled while queued is still taken once, as the same (invalid) key with its events; so is the key of
     * a directory deleted, after its last events. Then neither is held or queued.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring4j"})
    void invalidKeysStillQueuedAreTakenOnceAsTheSameKeys(String which) throws Exception {
        Path a = Files.createDirectory(tmp.resolve("a"));
        Path gone = Files.createDirectory(tmp.resolve("gone"));
        long watchesBefore = inotifyWatches();
        try (WatchService watcher = side(which).newWatchService()) {
            WatchKey keyA = side(which).getPath(a.toString()).register(watcher, ENTRY_CREATE);
            WatchKey keyGone = side(which).getPath(gone.toString()).register(watcher, ENTRY_CREATE);
            Files.createFile(a.resolve("f"));
            Files.delete(gone);
            // The deletion's events come after the creation's from the same inotify fd, so once keyGone is invalid
            // keyA has been queued.
            awaitCondition(() -> !keyGone.isValid());
            keyA.cancel();
            WatchKey taken = watcher.poll(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(taken).as("the cancelled key, still queued").isSameAs(keyA);
            assertThat(taken.isValid()).isFalse();
            assertThat(names(taken.pollEvents())).containsExactly("f");
            assertThat(taken.reset()).isFalse();
            taken = watcher.poll(BOUND_SECONDS, TimeUnit.SECONDS);
            assertThat(taken).as("the deleted directory's key, after its last events").isSameAs(keyGone);
            assertThat(taken.isValid()).isFalse();
            assertThat(taken.reset()).isFalse();
            assertThat(watcher.poll()).isNull();
            assertThat(inotifyWatches()).isEqualTo(watchesBefore);
            assertThat(held(watcher)).as("keys the service still holds").isZero();
        }
    }

    /** A key of a deleted directory that was taken before: its reset fails, and the service lets it go. */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring4j"})
    void aTakenKeyWhoseDirectoryGoesAwayIsLetGoAtItsReset(String which) throws Exception {
        Path gone = Files.createDirectory(tmp.resolve("gone"));
        try (WatchService watcher = side(which).newWatchService()) {
            WatchKey key = side(which).getPath(gone.toString()).register(watcher, ENTRY_CREATE);
            Files.createFile(gone.resolve("f"));
            assertThat(watcher.poll(BOUND_SECONDS, TimeUnit.SECONDS)).isSameAs(key);
            Files.delete(gone.resolve("f"));
            Files.delete(gone);
            assertThat(names(key.pollEvents())).containsExactly("f");
            awaitCondition(() -> !key.isValid());
            assertThat(key.reset()).isFalse();
            assertThat(watcher.poll()).as("a cancelled key is not queued again").isNull();
            assertThat(held(watcher)).as("keys the service still holds").isZero();
        }
    }

    /** Closing the service cancels every key and lets go of them all. */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring4j"})
    void closeReleasesEveryKey(String which) throws Exception {
        long watchesBefore = inotifyWatches();
        WatchService watcher = side(which).newWatchService();
        List<WatchKey> keys = new ArrayList<>();
        for (String name : List.of("x", "y", "z")) {
            Path d = Files.createDirectory(tmp.resolve(name));
            keys.add(side(which).getPath(d.toString()).register(watcher, ENTRY_CREATE));
        }
        assertThat(inotifyWatches()).isEqualTo(watchesBefore + 3);
        watcher.close();
        assertThat(keys).noneMatch(WatchKey::isValid);
        assertThat(inotifyWatches()).isEqualTo(watchesBefore);
        assertThat(held(watcher)).isZero();
    }

    private static List<String> names(List<WatchEvent<?>> events) {
        return events.stream().map(e -> e.context().toString()).toList();
    }

    /** The wrappers the provider's service holds for keys that may still be queued (none for the JDK's). */
    private static int held(WatchService watcher) {
        if (!(watcher instanceof UringWatchService)) {
            return 0;
        }
        Map<?, ?> keys = Fields.read(UringWatchService.class, "keys", watcher);
        return keys.size();
    }

    /** The inotify watches of this process: a {@code wd:} line each in its inotify fds' fdinfo. */
    private static long inotifyWatches() throws IOException {
        long n = 0;
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).toString().equals("anon_inode:inotify")) {
                        Path info = Path.of("/proc/self/fdinfo", fd.getFileName().toString());
                        n += Files.readAllLines(info).stream().filter(l -> l.startsWith("inotify wd:")).count();
                    }
                } catch (IOException closed) {
                    // an fd closed while listing
                }
            }
        }
        return n;
    }
}
