package io.uring4j.runtime;

import io.uring4j.testkit.ChildJvm;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a runtime's start costs a process (a short program's, a server's first connection's), in a child JVM with
 * {@code -verbose:class}: with nothing to report it starts none of the platform's logging (its {@code LogManager}
 * reads its configuration, a tenth of the start); and it links three native stubs (the io_uring system calls, libc's
 * integer calls, pthread_self), each some milliseconds, the others waiting for their first use.
 */
class RuntimeStartTest {
    @Test
    void aRuntimeWithNothingToReportStartsNoLoggingAndLinksThreeStubs() throws Exception {
        String out = ChildJvm.output(QuietProbe.class, "-verbose:class");
        assertThat(out).contains("nop: 7")
                .doesNotContain("java.util.logging.LogManager")
                .doesNotContain("jdk.internal.logger.");
        assertThat(out.lines().filter(l -> l.contains("jdk.internal.foreign.abi.DowncallStub/")))
                .as("the native stubs linked").hasSize(3);
    }

    /** A child JVM's program: a runtime built, used and closed. */
    public static final class QuietProbe {
        public static void main(String[] args) throws Exception {
            try (Uring uring = Uring.builder().loops(2).build()) {
                System.out.println("nop: " + uring.loop().submitAsync(Op.nop(7)).get(20, TimeUnit.SECONDS));
            }
        }
    }
}
