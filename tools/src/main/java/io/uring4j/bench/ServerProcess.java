package io.uring4j.bench;

import io.uring4j.bench.peers.Peer;
import io.uring4j.serve.Serve;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One server of {@code bench http} in a child JVM of its own (this JVM's java and class path), on 127.0.0.1 at a
 * port the kernel chooses: uring4j's serve, a peer, or a {@link UringTwin} (a peer with its provider flag, which
 * must report uring4j's provider before it counts as started). Stopped with SIGTERM, as a user stops a server.
 */
final class ServerProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile(" on \\S+:(\\d+),");
    private static final Pattern PROVIDERS = Pattern.compile("^providers: (.*)$");
    private static final int START_SECONDS = 30;
    private static final int STOP_SECONDS = 10;

    private final String name;
    private final Process process;
    private final Thread stopOnExit;
    private final StringBuffer output = new StringBuffer();
    private final CompletableFuture<String> providers = new CompletableFuture<>();
    private final CompletableFuture<Integer> port = new CompletableFuture<>();

    private ServerProcess(String name, List<String> command) throws IOException {
        this.name = name;
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
        stopOnExit = new Thread(process::destroyForcibly);
        Runtime.getRuntime().addShutdownHook(stopOnExit);      // Ctrl-C must not leave a server running
        Thread.ofVirtual().start(this::readOutput);
    }

    /** Starts the server {@code name} ({@code bench http --servers} takes) and waits until it listens. */
    static ServerProcess start(String name, BenchOptions.EngineName engine, int threads)
            throws IOException, InterruptedException {
        return start(name, engine, threads, List.of());
    }

    /** {@link #start(String, BenchOptions.EngineName, int)} run under {@code prefix} (taskset, say), if not empty. */
    static ServerProcess start(String name, BenchOptions.EngineName engine, int threads, List<String> prefix)
            throws IOException, InterruptedException {
        UringTwin twin = UringTwin.named(name).orElse(null);
        List<String> command = new ArrayList<>(prefix);
        command.addAll(twin != null ? command(twin.app(), engine, threads, twin.flag())
                : command(name, engine, threads, null));
        return started(name, command, twin);
    }

    /** Starts {@code twin} and waits until it listens, having checked the provider it reports. */
    static ServerProcess start(UringTwin twin, BenchOptions.EngineName engine, int threads)
            throws IOException, InterruptedException {
        return started(twin.name(), command(twin.app(), engine, threads, twin.flag()), twin);
    }

    private static ServerProcess started(String name, List<String> command, UringTwin twin)
            throws IOException, InterruptedException {
        ServerProcess server = new ServerProcess(name, command);
        try {
            if (twin != null) {
                twin.verify(server.await(server.providers, "report its providers"));
            }
            server.await(server.port, "report a port");
            return server;
        } catch (RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
    }

    /**
     * The child JVM's command: uring4j's serve (on {@code engine}), or a peer (uring4j's provider flags, if any,
     * run on {@code engine} too) with {@code jvmFlag} if not null.
     */
    private static List<String> command(String name, BenchOptions.EngineName engine, int threads, String jvmFlag) {
        // Netty uses sun.misc.Unsafe as it does in production; the flag is the same for every server.
        List<String> jvm = new ArrayList<>(List.of("--sun-misc-unsafe-memory-access=allow",   // after -During4j.*
                "-During4j.engine=" + engine));
        List<String> args = new ArrayList<>();
        String main;
        if (name.startsWith("uring4j-")) {
            main = Serve.class.getName();
            args.addAll(List.of("http", "--style", name.substring("uring4j-".length())));
        } else {
            main = Peer.class.getName();
            args.add(name);
        }
        if (jvmFlag != null) {
            jvm.add(jvmFlag);
        }
        args.addAll(List.of("--host", "127.0.0.1", "--port", "0", "--threads", Integer.toString(threads)));
        List<String> command = Child.javaCommand(main, jvm.toArray(String[]::new));
        command.addAll(args);
        return command;
    }

    int port() {
        return port.join();
    }

    /** The server JVM's CPU time so far, thread by thread. */
    ThreadCpu threadCpu() {
        try {
            return ThreadCpu.of(process.pid());
        } catch (IOException e) {
            throw new BenchException(name + (process.isAlive() ? "" : " has exited") + ": its threads' CPU time"
                    + " cannot be read from /proc/" + process.pid() + "/task (" + e + "):\n" + output);
        }
    }

    /** The server JVM's CPU time so far, all its threads, user and kernel. */
    long cpuNanos() {
        return process.toHandle().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** The server JVM's resident memory now (VmRSS), in bytes. */
    long rssBytes() throws IOException {
        return Files.readAllLines(Path.of("/proc/" + process.pid() + "/status")).stream()
                .filter(l -> l.startsWith("VmRSS:")).findFirst()
                .map(l -> Long.parseLong(l.replaceAll("\\D", "")) * 1024)
                .orElseThrow(() -> new BenchException(name + ": no VmRSS in /proc/" + process.pid() + "/status"));
    }

    /** What the server has printed so far, to quote when it fails. */
    String output() {
        return output.toString();
    }

    /** SIGTERM and its exit status; forcibly killed (and -1) if it has not ended within 10 s. */
    int stop() throws InterruptedException {
        try {
            process.destroy();
            if (process.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
                return process.exitValue();
            }
            process.destroyForcibly().waitFor();
            return -1;
        } finally {
            Runtime.getRuntime().removeShutdownHook(stopOnExit);
        }
    }

    /** {@link #stop()}; interrupted, it kills the server at once and keeps the interrupt. */
    @Override
    public void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Reads the output to its end (so the server never blocks on a full pipe), completing the two reports. */
    private void readOutput() {
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                output.append(line).append('\n');
                Matcher p = PROVIDERS.matcher(line);
                if (!providers.isDone() && p.find()) {
                    providers.complete(p.group(1));
                }
                Matcher m = LISTENING.matcher(line);
                if (!port.isDone() && m.find()) {
                    port.complete(Integer.parseInt(m.group(1)));
                }
            }
        } catch (IOException e) {
            output.append(e).append('\n');
        }
        providers.completeExceptionally(new IllegalStateException("exited"));
        port.completeExceptionally(new IllegalStateException("exited"));
    }

    private <T> T await(CompletableFuture<T> report, String what) throws InterruptedException {
        try {
            return report.get(START_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            String why = process.isAlive() ? "did not " + what + " within " + START_SECONDS + " s"
                    : "exited with status " + process.waitFor() + " before it could " + what;
            throw new BenchException(name + " " + why + ":\n" + output);
        }
    }
}
