package io.uring4j.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** What this process's threads are doing in the kernel, from {@code /proc/self/task/*}/syscall. */
public final class ThreadSyscalls {
    private static final String WRITE = "1";

    private ThreadSyscalls() {
    }

    /** Whether a thread of ours is blocked in write(2) on {@code fd}: its /proc syscall line says so. */
    public static boolean writing(int fd) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.anyMatch(task -> {
                try {
                    String[] call = Files.readString(task.resolve("syscall")).trim().split(" ");
                    return call.length > 1 && call[0].equals(WRITE) && Long.decode(call[1]) == fd;
                } catch (IOException e) {
                    return false;       // the thread has gone
                }
            });
        }
    }
}
