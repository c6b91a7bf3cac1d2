package io.uring4j.bench;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The C ceiling of a read cell: the C reference ({@code bench/c/uring4j_ref.c}) as two processes at once, one per
 * CPU of a two-CPU machine, each at depth 32 on the same file and block size, their IOPS summed; the median over the
 * rounds. Measured once per O_DIRECT setting and block size, when a cell first asks; 0 where there is no C
 * reference or compiler.
 */
final class Ceiling {
    static final int PROCESSES = 2;

    private final BenchOptions options;
    private final PrintStream err;
    private final int seconds;
    private final Path file;
    private final Map<String, Double> measured = new HashMap<>();
    private Path binary;
    private boolean unavailable;

    Ceiling(BenchOptions options, PrintStream err, int seconds, Path file) {
        this.options = options;
        this.err = err;
        this.seconds = seconds;
        this.file = file;
    }

    /** Summed IOPS of the C reference reading {@code blockSize} blocks, O_DIRECT or cached; 0 if it cannot run. */
    double iops(int direct, int blockSize) throws IOException, InterruptedException {
        String key = direct + "/" + blockSize;
        Double known = measured.get(key);
        if (known != null) {
            return known;
        }
        double[] sums = new double[options.rounds];
        if (binary() != null) {
            for (int round = 0; round < sums.length; round++) {
                sums[round] = once(direct, blockSize);
            }
        }
        double median = binary == null ? 0 : CompareC.median(sums);
        measured.put(key, median);
        return median;
    }

    /** Whether there is a C reference to run (built on first ask). */
    boolean available() throws IOException, InterruptedException {
        return binary() != null;
    }

    private Path binary() throws IOException, InterruptedException {
        if (binary == null && !unavailable) {
            Path source = CompareC.findSource();
            String compiler = CompareC.findCompiler();
            if (source == null || compiler == null) {
                err.println("uring4j bench: no C reference or no C compiler: the matrix has no C ceiling");
                unavailable = true;
            } else {
                binary = new CompareC(options, err, err).build(compiler, source);
            }
        }
        return binary;
    }

    /** The processes started together and their IOPS summed: one round's ceiling. */
    double once(int direct, int blockSize) throws IOException, InterruptedException {
        List<String> command = List.of(binary.toString(), "-d32", "-s32", "-c32", "-b" + blockSize, "-O" + direct,
                "-R1", "-B1", "-F1", "-p0", "-r" + seconds, "--json", file.toString());
        List<Process> processes = new ArrayList<>();
        List<File> outputs = new ArrayList<>();
        try {
            for (int i = 0; i < PROCESSES; i++) {
                File output = File.createTempFile("uring4j-ceiling-", ".out");
                outputs.add(output);
                processes.add(new ProcessBuilder(command).redirectOutput(output)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start());
            }
            double sum = 0;
            for (int i = 0; i < PROCESSES; i++) {
                Process p = processes.get(i);
                if (!p.waitFor(seconds + 60L, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new BenchException("the C ceiling failed: " + String.join(" ", command));
                }
                String iops = Child.parseJson(Files.readString(outputs.get(i).toPath())).get("iops_avg");
                if (iops == null) {
                    throw new BenchException("no JSON summary from " + String.join(" ", command));
                }
                sum += Double.parseDouble(iops);
            }
            Suite.progress(err, String.format(Locale.ROOT, "C ceiling O%d bs%d: %.0f IOPS", direct, blockSize, sum));
            return sum;
        } finally {
            processes.forEach(Process::destroyForcibly);
            for (File f : outputs) {
                Files.deleteIfExists(f.toPath());
            }
        }
    }
}
