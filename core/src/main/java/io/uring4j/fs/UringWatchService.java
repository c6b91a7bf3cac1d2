package io.uring4j.fs;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.Watchable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The platform's watch service of the {@link UringFileSystem}, handing back its paths: a key's
 * {@link WatchKey#watchable()} is the directory as registered (so it equals it, and {@code toFile()} works under
 * the provider flag) and an event's {@link WatchEvent#context()} is one of its paths. Each platform key has one
 * key here, so a directory registered twice gives the same key, and keys taken from the service are the ones
 * registration returned, as with the JDK's.
 *
 * <p>A key is held only while it is valid. An invalid key is never queued again, but one that was queued when it
 * became invalid (cancelled, or its directory deleted) is still taken once: it is then found weakly, so the key the
 * caller still holds comes back, and one the caller dropped is not kept for ever — nor is one never taken.
 */
final class UringWatchService implements WatchService {
    private final UringFileSystem fs;
    private final WatchService platform;
    /** The valid keys' wrappers, by platform key; guarded by this. */
    private final Map<WatchKey, Key> keys = new HashMap<>();
    /** Invalid keys' wrappers, for a last take of a key that was queued; guarded by this. */
    private final Map<WatchKey, WeakReference<Key>> invalid = new WeakHashMap<>();

    UringWatchService(UringFileSystem fs, WatchService platform) {
        this.fs = fs;
        this.platform = platform;
    }

    /** {@link UringPath#register}: registers the platform path of {@code dir} with the platform's service. */
    WatchKey register(UringPath dir, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers)
            throws IOException {
        return ours(UringPath.unwrap(dir).register(platform, events, modifiers), dir);
    }

    @Override
    public void close() throws IOException {
        platform.close();
        synchronized (this) {
            keys.clear();
            invalid.clear();
        }
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
        return key == null ? null : ours(key, null);
    }

    /** The wrapper of {@code key}, made with {@code dir} (or its own directory) if it has none. */
    private synchronized Key ours(WatchKey key, Path dir) {
        Key k = keys.get(key);
        if (k == null) {
            WeakReference<Key> ref = invalid.get(key);
            k = ref == null ? null : ref.get();
        }
        if (k == null) {
            k = new Key(key, dir != null ? dir : fs.wrap((Path) key.watchable()));
        }
        if (key.isValid()) {
            keys.put(key, k);
        } else {
            invalidated(k);
        }
        return k;
    }

    /** {@code k} is invalid for good: let it go, but find it while the caller holds it in case it is taken. */
    private synchronized void invalidated(Key k) {
        keys.remove(k.platform);
        WeakReference<Key> ref = invalid.get(k.platform);
        if (ref == null || ref.get() != k) {
            invalid.put(k.platform, new WeakReference<>(k));
        }
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
            if (platform.isValid()) {
                return true;
            }
            invalidated(this);
            return false;
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
            if (platform.reset()) {
                return true;
            }
            invalidated(this);
            return false;
        }

        @Override
        public void cancel() {
            platform.cancel();
            invalidated(this);
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
