package io.uring4j.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.uring4j.bench.CompareC.median;

/**
 * {@code bench http --idle N}: what a server costs to hold connections that do nothing. Each client connection
 * asks once and reads the answer, as a keep-alive client between requests, then stays open. Measured per server:
 * resident memory per connection (VmRSS with the clients against VmRSS after a first 200 were served and closed),
 * and over the measured idle seconds the server's CPU time and the machine's iowait ticks (/proc/stat,
 * system-wide: an idle server whose waits count as iowait shows its CPUs as busy).
 */
final class IdleConnections {
    private static final byte[] GET = "GET / HTTP/1.1\r\nHost: bench\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int WARM_UP = 200;

    /** One server's run. */
    record Sample(long rssBefore, long rssIdle, int connections, long cpuNanos, long iowaitTicks) {
        double bytesPerConnection() {
            return (double) (rssIdle - rssBefore) / connections;
        }
    }

    private IdleConnections() {
    }

    /** Warms {@code server} up, opens {@code n} connections, measures over {@code seconds}, and closes them. */
    static Sample measure(ServerProcess server, int n, int seconds) throws IOException, InterruptedException {
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.port());
        for (SocketChannel c : open(address, WARM_UP)) {
            c.close();
        }
        Thread.sleep(1_000);
        long before = server.rssBytes();
        List<SocketChannel> clients = open(address, n);
        try {
            Thread.sleep(2_000);
            long idle = server.rssBytes();
            long cpu = server.cpuNanos();
            long iowait = iowaitTicks();
            Thread.sleep(seconds * 1_000L);
            return new Sample(before, idle, n, server.cpuNanos() - cpu, iowaitTicks() - iowait);
        } finally {
            for (SocketChannel c : clients) {
                c.close();
            }
        }
    }

    private static List<SocketChannel> open(InetSocketAddress address, int n) throws IOException {
        List<SocketChannel> clients = new ArrayList<>(n);
        ByteBuffer answer = ByteBuffer.allocate(4096);
        try {
            for (int i = 0; i < n; i++) {
                SocketChannel c = SocketChannel.open(address);
                clients.add(c);
                c.write(ByteBuffer.wrap(GET));
                answer.clear();
                while (!answered(answer)) {
                    if (c.read(answer) < 0) {
                        throw new BenchException("connection " + i + " closed before its answer");
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            for (SocketChannel c : clients) {
                c.close();
            }
            throw e;
        }
        return clients;
    }

    /** The plaintext body ends the answer. */
    private static boolean answered(ByteBuffer answer) {
        String text = new String(answer.array(), 0, answer.position(), StandardCharsets.US_ASCII);
        return text.endsWith("Hello, World!");
    }

    /** The iowait field of /proc/stat's "cpu" line: every CPU's iowait, in ticks. */
    static long iowaitTicks() throws IOException {
        String[] cpu = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
        return Long.parseLong(cpu[5]);
    }

    /** One row per server (medians over the rounds), and the ratio of memory per connection where both ran. */
    static void print(PrintStream out, List<String> servers, Sample[][] results, int seconds) {
        String fmt = "%-20s %11s %10s %10s %10s %10s %14s%n";
        out.printf(fmt, "server", "connections", "RSS MiB", "idle MiB", "KiB/conn", "cpu ms", "iowait ticks");
        for (int i = 0; i < servers.size(); i++) {
            Sample[] runs = results[i];
            out.printf(Locale.ROOT, fmt, servers.get(i), runs[0].connections(),
                    mib(median(longs(runs, Sample::rssBefore))), mib(median(longs(runs, Sample::rssIdle))),
                    String.format(Locale.ROOT, "%.2f", kib(runs)),
                    String.format(Locale.ROOT, "%.0f", median(longs(runs, Sample::cpuNanos)) / 1e6),
                    String.format(Locale.ROOT, "%.0f", median(longs(runs, Sample::iowaitTicks))));
        }
        int loop = servers.indexOf("uring4j-loop");
        int netty = servers.indexOf("netty-iouring");
        if (loop >= 0 && netty >= 0) {
            double ratio = kib(results[loop]) / kib(results[netty]);
            out.printf(Locale.ROOT, "%nuring4j-loop / netty-iouring, memory per idle connection: %.3f (target <= 0.5: %s)%n",
                    ratio, ratio <= 0.5 ? "met" : "MISSED");
        }
        out.println();
        out.println("RSS: after " + WARM_UP + " connections served and closed; idle: with the clients open, each having");
        out.println("asked once. KiB/conn: the difference per connection (median over rounds). cpu and iowait: over "
                + seconds + " idle s;");
        out.println("iowait is system-wide (/proc/stat), so other processes' disk waits count too.");
    }

    private static double kib(Sample[] runs) {
        double[] perConnection = new double[runs.length];
        for (int r = 0; r < runs.length; r++) {
            perConnection[r] = runs[r].bytesPerConnection() / 1024;
        }
        return median(perConnection);
    }

    private static double[] longs(Sample[] runs, java.util.function.ToLongFunction<Sample> value) {
        double[] values = new double[runs.length];
        for (int r = 0; r < runs.length; r++) {
            values[r] = value.applyAsLong(runs[r]);
        }
        return values;
    }

    private static String mib(double bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / (1 << 20));
    }
}
