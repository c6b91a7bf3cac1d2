package io.uring4j.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ./uring4j bench}: option handling, the JSON summary, and the raw driver's zero allocation per op. */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class BenchTest {
    @Test
    void unknownOptionPrintsUsageAndExitsWith2() {
        assertThat(BenchRun.refused("--no-such-option")).contains("Usage: uring4j bench");
    }

    @Test
    void malformedNumberExitsWith2() {
        BenchRun.refused("-d", "many");
    }

    @Test
    void outOfRangeValuesExitWith2AndSayWhich() {
        assertThat(BenchRun.refused("-N2", "-d0")).contains("-N must be 0..1").contains("-d must be 1..32768");
    }

    @Test
    void aWarmUpThatIsNotANumberIsRefused() {
        assertThat(BenchRun.refused("-N1", "-r1", "--warmup", "NaN")).startsWith("--warmup must be 0..600 seconds");
    }

    /** The kernel takes at most 1 GiB per registered buffer: refused at once, not after allocating 8 GiB. */
    @Test
    void buffersBeyondTheKernelsOrTheMachinesLimitsAreRefusedBeforeAnyWork() {
        assertThat(BenchRun.refused("-b", "1G", "-d", "8", "-r1"))
                .startsWith("-b × -d (8 GiB) must be at most 1 GiB with -B1")
                .contains("EFAULT");
        assertThat(BenchRun.refused("-b", "1073741824", "-d", "32768", "-B0", "-r1"))
                .startsWith("-b × -d × -n (32768 GiB) must fit in this machine's memory");
    }

    /** O_DIRECT reads must be aligned to the file's logical block size; a preallocated file's reads would not say so. */
    @Test
    void aBlockSizeThatODirectCannotReadIsRefused(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("data"), new byte[1 << 20]);
        int align = DirectAlignment.of(file);
        org.junit.jupiter.api.Assumptions.assumeTrue(align > 1, "no O_DIRECT alignment reported for " + dir);
        assertThat(BenchRun.refused("-O1", "-b", "3", "-r1", "--warmup", "0", file.toString()))
                .startsWith("-b 3 is not a multiple of " + align + ", the O_DIRECT alignment of " + file);
        assertThat(BenchRun.refused("-O1", "-b", "3", "-r1", "--warmup", "0", "--size", "4M"))
                .startsWith("-b 3 is not a multiple of");
    }

    @Test
    void aMissingFileOrADirectoryIsNamedWithItsErrno(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing");
        BenchRun run = BenchRun.of("-r1", "--warmup", "0", missing.toString());
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("uring4j bench: open " + missing + ": ENOENT (No such file or directory)\n");
        BenchRun directory = BenchRun.of("-O0", "-r1", "--warmup", "0", dir.toString());
        assertThat(directory.status()).isEqualTo(1);
        assertThat(directory.err()).isEqualTo("uring4j bench: read " + dir + ": EISDIR (Is a directory)\n");
    }

    @Test
    void anUnreadableFileIsNamedWithItsErrno(@TempDir Path dir) throws Exception {
        Path unreadable = Files.write(dir.resolve("unreadable"), new byte[8192]);
        Files.setPosixFilePermissions(unreadable, java.util.Set.of());
        org.junit.jupiter.api.Assumptions.assumeFalse(Files.isReadable(unreadable), "root reads any file");
        BenchRun denied = BenchRun.of("-O0", "-r1", "--warmup", "0", unreadable.toString());
        assertThat(denied.status()).isEqualTo(1);
        assertThat(denied.err()).isEqualTo("uring4j bench: open " + unreadable + ": EACCES (Permission denied)\n");
    }

    @Test
    void oneSecondNopRunEndsWithJsonCarryingEveryRequiredKey() {
        BenchRun run = BenchRun.of("-N1", "-r1", "--warmup", "0.2", "--json");

        assertThat(run.status()).as(run.err()).isEqualTo(0);
        String[] lines = run.out().strip().split("\n");
        assertThat(lines[lines.length - 1]).startsWith("{").endsWith("}");
        assertThat(run.out()).contains("Maximum IOPS=").contains("IOPS=");
        Map<String, String> json = run.json();
        assertThat(json).containsKeys("impl", "api", "mode", "depth", "submit_batch", "complete_batch", "link",
                "async", "ops", "seconds", "iops_max", "iops_avg", "ns_per_op", "ios_per_call_submit",
                "ios_per_call_reap", "syscalls", "alloc_bytes_per_op");
        assertThat(json).containsEntry("impl", "java").containsEntry("api", "raw").containsEntry("mode", "nop")
                .containsEntry("depth", "128").containsEntry("submit_batch", "32");
        assertThat(Long.parseLong(json.get("ops"))).isPositive();
        assertThat(Double.parseDouble(json.get("seconds"))).isGreaterThanOrEqualTo(1.0);
        // Every enter submits a batch of 32 in steady state: far more ops than syscalls.
        assertThat(Double.parseDouble(json.get("ios_per_call_reap"))).isGreaterThan(1.0);
    }

    @Test
    void latencyPercentilesAppearInJsonWithT1() {
        Map<String, String> json = BenchRun.of("-N1", "-d1", "-s1", "-c1", "-t1", "-r1", "--warmup", "0", "--json").json();

        assertThat(json).containsKeys("p50_ns", "p99_ns", "p999_ns");
        assertThat(Long.parseLong(json.get("p99_ns"))).isGreaterThanOrEqualTo(Long.parseLong(json.get("p50_ns")));
    }

    /** The runtime styles run the same workloads; the callback style allocates (next to) nothing per op. */
    @org.junit.jupiter.params.ParameterizedTest(name = "--api {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"loop", "future", "vthread"})
    void runtimeApisRunNopsAndReportAllocation(String api) {
        Map<String, String> json = BenchRun.of("-N1", "-d32", "-r1", "--warmup", "0.5", "--json", "--api", api).json();
        assertThat(json.get("api")).contains(api);
        assertThat(Double.parseDouble(json.get("ops"))).isPositive();
        if (api.equals("loop")) {
            assertThat(Double.parseDouble(json.get("alloc_bytes_per_op"))).isLessThan(1.0);
        }
    }

    /**
     * {@code -F1} (the default) registers the read file with the runtime's loop, as the raw driver and the C
     * reference do, and every read names its slot; {@code -F0} names the fd. A read the kernel refused (a wrong
     * slot: EBADF) would fail the run.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "--api {0} -F{1}")
    @org.junit.jupiter.params.provider.CsvSource({"future,1", "future,0", "loop,1", "vthread,1"})
    void runtimeApisReadThroughTheRegisteredFile(String api, int registered) {
        BenchRun run = BenchRun.of("-d8", "-O1", "-F" + registered, "-r1", "--warmup", "0", "--size", "4M", "--api",
                api, "--json");
        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(Long.parseLong(run.json().get("ops"))).isPositive();
        assertThat(run.out().contains("registered file")).as(run.out()).isEqualTo(registered == 1);
    }

    /** The java.nio channel drivers, ours and the JDK's, read the file with both buffered and O_DIRECT opens. */
    @org.junit.jupiter.params.ParameterizedTest(name = "--api {0} -O{1}")
    @org.junit.jupiter.params.provider.CsvSource({"filechannel,0", "jdk-filechannel,1", "async-filechannel,1",
            "jdk_async,0"})
    void channelApisReadTheFile(String api, int direct) {
        BenchRun run = BenchRun.of("-d4", "-O" + direct, "-r1", "--warmup", "0", "--size", "4M", "--json", "--api", api);
        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(run.json().get("api")).isEqualTo(api.replace('_', '-'));
        assertThat(run.json().get("engine")).isEqualTo(api.startsWith("jdk") ? "jdk" : "kernel");
        assertThat(Long.parseLong(run.json().get("ops"))).isPositive();
    }

    /** --write makes the channel drivers write -b bytes at the read offsets; --force follows each with force. */
    @org.junit.jupiter.params.ParameterizedTest(name = "--api {0} {1}")
    @org.junit.jupiter.params.provider.CsvSource({"filechannel,--force --platform -O0 -b512",
        "jdk-filechannel,--force --platform -O0 -b8", "filechannel,-O1 -b4096", "async-filechannel,-O0 -b512",
        "jdk-async,-O0 -b4096"})
    void channelApisWriteTheTemporaryFile(String api, String more) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--api", api, "--write", "-d1",
                "-r1", "--warmup", "0", "--size", "4M", "--json"));
        args.addAll(java.util.List.of(more.split(" ")));
        BenchRun run = BenchRun.of(args.toArray(String[]::new));
        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(run.json()).containsEntry("mode", "write").containsEntry("api", api);
        assertThat(Long.parseLong(run.json().get("ops"))).isPositive();
        assertThat(run.out()).contains(more.contains("--force") ? "write+force, depth=1 platform threads" : "write, ");
    }

    /** --write-file: the writes go into the file named (the matrix's forked sides write into its own file so). */
    @Test
    void writesGoIntoTheWriteFileWhenOneIsNamed(@TempDir Path dir) throws Exception {
        byte[] ones = new byte[1 << 20];
        java.util.Arrays.fill(ones, (byte) -1);
        Path file = Files.write(dir.resolve("target"), ones);
        BenchRun run = BenchRun.of("--api", "filechannel", "--write", "--write-file", file.toString(), "-d1", "-O0",
                "-r1", "--warmup", "0", "--json");
        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(Long.parseLong(run.json().get("ops"))).isPositive();
        assertThat(Files.size(file)).isEqualTo(ones.length);
        assertThat(Files.readAllBytes(file)).as("written over").isNotEqualTo(ones);
    }

    /** A write never touches a FILE of the caller's; the write options name the APIs that take them. */
    @Test
    void writeModeOptionsAreRefusedWhereTheyDoNotApply(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("keep"), new byte[8192]);
        assertThat(BenchRun.refused("--api", "filechannel", "--write", "-r1", file.toString()))
                .startsWith("--write writes into the temporary file or --write-file only: leave out FILE");
        assertThat(Files.readAllBytes(file)).isEqualTo(new byte[8192]);
        assertThat(BenchRun.refused("--api", "filechannel", "--write-file", file.toString(), "-r1"))
                .contains("--write-file needs --write and an existing regular file");
        assertThat(BenchRun.refused("--api", "filechannel", "--write", "--write-file", "/dev/null", "-r1"))
                .contains("--write-file needs --write and an existing regular file");
        assertThat(BenchRun.refused("--write", "--force", "--platform", "-r1"))
                .contains("--write needs a channel API", "--force needs --write and --api filechannel",
                        "--platform needs --api filechannel or jdk-filechannel");
        assertThat(BenchRun.refused("--api", "jdk-async", "--write", "--force", "-r1"))
                .startsWith("--force needs --write and --api filechannel or jdk-filechannel");
        assertThat(BenchRun.refused("--compare-jdk", "--write", "--force"))
                .startsWith("--compare-jdk takes --write alone");
    }

    /** --compare-jdk --write: the six small-write comparisons, each with its per-round ratios and its target. */
    @Test
    void compareJdkWritesReportsEachSizeWithItsTarget() {
        BenchRun run = BenchRun.of("--compare-jdk", "--write", "--rounds", "1", "-r1", "--warmup", "0", "--json");
        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(run.out()).contains("small positional writes from a platform thread", "write 8 platform",
                "write 512 platform", "write 4K platform", "write+force 8 platform", "write+force 4K platform");
        assertThat(run.out().lines().filter(l -> l.startsWith("write")))
                .hasSize(6).allMatch(l -> l.matches(".*>= 0\\.97 (met|MISSED)$"));
        String json = run.out().lines().filter(l -> l.startsWith("{\"side_by_side\"")).findFirst().orElseThrow();
        assertThat(json.split("\"ratio\":")).hasSize(7);
        assertThat(json.split("\"ratios\":\\[[0-9.]+]")).hasSize(7);
        assertThat(json).contains("\"target\":0.97").doesNotContain("\"ratio\":0.0000", "NaN", "Infinity");
    }

    /** Every mode runs on the portable engine too; the JSON says which engine ran. */
    @org.junit.jupiter.params.ParameterizedTest(name = "--engine portable {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"-N1 -d32", "-L10 -A1", "-d8 -O0", "--api future -d8",
        "--api filechannel -d4 -O1"})
    void portableEngineRunsEveryKindOfMode(String mode) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(mode.split(" ")));
        args.addAll(java.util.List.of("--engine", "portable", "-r1", "--warmup", "0", "--size", "4M", "--json"));
        BenchRun run = BenchRun.of(args.toArray(String[]::new));
        try {
            assertThat(run.status()).as(run.err()).isEqualTo(0);
            assertThat(run.json()).containsEntry("engine", "portable");
            assertThat(Long.parseLong(run.json().get("ops"))).isPositive();
        } finally {
            System.clearProperty("uring4j.engine");
        }
    }

    /** --compare-portable runs both sides of each design in child JVMs and reports one row per comparison. */
    @Test
    void comparePortableReportsEachDesignAgainstItsVariant() {
        BenchRun run = BenchRun.of("--compare-portable", "--rounds", "1", "-r1", "--warmup", "0", "--size", "4M", "--json");
        assertThat(run.status()).as(run.err()).isEqualTo(0);
        assertThat(run.out()).contains("links L10 -A1", "links L100 -A1", "reads QD1 -O1", "re-queued", "condvar");
        String json = run.out().lines().filter(l -> l.startsWith("{\"side_by_side\"")).findFirst().orElseThrow();
        assertThat(json.split("\"ratio\":")).hasSize(5);
        assertThat(json).doesNotContain("\"ratio\":0.0000", "NaN", "Infinity");
    }

    /** A workload given on the command line spells every option, {@code -N0 -L0} too: it still reads a file. */
    @Test
    void givenReadWorkloadReadsAFileAndNopOrLinkModesDoNot() {
        assertThat(new Workload("read", new BenchOptions().workloadArgs(), 0, "").readsFile()).isTrue();
        assertThat(new Workload("nop", java.util.List.of("-N1", "-L0"), 0, "").readsFile()).isFalse();
        assertThat(new Workload("link", java.util.List.of("-N0", "-L100"), 0, "").readsFile()).isFalse();
    }

    @Test
    void unknownApiNamesTheChoices() {
        assertThat(BenchRun.refused("--api", "mmap")).contains("unknown --api mmap").contains("jdk-filechannel");
    }

    /**
     * Two runtime drivers side by side (-n2), whose work runs on their loops: the process's bytes and CPU time
     * are counted once, not once per driver (which doubled B/op), and the CPU time is the process's (the driver
     * threads themselves only wait: it was near zero).
     */
    @Test
    void runtimeDriversSideBySideCountTheProcessOnce() {
        BenchRun one = BenchRun.of("-N1", "-r1", "--warmup", "1", "--json", "--api", "future", "-d8");
        BenchRun two = BenchRun.of("-N1", "-r1", "--warmup", "1", "--json", "--api", "future", "-d8", "-n2");
        assertThat(one.status()).as(one.err()).isZero();
        assertThat(two.status()).as(two.err()).isZero();
        double alone = Double.parseDouble(one.json().get("alloc_bytes_per_op"));
        assertThat(Double.parseDouble(two.json().get("alloc_bytes_per_op"))).isPositive().isLessThan(1.5 * alone);
        assertThat(Double.parseDouble(two.json().get("cpu_ns_per_op")))
                .isGreaterThan(0.1 * Double.parseDouble(two.json().get("ns_per_op")));
    }

    /**
     * The raw driver allocates nothing per op once compiled. Interpreted or C1 code may still allocate while
     * the JIT catches up on a loaded machine, so a run that allocated gets up to two more, in the same JVM. It runs
     * first, before the runtime styles' classes turn the shared call sites megamorphic in this JVM.
     */
    @Test
    @org.junit.jupiter.api.Order(1)
    void rawNopModeAllocatesZeroBytesPerOpAfterWarmUp() {
        String alloc = null;
        for (int attempt = 0; attempt < 3 && !"0.0000".equals(alloc); attempt++) {
            BenchRun run = BenchRun.of("-N1", "-r1", "--warmup", "1", "--json", "--api", "raw");
            assertThat(run.status()).as(run.err()).isEqualTo(0);
            alloc = run.json().get("alloc_bytes_per_op");
        }
        assertThat(alloc).isEqualTo("0.0000");
    }
}
