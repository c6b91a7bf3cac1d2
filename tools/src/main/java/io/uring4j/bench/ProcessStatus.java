package io.uring4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** What a process holds, from {@code /proc/PID/status} (RSS, threads) and {@code /proc/PID/fd} (descriptors). */
public record ProcessStatus(long rssKib, int threads, int fds) {
    public static ProcessStatus of(long pid) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        long rss = 0;
        int threads = 0;
        for (String line : Files.readAllLines(proc.resolve("status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
            } else if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
            }
        }
        try (Stream<Path> fds = Files.list(proc.resolve("fd"))) {
            return new ProcessStatus(rss, threads, (int) fds.count());
        }
    }
}
