package io.uring4j.ring;

import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The ring-core semantics suite and the runtime's, sockets' and files' tests again, on the portable engine: every
 * class below runs with {@code uring4j.engine=portable}, so each {@code IoUring.builder()} in it builds a portable
 * ring. Intended differences are skipped inside the tests themselves with the reason ({@code Rings.kernelOnly});
 * opcodes the engine lacks (URING_CMD, FUTEX_WAIT, ...) are skipped by probe, as on an older kernel. To run any
 * other test on the portable engine: {@code -During4j.engine=portable}.
 *
 * <p>Not in the list: ZeroAllocationTest, which measures allocation in a JVM of its own and runs each case on
 * both engines there (see core/pom.xml); EngineSelectionTest, which chooses engines itself; and the classes on
 * features the engine lacks altogether (newer opcodes: NewerOpsTest; SQPOLL, IOPOLL, NO_MMAP and ATTACH_WQ
 * setups: SetupModesTest).
 */
class PortableEngineSuiteTest {
    private static final List<Class<?>> SUITE = List.of(NopTest.class, LinkTest.class, DrainOrderTest.class,
            TimeoutTest.class, LinkTimeoutTest.class, CancelTest.class, PollCancelAllTest.class, PollTest.class,
            ReadWriteTest.class, ShortReadTest.class, FixedBufferTest.class, FixedLinkTest.class,
            FileRegisterTest.class, CqOverflowTest.class, CqReadyTest.class, SqFullTest.class, SkipCqeTest.class,
            SubmitLinkFailTest.class, SubmitReuseTest.class, EventfdTest.class, ProbeTest.class,
            OpenCloseTest.class, StatxTest.class, FsyncTest.class, WaitTimeoutTest.class,
            SocketOpsTest.class, AcceptTest.class, SendRecvTest.class, RecvMultishotTest.class, BufRingTest.class,
            DeferTaskrunTest.class, SendZcTest.class, FileOpsTest.class, IoWqTest.class,
            ProvidedBuffersTest.class, MsgRingTest.class, RegistrationTest.class, SingleIssuerTest.class,
            ApiErrorsTest.class, DirectDescriptorTest.class);
    /**
     * The runtime, the sockets and the files above the ring, unchanged, on the portable engine: the socket API,
     * the loop-style server, the drop-in channels, UDP and direct accepts; AsyncFile, the FileChannel and
     * AsynchronousFileChannel drop-ins, the path operations and the one-flag file-system provider, and the
     * differential programs against the JDK's channels (named: they are package-private there).
     */
    private static final List<String> RUNTIME = List.of("io.uring4j.runtime.ChainTest",
            "io.uring4j.runtime.DeliveryTest", "io.uring4j.runtime.UringTest", "io.uring4j.runtime.BlockingWakeTest",
            "io.uring4j.runtime.SlotWaitTest", "io.uring4j.fs.ChannelSlotWaitTest", "io.uring4j.net.SocketSlotWaitTest",
            "io.uring4j.net.TcpSocketTest",
            "io.uring4j.net.TcpLoopTest", "io.uring4j.net.ChannelContractTest", "io.uring4j.net.UdpSocketTest",
            "io.uring4j.net.ZeroCopySendTest", "io.uring4j.net.DirectAcceptTest",
            "io.uring4j.fs.AsyncFileTest", "io.uring4j.fs.UringFileChannelTest",
            "io.uring4j.fs.UringAsynchronousFileChannelTest", "io.uring4j.fs.ChannelDataIntegrityTest",
            "io.uring4j.fs.ChannelConcurrencyTest", "io.uring4j.fs.UringFilesTest",
            "io.uring4j.fs.UringFileSystemProviderTest", "io.uring4j.fs.UringProviderFilesTest",
            "io.uring4j.fs.FileChannelDifferentialTest", "io.uring4j.net.SocketChannelDifferentialTest");

    @Test
    void ringSemanticsHoldOnThePortableEngine() {
        String before = System.getProperty("uring4j.engine");
        System.setProperty("uring4j.engine", "portable");
        TestExecutionSummary summary;
        try {
            LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                    .selectors(SUITE.stream().map(c -> selectClass(c)).toList())
                    .selectors(RUNTIME.stream().map(name -> selectClass(name)).toList())
                    .build();
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            LauncherFactory.create().execute(request, listener);
            summary = listener.getSummary();
        } finally {
            if (before == null) {
                System.clearProperty("uring4j.engine");
            } else {
                System.setProperty("uring4j.engine", before);
            }
        }
        String failures = summary.getFailures().stream()
                .map(f -> f.getTestIdentifier().getUniqueId() + ": " + f.getException())
                .collect(Collectors.joining("\n"));
        assertThat(summary.getFailures()).as("tests failing on the portable engine:\n%s", failures).isEmpty();
        assertThat(summary.getTestsSucceededCount()).as("tests passed on the portable engine").isGreaterThan(340);
    }
}
