package io.uring4j.testkit;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a probe's {@code main} in a JVM of its own, on uring4j's classes and the probe's, with native access and the
 * engine this test run uses: for what only a fresh process shows (a flag read at start-up, class loading, the
 * process's end).
 */
public final class ChildJvm {
    private ChildJvm() {
    }

    /** The child, started: {@code jvmFlags} go before the main class; stdout and stderr are one stream. */
    public static Process start(Class<?> probe, String... jvmFlags) throws IOException {
        return new ProcessBuilder(command(probe, jvmFlags)).redirectErrorStream(true).start();
    }

    /** The command that runs {@code probe}'s {@code main}, for a caller that starts it its own way. */
    public static List<String> command(Class<?> probe, String... jvmFlags) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "--enable-native-access=ALL-UNNAMED",
                "-During4j.engine=" + System.getProperty("uring4j.engine", "auto")));
        command.addAll(List.of(jvmFlags));
        command.addAll(List.of("-cp", location(io.uring4j.runtime.Uring.class) + File.pathSeparator
                + location(probe), probe.getName()));
        return command;
    }

    /**
     * The child's output (stdout and stderr), once it has ended with status 0 within a minute; otherwise an
     * AssertionError with what it printed.
     */
    public static String output(Class<?> probe, String... jvmFlags) throws IOException, InterruptedException {
        Process child = start(probe, jvmFlags);
        String out = new String(child.getInputStream().readAllBytes());
        if (!child.waitFor(60, TimeUnit.SECONDS)) {
            child.destroyForcibly();
            throw new AssertionError(probe.getSimpleName() + " did not end within a minute:\n" + out);
        }
        if (child.exitValue() != 0) {
            throw new AssertionError(probe.getSimpleName() + " ended with " + child.exitValue() + ":\n" + out);
        }
        return out;
    }

    /** Where {@code c}'s class file was loaded from: a directory or a jar. */
    public static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
