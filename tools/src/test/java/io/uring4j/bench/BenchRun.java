package io.uring4j.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** One in-process {@code ./uring4j bench} run: its exit status, what it printed, and its JSON summary. */
record BenchRun(int status, String out, String err) {
    static BenchRun of(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Bench.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new BenchRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A run the bench refuses as a usage error (exit status 2): what it printed on standard error. */
    static String refused(String... args) {
        BenchRun run = of(args);
        assertThat(run.status()).as("exit status of bench %s; its standard error: %s", String.join(" ", args),
                run.err()).isEqualTo(2);
        return run.err();
    }

    Map<String, String> json() {
        return Child.parseJson(out);
    }
}
