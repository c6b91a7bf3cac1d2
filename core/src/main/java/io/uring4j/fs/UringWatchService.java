package io.uring4j.fs;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.Watchable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The platform's watch service of the {@link UringFileSystem}, handing back its paths: a key's
 * {@link WatchKey#watchable()} is the directory as registered (so it equals it, and {@code toFile()} works under
 * the provider flag) and an event's {@link WatchEvent#context()} is one of its paths. Each platform key has one
 * key here, so a directory registered twice gives the same key, and keys taken from the service are the ones
 * registration returned, as with the JDK's.
 */
final class UringWatchService implements WatchService {
    private final UringFileSystem fs;
    private final WatchService platform;
    private final Map<WatchKey, Key> keys = new ConcurrentHashMap<>();

    UringWatchService(UringFileSystem fs, WatchService platform) {
        this.fs = fs;
        this.platform = platform;
    }

    /** {@link UringPath#register}: registers the platform path of {@code dir} with the platform's service. */
    WatchKey register(UringPath dir, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers)
            throws IOException {
        WatchKey key = UringPath.unwrap(dir).register(platform, events, modifiers);
        return keys.computeIfAbsent(key, k -> new Key(k, dir));
    }

    @Override
    public void close() throws IOException {
        platform.close();
        keys.clear();
    }

    @Override
    public WatchKey poll() {
        return ours(platform.poll());
    }

    @Override
    public WatchKey poll(long timeout, TimeUnit unit) throws InterruptedException {
        return ours(platform.poll(timeout, unit));
    }

    @Override
    public WatchKey take() throws InterruptedException {
        return ours(platform.take());
    }

    private WatchKey ours(WatchKey key) {
        return key == null ? null : keys.computeIfAbsent(key, k -> new Key(k, fs.wrap((Path) k.watchable())));
    }

    private final class Key implements WatchKey {
        private final WatchKey platform;
        private final Path dir;

        Key(WatchKey platform, Path dir) {
            this.platform = platform;
            this.dir = dir;
        }

        @Override
        public boolean isValid() {
            return platform.isValid();
        }

        @Override
        public List<WatchEvent<?>> pollEvents() {
            List<WatchEvent<?>> events = platform.pollEvents();
            List<WatchEvent<?>> wrapped = new ArrayList<>(events.size());
            for (WatchEvent<?> e : events) {
                wrapped.add(e.context() instanceof Path name ? new Event(e, fs.wrap(name)) : e);
            }
            return wrapped;
        }

        @Override
        public boolean reset() {
            return platform.reset();
        }

        @Override
        public void cancel() {
            platform.cancel();
        }

        @Override
        public Watchable watchable() {
            return dir;
        }
    }

    /** A platform event with its context, a name relative to the directory, as one of our paths. */
    private record Event(WatchEvent<?> platform, Path context) implements WatchEvent<Path> {
        @Override
        @SuppressWarnings("unchecked")
        public Kind<Path> kind() {
            return (Kind<Path>) platform.kind();
        }

        @Override
        public int count() {
            return platform.count();
        }

        @Override
        public String toString() {
            return platform.toString();
        }
    }
}
