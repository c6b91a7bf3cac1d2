package io.uring4j.cli;

import io.uring4j.bench.Child;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A tool's main class in a child JVM (this JVM's java and class path), as {@code ./uring4j} runs it: its exit
 * status and what it printed, for tests of what a user sees — messages, exit statuses, signals. Its output goes
 * to files in a private directory (a reader of the pipes can lose the end when the process exits).
 */
public final class ToolProcess implements AutoCloseable {
    private final Process process;
    private final Path dir;

    private ToolProcess(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
    }

    /** Starts {@code mainClass} with {@code args}; {@code jvmFlags} go before the class name. */
    public static ToolProcess start(Class<?> mainClass, List<String> jvmFlags, String... args) throws IOException {
        List<String> command = Child.javaCommand(mainClass.getName(), jvmFlags.toArray(String[]::new));
        command.addAll(List.of(args));
        Path dir = Files.createTempDirectory("uring4j-tool");
        Process p = new ProcessBuilder(command).redirectOutput(dir.resolve("out").toFile())
                .redirectError(dir.resolve("err").toFile()).start();
        return new ToolProcess(p, dir);
    }

    /** Runs {@code mainClass} to its end (at most {@code seconds}, else it is killed and this throws). */
    public static ToolProcess run(int seconds, Class<?> mainClass, List<String> jvmFlags, String... args)
            throws IOException, InterruptedException {
        ToolProcess p = start(mainClass, jvmFlags, args);
        boolean ended = false;
        String output = "";
        try {
            ended = p.awaitExit(seconds);
        } finally {
            if (!ended) {               // timed out, or the test was interrupted: the child must not outlive it
                output = p.toString();
                p.close();
            }
        }
        if (!ended) {
            throw new AssertionError("still running after " + seconds + " s: " + output);
        }
        return p;
    }

    /** Waits up to {@code seconds} for the process to end; whether it did. */
    public boolean awaitExit(int seconds) throws InterruptedException {
        return process.waitFor(seconds, TimeUnit.SECONDS);
    }

    /** Waits up to {@code seconds} for a line of standard output that {@code test} accepts; whether one came. */
    public boolean awaitOutput(int seconds, Predicate<String> test) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        do {
            boolean alive = process.isAlive();
            if (out().lines().anyMatch(test)) {
                return true;
            }
            if (!alive) {
                return false;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        return false;
    }

    /** SIGTERM, as {@code kill} or a service manager sends it. */
    public void terminate() {
        process.destroy();
    }

    public long pid() {
        return process.pid();
    }

    public int status() {
        return process.exitValue();
    }

    public String out() {
        return read("out");
    }

    public String err() {
        return read("err");
    }

    /** Non-blank lines of standard error, without the JVM's notice of JAVA_TOOL_OPTIONS (a CI may set it). */
    public List<String> errLines() {
        return err().lines().filter(l -> !l.isBlank() && !l.startsWith("Picked up ")).toList();
    }

    /** Kills the process if it still runs and deletes its output. */
    @Override
    public void close() {
        try {
            process.destroyForcibly().waitFor();
            Files.deleteIfExists(dir.resolve("out"));
            Files.deleteIfExists(dir.resolve("err"));
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "stdout:\n" + out() + "\nstderr:\n" + err();
    }

    private String read(String name) {
        try {
            return Files.readString(dir.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
