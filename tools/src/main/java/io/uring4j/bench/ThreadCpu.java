package io.uring4j.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * A process's CPU time thread by thread, from {@code /proc/PID/task/TID/schedstat} (nanoseconds on the CPU), so that
 * a server's CPU per request splits into what its application threads spent and what the JIT compiler, the
 * garbage collector and uring4j's own threads (a send flusher, a loop) spent beside them.
 */
record ThreadCpu(Map<Long, Time> threads) {

    /** One thread's group and its time on the CPU so far. */
    record Time(Group group, long nanos) {
    }

    /** Who a thread works for, by its name ({@code /proc}'s {@code comm}: its first 15 characters). */
    enum Group {
        APP("app"), URING4J("uring4j"), JIT("jit"), JVM("gc+vm");

        final String label;

        Group(String label) {
            this.label = label;
        }

        static Group of(String comm) {
            if (comm.startsWith("uring4j-")) {
                return URING4J;
            }
            if (comm.contains("CompilerThre")) {
                return JIT;
            }
            if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("VM ")
                    || comm.equals("Service Thread") || comm.startsWith("Monitor Deflati")) {
                return JVM;
            }
            return APP;
        }
    }

    /** The CPU time of every thread of process {@code pid} now; threads that end while it is read are left out. */
    static ThreadCpu of(long pid) throws IOException {
        Map<Long, Time> threads = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    long tid = Long.parseLong(task.getFileName().toString());
                    String schedstat = Files.readString(task.resolve("schedstat"));
                    threads.put(tid, new Time(Group.of(Files.readString(task.resolve("comm")).strip()),
                            Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')))));
                } catch (NoSuchFileException ended) {
                    // the thread ended between the listing and the read
                }
            }
        }
        return new ThreadCpu(threads);
    }

    /**
     * The CPU time spent since {@code before}, by group: each thread's growth, a thread started since counted whole
     * (one that ended meanwhile is lost: its time is not in {@code /proc} any more).
     */
    Map<Group, Long> since(ThreadCpu before) {
        Map<Group, Long> spent = new EnumMap<>(Group.class);
        for (Group g : Group.values()) {
            spent.put(g, 0L);
        }
        threads.forEach((tid, now) -> {
            Time then = before.threads.get(tid);
            spent.merge(now.group, Math.max(0, now.nanos - (then == null ? 0 : then.nanos)), Long::sum);
        });
        return spent;
    }
}
