package io.uring4j.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** What this process's threads are doing in the kernel, from {@code /proc/self/task/*}. */
public final class ThreadSyscalls {
    private static final String WRITE = "1";
    private static final String FCNTL = "72";
    private static final long F_SETLKW = 7;

    private ThreadSyscalls() {
    }

    /** Whether a thread of ours is blocked in write(2) on {@code fd}: its /proc syscall line says so. */
    public static boolean writing(int fd) throws IOException {
        return anyThreadIn(call -> call.length > 1 && call[0].equals(WRITE) && Long.decode(call[1]) == fd);
    }

    /** Whether a thread of ours waits for a record lock, in fcntl(2) with F_SETLKW, on any fd. */
    public static boolean waitingForLock() throws IOException {
        return anyThreadIn(call -> call.length > 2 && call[0].equals(FCNTL) && Long.decode(call[2]) == F_SETLKW);
    }

    /**
     * Whether one of the kernel's io_uring workers (io-wq threads, named {@code iou-wrk-*}, which belong to this
     * process) sleeps in the kernel function {@code wchan}, as {@code /proc/self/task/*}/wchan names it.
     */
    public static boolean kernelWorkerSleepingIn(String wchan) {
        try {
            return anyTask(task -> Files.readString(task.resolve("comm")).startsWith("iou-wrk")
                    && Files.readString(task.resolve("wchan")).trim().equals(wchan));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean anyThreadIn(Predicate<String[]> syscall) throws IOException {
        return anyTask(task -> syscall.test(Files.readString(task.resolve("syscall")).trim().split(" ")));
    }

    /** A look at one thread's {@code /proc/self/task/TID} directory. */
    private interface TaskCheck {
        boolean test(Path task) throws IOException;
    }

    private static boolean anyTask(TaskCheck check) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.anyMatch(task -> {
                try {
                    return check.test(task);
                } catch (IOException e) {
                    return false;       // the thread has gone
                }
            });
        }
    }
}
