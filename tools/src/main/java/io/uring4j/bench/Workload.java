package io.uring4j.bench;

import java.util.List;

/**
 * A named set of workload options, as both the Java and the C program take them, with the Java/C target.
 *
 * @param minSpeed the least Java/C throughput ratio that meets the target (0: no target)
 * @param target   the target as the issue states it
 */
record Workload(String name, List<String> args, double minSpeed, String target) {
    /** The suite's and the comparison's workloads. Read mode gets its FILE appended. */
    static final List<Workload> STANDARD = List.of(
            new Workload("nop d128 s32 c32", List.of("-N1", "-d128", "-s32", "-c32"), 0.95, "IOPS >= 0.95 C"),
            new Workload("nop QD1", List.of("-N1", "-d1", "-s1", "-c1"), 0.90, "IOPS >= 0.90 C"),
            new Workload("link L100", List.of("-L100"), 1 / 1.05, "ns <= 1.05 C"),
            new Workload("link L100 async", List.of("-L100", "-A1"), 1 / 1.25, "ns <= 1.25 C"),
            new Workload("read 4k rand d128 B1 F1", List.of("-d128", "-s32", "-c32", "-b4096", "-B1", "-F1", "-O1",
                    "-R1", "-p0"), 0.95, "IOPS >= 0.95 C"));

    boolean readsFile() {
        return !args.contains("-N1") && args.stream().noneMatch(a -> a.startsWith("-L") && !a.equals("-L0"));
    }
}
