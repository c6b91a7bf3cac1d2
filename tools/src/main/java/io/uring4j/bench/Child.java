package io.uring4j.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One measured program in a process of its own, for the side-by-side comparisons. Its output goes to files and
 * its JSON summary is read only after it has exited: a parser running beside the measured program would take
 * CPU from it.
 */
public final class Child {
    private static final Pattern JSON_FIELD = Pattern.compile("\"(\\w+)\":(\"[^\"]*\"|[-+0-9.eE]+)");

    private Child() {
    }

    /** Runs a bench {@code command} to completion within {@code limitSeconds}; the fields of its JSON summary. */
    static Map<String, String> run(List<String> command, double limitSeconds) throws IOException, InterruptedException {
        String output = output(command, limitSeconds);
        Map<String, String> fields = parseJson(output);
        if (!fields.containsKey("ns_per_op")) {
            throw new BenchException("no JSON summary from " + String.join(" ", command) + "\n" + output);
        }
        return fields;
    }

    /** Runs {@code command} to completion within {@code limitSeconds}; its standard output. */
    static String output(List<String> command, double limitSeconds) throws IOException, InterruptedException {
        File stdout = File.createTempFile("uring4j-compare-", ".out");
        File stderr = File.createTempFile("uring4j-compare-", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectOutput(stdout).redirectError(stderr).start();
            if (!p.waitFor((long) limitSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new BenchException("timed out after " + (long) limitSeconds + " s: " + String.join(" ", command));
            }
            String output = Files.readString(stdout.toPath());
            if (p.exitValue() != 0) {
                throw new BenchException("exit status " + p.exitValue() + " from " + String.join(" ", command)
                        + "\n" + output + Files.readString(stderr.toPath()));
            }
            return output;
        } finally {
            Files.deleteIfExists(stdout.toPath());
            Files.deleteIfExists(stderr.toPath());
        }
    }

    /** The flat JSON object on the last line that starts with '{'. */
    static Map<String, String> parseJson(String output) {
        Map<String, String> fields = new HashMap<>();
        String last = null;
        for (String line : output.split("\n")) {
            if (line.startsWith("{")) {
                last = line;
            }
        }
        if (last != null) {
            Matcher m = JSON_FIELD.matcher(last);
            while (m.find()) {
                String v = m.group(2);
                fields.put(m.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
            }
        }
        return fields;
    }

    /**
     * The child JVM: this JVM's java binary and class path, with native access granted and this JVM's
     * {@code uring4j.*} system properties (an engine choice, say) passed on.
     */
    static List<String> javaCommand() {
        return javaCommand(Bench.class.getName());
    }

    /** {@link #javaCommand()} for another main class, with extra JVM flags before it (tests start tools so too). */
    public static List<String> javaCommand(String mainClass, String... jvmFlags) {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith("uring4j.")).sorted()
                .forEach(k -> command.add("-D" + k + "=" + System.getProperty(k)));
        command.addAll(List.of(jvmFlags));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        return command;
    }
}
