package io.uring4j.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where {@code bench http --pin} runs the server and wrk: the server alone on the first CPU this process may use,
 * wrk on the others, each started under {@code taskset -c}. Without pinning both share every CPU, and a server's
 * figures are partly the scheduler's.
 */
record Pinning(List<String> server, List<String> wrk, String describe) {
    static final Pinning NONE = new Pinning(List.of(), List.of(), "");

    /** The first allowed CPU for the server, the rest for wrk; refuses a single CPU or a missing taskset. */
    static Pinning split() {
        List<Integer> cpus = allowedCpus();
        if (cpus.size() < 2) {
            throw new BenchException("--pin needs two CPUs (one for the server, one for wrk); this process may use "
                    + cpus.size());
        }
        String taskset = Bench.onPath("taskset");
        if (taskset == null) {
            throw new BenchException("--pin needs taskset (util-linux): apt-get install util-linux");
        }
        String others = String.join(",", cpus.subList(1, cpus.size()).stream().map(String::valueOf).toList());
        return new Pinning(List.of(taskset, "-c", cpus.getFirst().toString()), List.of(taskset, "-c", others),
                ", server on CPU " + cpus.getFirst() + ", wrk on CPU " + others);
    }

    /** This process's CPUs, from {@code Cpus_allowed_list} in /proc/self/status ("0-3,6", say). */
    static List<Integer> allowedCpus() {
        try {
            String list = Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst()
                    .orElseThrow(() -> new BenchException("no Cpus_allowed_list in /proc/self/status"))
                    .substring("Cpus_allowed_list:".length()).trim();
            return parseCpuList(list);
        } catch (IOException e) {
            throw new BenchException("cannot read /proc/self/status: " + e.getMessage());
        }
    }

    static List<Integer> parseCpuList(String list) {
        List<Integer> cpus = new ArrayList<>();
        for (String part : list.split(",")) {
            String[] range = part.trim().split("-");
            int first = Integer.parseInt(range[0]);
            int last = range.length > 1 ? Integer.parseInt(range[1]) : first;
            for (int cpu = first; cpu <= last; cpu++) {
                cpus.add(cpu);
            }
        }
        return cpus;
    }
}
