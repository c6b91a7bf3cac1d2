package io.uring4j.runtime;

import io.uring4j.testkit.ChildJvm;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Once the process is ending, an idle loop waits parked in Java, not in the kernel, so that HotSpot's last safepoint
 * does not wait for it (up to 300 ms, in steps of 10); and it still serves a shutdown hook's requests. Checked in a
 * child JVM, whose own shutdown hook watches the loop, submitting nothing first: without the parked waits, or
 * without the wake-up that makes a loop asleep already take them up, the loop stays in the kernel and the hook gives
 * up after 20 s.
 */
class VmExitTest {
    @Test
    void anIdleLoopWaitsParkedOnceTheProcessEndsAndServesTheHooks() throws Exception {
        String out = ChildJvm.output(EndingProbe.class);
        assertThat(out).contains("the idle loop waits parked", "nop in a hook: 7");
    }

    /** A child JVM's program: a runtime left open, and a hook that uses it and watches its loop. */
    public static final class EndingProbe {
        public static void main(String[] args) throws Exception {
            Uring uring = Uring.builder().loops(1).build();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> watch(uring)));
        }

        private static void watch(Uring uring) {
            try {
                Thread loop = uring.loop().thread();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!parked(loop) && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                System.out.println(parked(loop) ? "the idle loop waits parked" : "the idle loop stayed in the kernel");
                System.out.println("nop in a hook: " + uring.loop().submitAsync(Op.nop(7)).get(20, TimeUnit.SECONDS));
            } catch (Exception e) {
                e.printStackTrace(System.out);
            }
        }

        /** A thread in native code shows as RUNNABLE; a parked one as TIMED_WAITING, in LockSupport. */
        private static boolean parked(Thread loop) {
            StackTraceElement[] stack = loop.getStackTrace();
            return loop.getState() == Thread.State.TIMED_WAITING && java.util.Arrays.stream(stack)
                    .anyMatch(f -> f.getClassName().equals(LockSupport.class.getName()));
        }
    }
}
