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
record ThreadCpu(Map<Long, Long> nanosByThread, Map<Long, Group> groups) {

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
        Map<Long, Long> nanos = new HashMap<>();
        Map<Long, Group> groups = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    long tid = Long.parseLong(task.getFileName().toString());
                    String schedstat = Files.readString(task.resolve("schedstat"));
                    nanos.put(tid, Long.parseLong(schedstat.substring(0, schedstat.indexOf(' '))));
                    groups.put(tid, Group.of(Files.readString(task.resolve("comm")).strip()));
                } catch (NoSuchFileException ended) {
                    // the thread ended between the listing and the read
                }
            }
        }
        return new ThreadCpu(nanos, groups);
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
        nanosByThread.forEach((tid, now) -> spent.merge(groups.get(tid),
                Math.max(0, now - before.nanosByThread.getOrDefault(tid, 0L)), Long::sum));
        return spent;
    }
}
