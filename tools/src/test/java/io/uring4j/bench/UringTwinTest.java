package io.uring4j.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The {@code +uring4j} servers of {@code bench http}: each application, unmodified, with java.nio's provider flag
 * naming uring4j's provider, answers as it does without the flag; and no twin counts as started on any provider
 * but the one its flag names.
 */
class UringTwinTest {
    private static final String MISSING = "io.uring4j.net.NoSuchProvider";

    @ParameterizedTest
    @FieldSource("io.uring4j.bench.UringTwin#ALL")
    void servesTheSameResponsesOnUring4jsProvider(UringTwin twin) throws Exception {
        assumeTrue(onClassPath(twin.providerClass()), simpleName(twin.providerClass()) + " not built yet");
        // the engine this JVM was given (-During4j.engine=portable in JDK_JAVA_OPTIONS: the twin on the portable one)
        var engine = BenchOptions.EngineName.valueOf(System.getProperty("uring4j.engine", "kernel"));
        try (ServerProcess server = ServerProcess.start(twin.name(), engine, 1)) {
            PlaintextExchange.run(server.port());
        }
    }

    @ParameterizedTest
    @FieldSource("io.uring4j.bench.UringTwin#ALL")
    void aProviderTheJvmCannotLoadIsRefusedWithWhatItGot(UringTwin twin) {
        assertThatThrownBy(() -> ServerProcess.start(twin.naming(MISSING), BenchOptions.EngineName.kernel, 1))
                .isInstanceOf(BenchException.class)
                .hasMessageStartingWith(twin.name() + " must run on " + MISSING + " (-D" + twin.kind().property
                        + "=" + MISSING + ") but the JVM could not load it: java.lang.ClassNotFoundException: "
                        + MISSING)
                .hasMessageEndingWith("No figure is reported for it.");
    }

    @Test
    void aReportOfTheJdksProviderIsRefusedNamingIt() {
        String jdk = "selector=sun.nio.ch.EPollSelectorProvider; async=sun.nio.ch.LinuxAsynchronousChannelProvider";
        UringTwin jetty = UringTwin.named("jetty+uring4j").orElseThrow();
        UringTwin tomcat = UringTwin.named("tomcat-nio2+uring4j").orElseThrow();

        assertThatThrownBy(() -> jetty.verify(jdk)).isInstanceOf(BenchException.class).hasMessage(
                "jetty+uring4j must run on io.uring4j.net.UringSelectorProvider (-Djava.nio.channels.spi."
                        + "SelectorProvider=io.uring4j.net.UringSelectorProvider) but the JVM's selector provider was"
                        + " sun.nio.ch.EPollSelectorProvider instead. No figure is reported for it.");
        assertThatThrownBy(() -> tomcat.verify(jdk)).isInstanceOf(BenchException.class)
                .hasMessageContaining("the JVM's async provider was sun.nio.ch.LinuxAsynchronousChannelProvider");
        jetty.verify("selector=io.uring4j.net.UringSelectorProvider; async=sun.nio.ch.Other");
        tomcat.verify("selector=sun.nio.ch.Other; async=io.uring4j.net.UringAsynchronousChannelProvider");
    }

    @Test
    void aProviderMissingFromTheClassPathIsRefusedBeforeAnyServerRuns() {
        UringTwin twin = UringTwin.named("netty-codec+uring4j").orElseThrow().naming(MISSING);
        assertThatThrownBy(twin::requireOnClassPath).isInstanceOf(BenchException.class).hasMessageContaining(
                "netty-codec+uring4j must run on " + MISSING + " (-Djava.nio.channels.spi.SelectorProvider=" + MISSING
                        + ") but " + MISSING + " is not on the class path.");
    }

    private static boolean onClassPath(String className) {
        try {
            Class.forName(className, false, UringTwinTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
