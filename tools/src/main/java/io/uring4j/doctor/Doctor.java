package io.uring4j.doctor;

import io.uring4j.fs.ReadBatching;
import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.IoUringBuilder;
import io.uring4j.ring.Probe;
import io.uring4j.ring.Query;
import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.SyscallCost;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * {@code ./uring4j doctor}: what this machine's io_uring can do — kernel, whether a ring can be set up (and if
 * not, why), features, opcodes, setup flags, and the limit on registered buffers. Exit status 0 when io_uring is
 * usable, 1 when it is not, 2 for an argument (it takes none but {@code --help}).
 */
public final class Doctor {
    private final PrintStream out;
    /** The kernel side probed: the kernel's io_uring (replaceable so tests can inject a refusal). */
    private final Engine kernel;

    Doctor(PrintStream out) {
        this(out, Engine.kernel());
    }

    Doctor(PrintStream out, Engine kernel) {
        this.kernel = kernel;
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(command(args, System.out, System.err));
    }

    /** The command line: {@code --help}, or no argument at all; returns the exit status. */
    static int command(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help"))) {
            out.println("Usage: uring4j doctor");
            out.println("What this machine's io_uring can do. Exit status: 0 usable, 1 not usable, 2 bad arguments.");
            return 0;
        }
        if (args.length > 0) {
            err.println("uring4j doctor: unknown argument '" + args[0] + "': doctor takes none (--help)");
            return 2;
        }
        return new Doctor(out).run();
    }

    int run() {
        out.println("uring4j doctor");
        line("kernel", read("/proc/sys/kernel/osrelease"));
        line("java", Runtime.version() + " (" + System.getProperty("java.vm.name") + ")");
        line("kernel.io_uring_disabled", read("/proc/sys/kernel/io_uring_disabled"));
        line("uring4j.engine", System.getProperty("uring4j.engine", "auto (the default)"));
        line("system call", SyscallCost.nanos() + " ns (getppid)");
        line("cached reads", (ReadBatching.cached() ? "batched through io_uring" : "a preadv2 each")
                + " on virtual threads (batched where a system call costs >= " + ReadBatching.BATCH_FROM_NANOS
                + " ns; -During4j.fs.batchedReads)");
        IoUring ring;
        try {
            ring = IoUring.builder().entries(8).engine(kernel).build();
        } catch (ErrnoException e) {
            line("io_uring_setup", "FAILED: " + e.getMessage());
            return portableInstead(e.errno());
        } catch (RuntimeException | LinkageError e) {
            line("io_uring_setup", "FAILED: " + e);
            return 1;
        }
        try (ring) {
            line("io_uring_setup", "ok (engine: " + ring.engineUsed().name() + ", setup flags "
                    + SetupFlags.toString(ring.setupFlags()) + ")");
            line("engine (auto)", "kernel: io_uring_setup is allowed here");
            line("features", "0x" + Integer.toHexString(ring.features()));
            wrap(Features.toString(ring.features()).replace('|', ' '));
            Probe probe = ring.register().probe();
            List<String> supported = probe.supportedNames();
            line("opcodes", supported.size() + " supported (last_op " + probe.lastOp() + ")");
            wrap(String.join(" ", supported));
            List<String> missing = new ArrayList<>();
            for (int op = 0; op < Opcode.KNOWN; op++) {
                if (!probe.isSupported(op)) {
                    missing.add(Opcode.name(op));
                }
            }
            if (!missing.isEmpty()) {
                line("opcodes missing", String.join(" ", missing));
            }
            setupFlags();
            recentCapabilities(ring, probe);
            registeredBuffers(ring);
        } catch (ErrnoException e) {
            line("error", e.getMessage());
            return 1;
        }
        out.println();
        out.println("io_uring is usable.");
        return 0;
    }

    /** The kernel refused io_uring: which engine {@code -During4j.engine=auto} would use instead, and why. */
    private int portableInstead(int errno) {
        String why = Engine.setupRefusal(errno);
        if (why == null) {
            line("engine (auto)", "none: " + Errno.name(errno) + " is not a refusal the portable engine removes");
            out.println();
            out.println("io_uring is not usable here.");
            return 1;
        }
        line("engine (auto)", "portable, because " + why);
        try (IoUring portable = IoUring.builder().entries(8).engine(Engine.portable()).build()) {
            List<String> ops = portable.register().probe().supportedNames();
            line("portable opcodes", ops.size() + " implemented");
            wrap(String.join(" ", ops));
        } catch (ErrnoException e) {
            line("portable engine", "FAILED: " + e.getMessage());
            return 1;
        }
        out.println();
        out.println("io_uring is refused here: uring4j runs on its portable engine with -During4j.engine=auto (or"
                + " portable).");
        return 1;
    }

    /** Tries each setup flag on its own (with the flags it requires) on a throwaway ring. */
    private void setupFlags() {
        record Trial(String name, UnaryOperator<IoUringBuilder> apply) {
        }
        List<Trial> trials = List.of(
                new Trial("IOPOLL", IoUringBuilder::iopoll),
                new Trial("SQPOLL", b -> b.sqpoll(10)),
                new Trial("SQ_AFF", b -> b.sqpoll(10).sqThreadCpu(0)),
                new Trial("CQSIZE", b -> b.cqEntries(64)),
                new Trial("CLAMP", IoUringBuilder::clamp),
                new Trial("R_DISABLED", IoUringBuilder::disabled),
                new Trial("SUBMIT_ALL", IoUringBuilder::submitAll),
                new Trial("COOP_TASKRUN", IoUringBuilder::coopTaskrun),
                new Trial("TASKRUN_FLAG", b -> b.coopTaskrun().taskrunFlag()),
                new Trial("SQE128", IoUringBuilder::sqe128),
                new Trial("CQE32", IoUringBuilder::cqe32),
                new Trial("SINGLE_ISSUER", IoUringBuilder::singleIssuer),
                new Trial("DEFER_TASKRUN", IoUringBuilder::deferTaskrun),
                new Trial("NO_MMAP", IoUringBuilder::noMmap),
                new Trial("REGISTERED_FD_ONLY", IoUringBuilder::registeredFdOnly),
                new Trial("NO_SQARRAY", IoUringBuilder::noSqArray),
                new Trial("HYBRID_IOPOLL", IoUringBuilder::hybridIopoll),
                new Trial("CQE_MIXED", IoUringBuilder::cqeMixed));
        List<String> accepted = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (Trial trial : trials) {
            try (IoUring _ = trial.apply().apply(IoUring.builder().entries(8)).build()) {
                accepted.add(trial.name());
            } catch (ErrnoException e) {
                refused.add(trial.name() + " (" + e.errnoName() + ")");
            }
        }
        try (IoUring first = IoUring.open(8); IoUring _ = IoUring.builder().entries(8).attachWq(first).build()) {
            accepted.add("ATTACH_WQ");
        } catch (ErrnoException e) {
            refused.add("ATTACH_WQ (" + e.errnoName() + ")");
        }
        line("setup flags", accepted.size() + " of " + (trials.size() + 1) + " accepted");
        wrap(String.join(" ", accepted));
        if (!refused.isEmpty()) {
            line("setup flags refused", "");
            wrap(String.join(" ", refused));
        }
    }

    /** What kernels 6.7 and later brought, offered here or not: from the probe, the features and the query. */
    private void recentCapabilities(IoUring ring, Probe probe) {
        Query query;
        try {
            query = Query.ofKernel();
        } catch (ErrnoException e) {
            query = null;       // before 6.18: register opcodes and flags can only be tried
        }
        line("recent capabilities", "kernel 6.7 and later; from the probe, the features"
                + (query != null ? " and IORING_REGISTER_QUERY" : " (no IORING_REGISTER_QUERY: before 6.18)"));
        for (RecentCapabilities.Row row : RecentCapabilities.of(ring, probe, query)) {
            out.printf("    %-32s %-5s %s%n", row.name(), row.kernel(), row.answer());
        }
    }

    /** Pinned buffers count against RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK; each is at most 1 GiB. */
    private void registeredBuffers(IoUring ring) {
        String memlock = limit("Max locked memory");
        line("RLIMIT_MEMLOCK", memlock + (isRoot() ? " (root: CAP_IPC_LOCK lifts it)" : ""));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(1 << 20, 4096);
            ring.register().buffers(buffer);
            ring.register().unregisterBuffers();
            line("registered buffers", "ok (1 MiB test buffer pinned; at most 1 GiB per buffer, 16384 buffers)");
        } catch (ErrnoException e) {
            line("registered buffers", "FAILED: " + e.getMessage());
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static String limit(String name) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (l.startsWith(name)) {
                    String[] cols = l.substring(name.length()).trim().split("\\s+");
                    return cols[0].equals("unlimited") ? "unlimited" : cols[0] + " bytes";
                }
            }
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
        return "unknown";
    }

    private static String read(String path) {
        try {
            return Files.readString(Path.of(path)).trim();
        } catch (IOException e) {
            return "unknown (" + path + " not readable)";
        }
    }

    private void line(String key, String value) {
        out.printf("  %-26s %s%n", key + ":", value);
    }

    private void wrap(String text) {
        StringBuilder row = new StringBuilder();
        for (String word : text.split(" ")) {
            if (row.length() + word.length() > 76) {
                out.println("    " + row.toString().stripTrailing());
                row.setLength(0);
            }
            row.append(word).append(' ');
        }
        if (!row.isEmpty()) {
            out.println("    " + row.toString().stripTrailing());
        }
    }
}
