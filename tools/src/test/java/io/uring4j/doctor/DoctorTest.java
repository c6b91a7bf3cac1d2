package io.uring4j.doctor;

import io.uring4j.ring.Engine;
import io.uring4j.ring.Probe;
import io.uring4j.ring.Query;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.Errno;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ./uring4j doctor}: what it says on this kernel, and which engine it names when io_uring is refused. */
class DoctorTest {
    record Report(int status, String text) {
    }

    private static Report doctor(Engine kernel) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = new Doctor(new PrintStream(out, true, StandardCharsets.UTF_8), kernel).run();
        return new Report(status, out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void thisKernelIsUsableAndAutoKeepsIt() {
        Report r = doctor(Engine.kernel());
        assertThat(r.status()).as(r.text()).isZero();
        assertThat(r.text()).contains("io_uring_setup:", "ok (engine: kernel", "engine (auto):", "kernel: io_uring_setup is allowed",
                "system call:", " ns (getppid)", "cached reads:", "on virtual threads", "io_uring is usable.");
    }

    @Test
    void recentCapabilitiesAreListedWithTheKernelThatBroughtThem() {
        Report r = doctor(Engine.kernel());
        assertThat(r.text()).contains("recent capabilities:", "IORING_OP_PIPE", "6.16", "IORING_REGISTER_MEM_REGION",
                "IORING_SETUP_CQE_MIXED", "IORING_ENTER_NO_IOWAIT", "IORING_FEAT_NO_IOWAIT");
        try {
            Query query = Query.ofKernel();
            // This kernel answers the query: every row says yes or no, and agrees with it.
            assertThat(r.text()).doesNotContain("unknown (no REGISTER_QUERY)");
            assertThat(row(r, "IORING_REGISTER_QUERY")).endsWith("yes");
            assertThat(row(r, "IORING_SETUP_SQ_REWIND"))
                    .endsWith(query.acceptsSetupFlags(SetupFlags.SQ_REWIND) ? "yes" : "no");
        } catch (ErrnoException e) {
            assertThat(row(r, "IORING_REGISTER_QUERY")).endsWith("no");
            assertThat(row(r, "IORING_REGISTER_CLOCK")).endsWith("unknown (no REGISTER_QUERY)");
        }
        assertThat(row(r, "IORING_OP_PIPE")).endsWith(probeSays(Opcode.PIPE) ? "yes" : "no");
    }

    private static String row(Report r, String name) {
        return r.text().lines().filter(l -> l.trim().startsWith(name + " ")).findFirst().orElseThrow().trim();
    }

    private static boolean probeSays(byte opcode) {
        try {
            return Probe.ofKernel().isSupported(opcode);
        } catch (ErrnoException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aSeccompRefusalNamesThePortableEngineAndTheFix() {
        Report r = doctor(Engine.refusing(Errno.EPERM));
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.text()).contains("FAILED", "EPERM", "portable, because", "seccomp", "portable opcodes:",
                "-During4j.engine=auto");
    }

    @Test
    void anArgumentIsRefusedWithStatus2BeforeAnyProbe() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Doctor.command(new String[] {"--bogus"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("uring4j doctor: unknown argument '--bogus':"
                + " doctor takes none (--help)" + System.lineSeparator());
        assertThat(out.size()).isZero();
    }

    @Test
    void anErrorThePortableEngineDoesNotRemoveSaysSo() {
        Report r = doctor(Engine.refusing(Errno.EINVAL));
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.text()).contains("none: EINVAL", "io_uring is not usable here.");
    }
}
