package io.uring4j.doctor;

import io.uring4j.ring.Engine;
import io.uring4j.sys.Errno;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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

    /** A kernel whose io_uring_setup fails with {@code errno}, as under seccomp or io_uring_disabled. */
    private static Engine refusing(int errno) {
        return new Engine() {
            @Override
            public String name() {
                return "kernel";
            }

            @Override
            public int setup(int entries, MemorySegment params) {
                return -errno;
            }

            @Override
            public MemorySegment map(int ringFd, long offset, long size, Arena arena) {
                throw new AssertionError();
            }

            @Override
            public int enter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
                throw new AssertionError();
            }

            @Override
            public int register(int ringFd, int opcode, long arg, int nrArgs) {
                throw new AssertionError();
            }

            @Override
            public int close(int ringFd) {
                throw new AssertionError();
            }
        };
    }

    @Test
    void thisKernelIsUsableAndAutoKeepsIt() {
        Report r = doctor(Engine.kernel());
        assertThat(r.status()).as(r.text()).isZero();
        assertThat(r.text()).contains("io_uring_setup:", "ok (engine: kernel", "engine (auto):", "kernel: io_uring_setup is allowed",
                "io_uring is usable.");
    }

    @Test
    void aSeccompRefusalNamesThePortableEngineAndTheFix() {
        Report r = doctor(refusing(Errno.EPERM));
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.text()).contains("FAILED", "EPERM", "portable, because", "seccomp", "portable opcodes:",
                "-During4j.engine=auto");
    }

    @Test
    void anErrorThePortableEngineDoesNotRemoveSaysSo() {
        Report r = doctor(refusing(Errno.EINVAL));
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.text()).contains("none: EINVAL", "io_uring is not usable here.");
    }
}
