package io.uring4j.bench;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The benchmark's options: fio's t/io_uring options with their meaning and defaults (except {@code -p}, which
 * defaults to 0 here), plus the workloads of the C reference ({@code -L}, {@code -A}, {@code -D}) and this
 * tool's own ({@code --api}, {@code --json}, {@code --size}, ...). {@link #normalize()} applies the same
 * post-processing as {@code bench/c/uring4j_ref.c}, so both programs run the same workload for the same
 * arguments.
 */
final class BenchOptions {
    /** How the benchmark drives io_uring. Later layers (runtime, files) add their values here. */
    enum Api {
        /** The ring core directly: {@code sq().next().prepXxx()}, {@code submitAndWait}, {@code cq().drain}. */
        raw,
        /** The runtime's callbacks on one event loop: handlers resubmit their own op. */
        loop,
        /** The runtime's CompletableFutures: each completion submits the next request. */
        future,
        /** The runtime's blocking calls: depth virtual threads, one request in flight each. */
        vthread,
        /** uring4j's FileChannel: depth virtual threads, each doing blocking positional reads. */
        filechannel,
        /** The JDK's FileChannel, the same way. */
        jdk_filechannel,
        /** uring4j's AsynchronousFileChannel: depth reads in flight, each handler issuing the next. */
        async_filechannel,
        /** The JDK's AsynchronousFileChannel, the same way. */
        jdk_async;

        /** As written on the command line: {@code jdk-filechannel}. */
        @Override
        public String toString() {
            return name().replace('_', '-');
        }
    }

    /** Accepts {@code jdk-filechannel} and {@code jdk_filechannel}. */
    static final class ApiConverter implements picocli.CommandLine.ITypeConverter<Api> {
        @Override
        public Api convert(String value) {
            try {
                return Api.valueOf(value.trim().replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException("unknown --api " + value + ": one of "
                        + java.util.Arrays.toString(Api.values()));
            }
        }
    }

    /** The {@code --api} values for the help text. */
    static final class ApiCandidates extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        ApiCandidates() {
            for (Api api : Api.values()) {
                add(api.toString());
            }
        }
    }

    @Option(names = "--spin-us", paramLabel = "MICROS",
            description = "runtime APIs: how long an idle event loop spins before blocking (default: 0)")
    int spinMicros = 0;

    @Option(names = "-d", paramLabel = "DEPTH", description = "queue depth (default: 128)")
    int depth = 128;

    @Option(names = "-s", paramLabel = "N", description = "submit batch (default: 32)")
    int submitBatch = 32;

    @Option(names = "-c", paramLabel = "N", description = "complete batch: min_complete of a wait (default: 32)")
    int completeBatch = 32;

    @Option(names = "-b", paramLabel = "BYTES", converter = BlockSizeConverter.class,
            description = "block size: 4096, 64K, 1M (default: 4096)")
    int blockSize = 4096;

    @Option(names = "-p", paramLabel = "0|1", description = "polled I/O, IORING_SETUP_IOPOLL (default: 0; t/io_uring's is 1)")
    int polled = 0;

    @Option(names = "-B", paramLabel = "0|1", description = "fixed (registered) buffers, READ_FIXED (default: 1)")
    int fixedBuffers = 1;

    @Option(names = "-F", paramLabel = "0|1", description = "registered files, IOSQE_FIXED_FILE (default: 1)")
    int registeredFiles = 1;

    @Option(names = "-n", paramLabel = "THREADS", description = "submitter threads, one ring each (default: 1)")
    int threads = 1;

    @Option(names = "-N", paramLabel = "0|1", description = "nop mode: IORING_OP_NOP, no file (default: 0)")
    int nop = 0;

    @Option(names = "-O", paramLabel = "0|1", description = "O_DIRECT; -O0 reads through the page cache (default: 1)")
    int direct = 1;

    @Option(names = "-r", paramLabel = "SECONDS",
            description = "runtime (default: until Ctrl-C; 2 per round with --compare-c)")
    Integer runtime;

    @Option(names = "-R", paramLabel = "0|1", description = "random offsets; -R0 is sequential (default: 1)")
    int random = 1;

    @Option(names = "-X", paramLabel = "0|1", description = "register the ring fd, ENTER_REGISTERED_RING (default: 1)")
    int registeredRing = 1;

    @Option(names = "-t", paramLabel = "0|1", description = "latency percentiles, HdrHistogram (default: 0)")
    int latency = 0;

    @Option(names = "-L", paramLabel = "N",
            description = "chains of N linked NOPs (IOSQE_IO_LINK), one chain per submit (default: 0 = off)")
    int link = 0;

    @Option(names = "-A", paramLabel = "0|1", description = "IOSQE_ASYNC on every SQE: the io-wq path (default: 0)")
    int async = 0;

    @Option(names = "-D", paramLabel = "0|1",
            description = "SINGLE_ISSUER|DEFER_TASKRUN, dropped if the kernel refuses (default: 1). With -A1 each"
                    + " io-wq completion waits for this thread's next enter: -L chains run several times slower"
                    + " (docs/performance.md)")
    int defer = 1;

    @Option(names = "--api", paramLabel = "API", converter = ApiConverter.class,
            completionCandidates = ApiCandidates.class, description = "what drives io_uring: ${COMPLETION-CANDIDATES} (default: raw)")
    Api api = Api.raw;

    /** The kernel side under every ring of the run. */
    enum EngineName { kernel, portable, auto }

    @Option(names = "--engine", paramLabel = "ENGINE", description = "the kernel side: ${COMPLETION-CANDIDATES}"
            + " (default: the uring4j.engine property, else kernel); the comparisons pass it to their Java runs")
    EngineName engine;

    @Option(names = "--json", description = "print a JSON summary as the last line")
    boolean json;

    @Option(names = "--size", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "size of the temporary file for read mode without FILE, e.g. 256M, 1G (default: 1G)")
    long size = 1L << 30;

    @Option(names = "--write-data",
            description = "fill the temporary file with data, so that O_DIRECT reads reach the device")
    boolean writeData;

    @Option(names = "--write", description = "channel APIs: positional writes of -b bytes instead of reads, into the"
            + " temporary file only (never a FILE); with --compare-jdk: the small-write comparisons")
    boolean write;

    @Option(names = "--write-file", paramLabel = "FILE", description = "with --write: write into FILE, an existing"
            + " regular file, at offsets within its size (its data is overwritten), instead of a temporary file")
    Path writeFile;

    @Option(names = "--force", description = "with --write on a FileChannel: force(false) (fdatasync) after each write")
    boolean force;

    @Option(names = "--platform", description = "FileChannel APIs: the -d readers or writers are platform threads,"
            + " not virtual ones")
    boolean platform;

    @Option(names = "--warmup", paramLabel = "SECONDS",
            description = "unmeasured run before the measurement, to let the JIT compile (default: 1)")
    double warmup = 1;

    @Option(names = "--compare-c", description = "run the C reference and Java alternately and print the Java/C ratios"
            + " (without workload options: the five suite workloads)")
    boolean compareC;

    @Option(names = "--compare-jdk", description = "uring4j's FileChannel and futures against the JDK's FileChannel and"
            + " AsynchronousFileChannel, alternately, O_DIRECT and buffered (depth -d, default 64); with --write:"
            + " 8 B, 512 B and 4 KiB writes, and write+force, from a platform thread")
    boolean compareJdk;

    @Option(names = "--matrix", description = "with --compare-jdk: every cell, ours over the JDK's in this JVM —"
            + " FileChannel from 1, 8, 64 platform or virtual threads, AsynchronousFileChannel 1, 8, 64 in flight,"
            + " O_DIRECT and cached, 4K and 128K, read, write, write+force — with each read cell over the C ceiling,"
            + " and the Files bulk rows; -r seconds per side and round (default 1), --rounds (default 3),"
            + " --warmup (default 0.2)")
    boolean matrix;

    @Option(names = "--fork", description = "with --matrix: each side of a cell or bulk row runs in a JVM of its own"
            + " (warmed up for at least 2 s there, with --bulk for a bulk row), as an application under the flag runs"
            + " only uring4j's files")
    boolean fork;

    @Option(names = "--bulk", paramLabel = "ROW", description = "one of the matrix's bulk rows by its name, e.g."
            + " 'bulk VT x8 inputStream 8K': on uring4j's paths with --api filechannel, on the JDK's with --api"
            + " jdk-filechannel, for -r seconds (default 1) after --warmup; what --fork runs for each side of a row")
    String bulk;

    @Option(names = "--cells", paramLabel = "REGEX",
            description = "with --matrix: only the cells and rows whose names this finds, e.g. 'FC VT x64 .* read'")
    String cells;

    @Option(names = "--compare-portable", description = "the portable engine's in-place links and single waiter against"
            + " re-queued links and a condition variable, alternately")
    boolean comparePortable;

    @Option(names = "--app", paramLabel = "NAME", description = "an application nobody here wrote on the JDK's files"
            + " and, unmodified, on uring4j's through -Djava.nio.file.spi.DefaultFileSystemProvider, alternately, phase"
            + " by phase: h2 (JDBC: insert, point queries, updates, restart), mvstore (H2's MVStore as a write-ahead"
            + " log), lucene (a search index: index, queries, updates, merge, re-open), startup (a short program's"
            + " few file calls, timed start to exit)")
    String app;

    @Option(names = "--h2", description = "--app h2")
    boolean h2;

    @Option(names = "--h2-rows", paramLabel = "N", description = "rows for --app h2 (default: 200000)")
    int h2Rows = 200_000;

    @Option(names = "--mvstore", description = "--app mvstore")
    boolean mvstore;

    @Option(names = "--mvstore-ops", paramLabel = "N",
            description = "operations per --app mvstore phase (default: 500000)")
    int mvstoreOps = 500_000;

    @Option(names = "--lucene-docs", paramLabel = "N", description = "documents for --app lucene (default: 30000)")
    int luceneDocs = 30_000;

    @Option(names = "--rounds", paramLabel = "N",
            description = "rounds per program with --compare-c/-jdk, --app (default: 7)")
    int rounds = 7;

    @Option(names = "--suite", description = "the suite of five workloads (what no arguments run)")
    boolean suite;

    @Option(names = "--jmh", description = "run the JMH microbenchmarks; every later argument goes to JMH"
            + " (e.g. --jmh -prof gc HotPath)")
    boolean jmh;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
    boolean help;

    @Parameters(paramLabel = "FILE", arity = "0..*",
            description = "files or block devices to read (read mode); without one, a temporary file")
    List<Path> files = new ArrayList<>();

    /** The workload options the C reference shares, as the caller gave them. */
    static final List<String> WORKLOAD_OPTIONS =
            List.of("-d", "-s", "-c", "-b", "-p", "-B", "-F", "-N", "-O", "-R", "-X", "-t", "-L", "-A", "-D");

    /** The application {@code --app} names, {@code --h2} and {@code --mvstore} being short for two; else null. */
    String application() {
        return app != null ? app : h2 ? "h2" : mvstore ? "mvstore" : null;
    }

    /** {@code --app}'s check: a known name, and one application at a time. */
    private String applicationError() {
        int given = (app != null ? 1 : 0) + (h2 ? 1 : 0) + (mvstore ? 1 : 0);
        if (given > 1) {
            return "--app, --h2 and --mvstore name one application together; ";
        }
        return app == null || APPS.contains(app) ? "" : "--app must be one of " + String.join(", ", APPS) + "; ";
    }

    /** The names {@code --app} takes. */
    static final List<String> APPS = List.of("h2", "mvstore", "lucene", "startup");

    /** Checks ranges as the C reference does; returns an error message, or null when all is well. */
    String validate() {
        String bad = range("-d", depth, 1, 32768) + range("-s", submitBatch, 1, 32768)
                + range("-c", completeBatch, 1, 32768) + range("-b", blockSize, 1, 1 << 30)
                + range("-n", threads, 1, 1024) + range("-L", link, 0, 32768) + range("--rounds", rounds, 1, 1000)
                + range("--h2-rows", h2Rows, 1, 100_000_000) + range("--mvstore-ops", mvstoreOps, 1, 100_000_000)
                + range("--lucene-docs", luceneDocs, 1, 100_000_000) + applicationError()
                + flag("-p", polled) + flag("-B", fixedBuffers) + flag("-F", registeredFiles) + flag("-N", nop)
                + flag("-O", direct) + flag("-R", random) + flag("-X", registeredRing) + flag("-t", latency)
                + flag("-A", async) + flag("-D", defer);
        if (runtime != null && (runtime < 0 || runtime > 86400)) {
            bad += "-r must be 0..86400 seconds; ";
        }
        if (!(warmup >= 0 && warmup <= 600)) {     // NaN too
            bad += "--warmup must be 0..600 seconds; ";
        }
        if (size < 1 << 20) {
            bad += "--size must be at least 1M; ";
        }
        if (link == 0 && nop == 0) {
            bad += buffers();
        }
        bad += channelModes();
        return bad.isEmpty() ? null : bad.substring(0, bad.length() - 2);
    }

    /**
     * Read mode's buffers, -b × -d per thread, against what the kernel and the machine allow — checked here
     * because allocating them takes long (seconds for gigabytes) before a refusal would come.
     */
    private String buffers() {
        long perThread = (long) blockSize * depth;
        boolean registered = fixedBuffers == 1 && api.compareTo(Api.vthread) <= 0;     // raw and the runtime's
        if (registered && perThread > 1L << 30) {
            return "-b × -d (" + TempFile.human(perThread) + ") must be at most 1 GiB with -B1: it is one registered"
                    + " buffer, and REGISTER_BUFFERS refuses more with EFAULT (lower -b or -d, or -B0); ";
        }
        long memory = ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        if (perThread * threads > memory) {
            return String.format("-b × -d × -n (%s) must fit in this machine's memory (%.1f GiB); ",
                    TempFile.human(perThread * threads), memory / (double) (1L << 30));
        }
        return "";
    }

    /** --write, --force and --platform: which APIs take them (a comparison passes them on to its own runs). */
    private String channelModes() {
        boolean channel = api.compareTo(Api.filechannel) >= 0;
        boolean blocking = api == Api.filechannel || api == Api.jdk_filechannel;
        String bad = "";
        if (compareJdk) {
            return (force || platform ? "--compare-jdk takes --write alone: its comparisons choose the rest; " : "")
                    + (fork && !matrix ? "--fork needs --matrix; " : "")
                    + (bulk != null ? "--bulk runs one side of a row: leave out --compare-jdk; " : "");
        }
        if (matrix || cells != null || fork) {
            bad += "--matrix, --cells and --fork need --compare-jdk; ";
        }
        if (bulk != null && (!blocking || write || force || platform
                || BulkOps.row(bulk).isEmpty())) {
            bad += "--bulk takes a bulk row's name as --matrix prints it, and --api filechannel or jdk-filechannel"
                    + " alone; ";
        }
        if (write && (!channel || nop == 1 || link > 0)) {
            bad += "--write needs a channel API (--api filechannel, jdk-filechannel, async-filechannel, jdk-async); ";
        }
        if (write && !files.isEmpty()) {
            bad += "--write writes into the temporary file or --write-file only: leave out FILE; ";
        }
        if (writeFile != null && (!write || !java.nio.file.Files.isRegularFile(writeFile))) {
            bad += "--write-file needs --write and an existing regular file; ";
        }
        if (force && !(write && blocking)) {
            bad += "--force needs --write and --api filechannel or jdk-filechannel; ";
        }
        if (platform && !blocking) {
            bad += "--platform needs --api filechannel or jdk-filechannel; ";
        }
        return bad;
    }

    private static String range(String name, int value, int lo, int hi) {
        return value < lo || value > hi ? name + " must be " + lo + ".." + hi + "; " : "";
    }

    private static String flag(String name, int value) {
        return range(name, value, 0, 1);
    }

    /** The C reference's post-processing: link mode is nop mode with depth = batches = N; batches ≤ depth. */
    BenchOptions normalize() {
        if (link > 0) {
            nop = 1;
            depth = submitBatch = completeBatch = link;
        }
        submitBatch = Math.min(submitBatch, depth);
        completeBatch = Math.min(completeBatch, depth);
        if (nop == 1) {
            polled = fixedBuffers = registeredFiles = 0;
        }
        return this;
    }

    boolean isNop() {
        return nop == 1;
    }

    String mode() {
        return link > 0 ? "link" : isNop() ? "nop" : write ? "write" : "read";
    }

    /** A short workload name: {@code nop d128 s32 c32}, {@code link L100 async}, {@code read bs4096 d128 B1 F1 O1}. */
    String name() {
        String name = switch (mode()) {
            case "link" -> "link L" + link;
            case "nop" -> "nop d" + depth + " s" + submitBatch + " c" + completeBatch;
            default -> mode() + (force ? "+force" : "") + " bs" + blockSize + " d" + depth + " s" + submitBatch
                    + " c" + completeBatch + " B" + fixedBuffers + " F" + registeredFiles + " O" + direct + (random == 0 ? " seq" : "")
                    + (polled == 1 ? " p1" : "") + (platform ? " platform" : "");
        };
        return name + (async == 1 ? " async" : "") + (defer == 0 ? " D0" : "") + (registeredRing == 0 ? " X0" : "")
                + (latency == 1 ? " t1" : "");
    }

    /** Every shared workload option with its value: the argument list both programs get in a comparison. */
    List<String> workloadArgs() {
        List<String> args = new ArrayList<>(List.of(
                "-d" + depth, "-s" + submitBatch, "-c" + completeBatch, "-b" + blockSize, "-p" + polled,
                "-B" + fixedBuffers, "-F" + registeredFiles, "-N" + nop, "-O" + direct, "-R" + random,
                "-X" + registeredRing, "-t" + latency, "-L" + link, "-A" + async, "-D" + defer));
        files.forEach(f -> args.add(f.toString()));
        return args;
    }

    /** {@code -b}: a size as {@link SizeConverter} reads it, at most an int (the range check says more). */
    static final class BlockSizeConverter implements picocli.CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            long bytes = new SizeConverter().convert(value);
            if (bytes > Integer.MAX_VALUE) {
                throw new picocli.CommandLine.TypeConversionException("block size too large: " + value);
            }
            return (int) bytes;
        }
    }

    /** {@code 4096}, {@code 64K}, {@code 256M}, {@code 1G}: bytes. */
    static final class SizeConverter implements picocli.CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            String v = value.trim().toUpperCase(java.util.Locale.ROOT);
            int shift = switch (v.isEmpty() ? ' ' : v.charAt(v.length() - 1)) {
                case 'K' -> 10;
                case 'M' -> 20;
                case 'G' -> 30;
                case 'T' -> 40;
                default -> 0;
            };
            String digits = shift == 0 ? v : v.substring(0, v.length() - 1);
            try {
                return Math.multiplyExact(Long.parseLong(digits), 1L << shift);
            } catch (NumberFormatException | ArithmeticException e) {
                throw new picocli.CommandLine.TypeConversionException("not a size: " + value);
            }
        }
    }
}
