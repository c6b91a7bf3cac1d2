package io.uring4j.runtime;

import io.uring4j.testkit.ChildJvm;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Once the process is ending, an idle loop comes back from the kernel by itself, again and again, so that HotSpot's
 * last safepoint does not wait 300 ms for it; and it still serves a shutdown hook's requests. Checked in a child
 * JVM, whose own shutdown hook watches the loop, submitting nothing first: without the bounded sleeps, or without
 * the wake-up that makes a loop asleep already take them up, the loop never enters the kernel again and the hook
 * gives up after 20 s.
 */
class VmExitTest {
    @Test
    void anIdleLoopKeepsComingBackFromTheKernelOnceTheProcessEnds() throws Exception {
        Process child = ChildJvm.start(EndingProbe.class);
        String out = new String(child.getInputStream().readAllBytes());
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(out).isZero();
        assertThat(out).contains("nop in a hook: 7", "the idle loop came back from the kernel by itself");
    }

    /** A child JVM's program: a runtime left open, and a hook that uses it and watches its loop. */
    public static final class EndingProbe {
        public static void main(String[] args) throws Exception {
            Uring uring = Uring.builder().loops(1).build();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> watch(uring)));
        }

        private static void watch(Uring uring) {
            try {
                long enters = uring.loop().stats().enters();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (uring.loop().stats().enters() < enters + 3 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                System.out.println(uring.loop().stats().enters() >= enters + 3
                        ? "the idle loop came back from the kernel by itself" : "the idle loop stayed in the kernel");
                System.out.println("nop in a hook: " + uring.loop().submitAsync(Op.nop(7)).get(20, TimeUnit.SECONDS));
            } catch (Exception e) {
                e.printStackTrace(System.out);
            }
        }
    }
}
