package io.uring4j.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The process's open fds, each with what it names ({@code 12 -> socket:[4711]}), for leak checks.
 *
 * <p>A leak is an fd open now that was not open, naming the same thing, at the snapshot. Counting fds instead fails
 * whenever something else in the JVM closes one of its own during the test (an earlier test's cleaner, a daemon
 * thread's ring), which is not this test's business.
 */
public final class OpenFds {
    private static final long WAIT_SECONDS = 10;
    private static final Path LISTING = Path.of("/proc", Long.toString(ProcessHandle.current().pid()), "fd");

    private final Set<String> fds;

    private OpenFds(Set<String> fds) {
        this.fds = fds;
    }

    /** The fds open now. */
    public static OpenFds snapshot() throws IOException {
        Set<String> fds = new TreeSet<>();
        try (var list = Files.list(LISTING)) {
            for (Path fd : (Iterable<Path>) list::iterator) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (!target.equals(LISTING)) {                      // the listing's own fd
                        fds.add(fd.getFileName() + " -> " + target);
                    }
                } catch (IOException gone) {
                    // closed while listing
                }
            }
        }
        return new OpenFds(fds);
    }

    /** How many fds were open at this snapshot. */
    public int count() {
        return fds.size();
    }

    /** The fds open now that were not open at this snapshot. */
    public Set<String> openedSince() throws IOException {
        Set<String> now = snapshot().fds;
        now.removeAll(fds);
        return now;
    }

    /** Asserts that every fd opened since this snapshot is closed now. */
    public void assertNoneOpenedSince() throws IOException {
        assertThat(openedSince()).as("fds opened since the snapshot and still open").isEmpty();
    }

    /** As {@link #assertNoneOpenedSince}, waiting (boundedly) for closes that finish on another thread. */
    public void awaitNoneOpenedSince() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!openedSince().isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertNoneOpenedSince();
    }
}
