package io.uring4j.bench;

import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A storage engine's commit log: H2's MVStore, a log-structured key-value store, on one file with autocommit off,
 * run as a program of its own (the JVM flag that installs the provider acts at start-up). Records appended under
 * consecutive sequence numbers with a durable commit every {@value #COMMIT_EVERY} writes — {@code commit()}, which
 * appends the changes to the file, then {@code sync()}, which forces them to the device — then a mixed phase of
 * gets, puts and removes of random records, committed the same way, a close, and a re-open that reads everything
 * back. Standard output gets the results, which must not
 * depend on the file system provider, then one JSON line with the FileChannel class the application got and the
 * timings.
 *
 * <p>Arguments: directory, operations per phase.
 */
public final class MVStoreWorkload {
    static final int COMMIT_EVERY = 10_000;

    private MVStoreWorkload() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        int ops = Integer.parseInt(args[1]);
        String file = dir.resolve("store.mv").toAbsolutePath().toString();
        String channel = CompareFlag.channelClass(dir);
        SplittableRandom random = new SplittableRandom(42);
        long t0 = System.nanoTime();
        long t1;
        long t2;
        long gets = 0;
        long found = 0;
        try (MVStore store = new MVStore.Builder().fileName(file).autoCommitDisabled().open()) {
            MVMap<Integer, byte[]> map = store.openMap("log");
            for (int i = 0; i < ops; i++) {
                map.put(i, value(random));
                commitEvery(store, i);
            }
            commit(store);
            t1 = System.nanoTime();
            for (int i = 0; i < ops; i++) {
                int key = random.nextInt(ops);
                int kind = random.nextInt(10);
                if (kind < 6) {
                    gets++;
                    found += map.get(key) != null ? 1 : 0;
                } else if (kind < 9) {
                    map.put(key, value(random));
                } else {
                    map.remove(key);
                }
                commitEvery(store, i);
            }
            commit(store);
            t2 = System.nanoTime();
        }
        System.out.println("mixed phase: " + gets + " gets, " + found + " found");
        long t3 = System.nanoTime();
        try (MVStore store = new MVStore.Builder().fileName(file).readOnly().open()) {
            MVMap<Integer, byte[]> map = store.openMap("log");
            long sum = 0;
            for (var e : map.entrySet()) {
                sum = sum * 31 + e.getKey() * 17L + java.util.Arrays.hashCode(e.getValue());
            }
            System.out.println("after re-open: " + map.size() + " entries, checksum " + sum);
        }
        long end = System.nanoTime();
        System.out.printf(Locale.ROOT, "{\"channel\":\"%s\",\"put_per_s\":%.0f,\"mixed_per_s\":%.0f,\"reopen_ms\":%.1f,"
                + "\"total_ms\":%.1f}%n", channel, ops / ((t1 - t0) / 1e9), ops / ((t2 - t1) / 1e9), (end - t3) / 1e6,
                (end - t0) / 1e6);
    }

    /** 16 to 200 bytes, as a log's records vary. */
    private static byte[] value(SplittableRandom random) {
        byte[] v = new byte[16 + random.nextInt(185)];
        random.nextBytes(v);
        return v;
    }

    private static void commitEvery(MVStore store, int i) {
        if (i % COMMIT_EVERY == COMMIT_EVERY - 1) {
            commit(store);
        }
    }

    private static void commit(MVStore store) {
        store.commit();
        store.sync();
    }
}
