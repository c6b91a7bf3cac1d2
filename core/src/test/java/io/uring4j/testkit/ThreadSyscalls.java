package io.uring4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** What this process's threads are doing in the kernel, from {@code /proc/self/task/*}. */
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

    /**
     * Whether one of the kernel's io_uring workers (io-wq threads, named {@code iou-wrk-*}, which belong to this
     * process) sleeps in the kernel function {@code wchan}, as {@code /proc/self/task/*}/wchan names it.
     */
    public static boolean kernelWorkerSleepingIn(String wchan) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.anyMatch(task -> {
                try {
                    return Files.readString(task.resolve("comm")).startsWith("iou-wrk")
                            && Files.readString(task.resolve("wchan")).trim().equals(wchan);
                } catch (IOException e) {
                    return false;       // the thread has gone
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
