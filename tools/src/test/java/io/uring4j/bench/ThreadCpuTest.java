package io.uring4j.bench;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static io.uring4j.bench.ThreadCpu.Group.APP;
import static io.uring4j.bench.ThreadCpu.Group.JIT;
import static io.uring4j.bench.ThreadCpu.Group.JVM;
import static io.uring4j.bench.ThreadCpu.Group.URING4J;
import static org.assertj.core.api.Assertions.assertThat;

/** A server's CPU time by thread: who a thread works for, and what each group spent between two looks. */
class ThreadCpuTest {

    @Test
    void threadsAreGroupedByTheirNames() {
        assertThat(ThreadCpu.Group.of("uring4j-send-fl")).isEqualTo(URING4J);
        assertThat(ThreadCpu.Group.of("uring4j-loop-0")).isEqualTo(URING4J);
        assertThat(ThreadCpu.Group.of("C2 CompilerThre")).isEqualTo(JIT);
        assertThat(ThreadCpu.Group.of("C1 CompilerThre")).isEqualTo(JIT);
        assertThat(ThreadCpu.Group.of("GC Thread#0")).isEqualTo(JVM);
        assertThat(ThreadCpu.Group.of("G1 Refine#0")).isEqualTo(JVM);
        assertThat(ThreadCpu.Group.of("VM Thread")).isEqualTo(JVM);
        assertThat(ThreadCpu.Group.of("qtp1860513229-1")).isEqualTo(APP);
        assertThat(ThreadCpu.Group.of("multiThreadIoEv")).isEqualTo(APP);
    }

    /** A thread named as uring4j's, started and working between the looks: all its time is counted as uring4j's. */
    @Test
    void aThreadsWorkBetweenTwoLooksIsCountedInItsGroup() throws Exception {
        long pid = ProcessHandle.current().pid();
        ThreadCpu before = ThreadCpu.of(pid);
        CountDownLatch worked = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread worker = Thread.ofPlatform().name("uring4j-test-work").start(() -> {
            long x = 0;
            for (int i = 0; i < 50_000_000; i++) {
                x += i ^ (x >>> 3);
            }
            assertThat(x).isNotZero();
            worked.countDown();
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            worked.await();
            long workerNanos = ManagementFactory.getThreadMXBean().getThreadCpuTime(worker.threadId());
            Map<ThreadCpu.Group, Long> spent = ThreadCpu.of(pid).since(before);
            assertThat(spent).containsOnlyKeys(ThreadCpu.Group.values());
            assertThat(workerNanos).isPositive();
            assertThat(spent.get(URING4J)).isGreaterThanOrEqualTo(workerNanos);
            assertThat(spent.values()).allMatch(nanos -> nanos >= 0);
        } finally {
            end.countDown();
            worker.join();
        }
    }
}
