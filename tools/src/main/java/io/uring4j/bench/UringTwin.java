package io.uring4j.bench;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code +uring4j} server of {@code bench http}: an application run unmodified in a JVM whose java.nio provider
 * flag names uring4j's provider — {@code jetty+uring4j} is Jetty started with
 * {@code -Djava.nio.channels.spi.SelectorProvider=io.uring4j.net.UringSelectorProvider}. The child reports the
 * provider it really got, and {@link #verify} refuses a run on any other: a figure for "Jetty on uring4j"
 * measured on the JDK's selector would be a lie.
 *
 * @param name          the server's name, as {@code --servers} takes it
 * @param app           the same application without the flag (a peer's name)
 * @param kind          which of java.nio's providers the flag replaces
 * @param providerClass the class the flag names (uring4j's; another only in the tests of this check)
 */
record UringTwin(String name, String app, Kind kind, String providerClass) {
    static final String SUFFIX = "+uring4j";
    private static final String BUILD_HINT =
            "Is core built with it? (./uring4j builds it; or mvn -pl core,tools package)";

    /** java.nio's two pluggable network providers: the property naming one, its key in the child's report. */
    enum Kind {
        SELECTOR("java.nio.channels.spi.SelectorProvider", "selector", "io.uring4j.net.UringSelectorProvider"),
        ASYNC("java.nio.channels.spi.AsynchronousChannelProvider", "async",
                "io.uring4j.net.UringAsynchronousChannelProvider");

        final String property;
        final String key;
        final String uring4j;

        Kind(String property, String key, String uring4j) {
            this.property = property;
            this.key = key;
            this.uring4j = uring4j;
        }
    }

    /**
     * Every twin: the applications on the provider their network stack uses, Netty's NIO peer, and the JDK's
     * blocking channels on virtual threads.
     */
    static final List<UringTwin> ALL = List.of(of("jetty", Kind.SELECTOR), of("netty-codec", Kind.SELECTOR),
            of("tomcat-nio2", Kind.ASYNC), of("netty-nio", Kind.SELECTOR), of("tomcat-nio", Kind.SELECTOR),
            of("jdk-vthread", Kind.SELECTOR));

    private static UringTwin of(String app, Kind kind) {
        return new UringTwin(app + SUFFIX, app, kind, kind.uring4j);
    }

    static Optional<UringTwin> named(String name) {
        return ALL.stream().filter(t -> t.name.equals(name)).findFirst();
    }

    /** This twin with the flag naming {@code className} instead: how the tests exercise {@link #verify}. */
    UringTwin naming(String className) {
        return new UringTwin(name, app, kind, className);
    }

    /** The JVM flag. */
    String flag() {
        return "-D" + kind.property + "=" + providerClass;
    }

    /**
     * Fails at once, before any server runs, if the provider class is not on this JVM's class path (the child's
     * is the same): no round is spent on servers whose twin cannot run.
     */
    void requireOnClassPath() {
        try {
            Class.forName(providerClass, false, UringTwin.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw refusal(providerClass + " is not on the class path. " + BUILD_HINT);
        }
    }

    /**
     * Checks the child's report ({@code selector=CLASS; async=CLASS}, {@code Peer.providers()}): the flag's
     * provider must be the one the JVM got, else a {@link BenchException} naming the one it got instead.
     */
    void verify(String providers) {
        Matcher m = Pattern.compile("(?:^|; )" + kind.key + "=([^;]*)").matcher(providers);
        String got = m.find() ? m.group(1).trim() : "no report of it (" + providers + ")";
        if (got.equals(providerClass)) {
            return;
        }
        throw refusal(got.startsWith("failed: ") ? "the JVM could not load it: "
                + got.substring("failed: ".length()) + ". " + BUILD_HINT
                : "the JVM's " + kind.key + " provider was " + got + " instead.");
    }

    private BenchException refusal(String why) {
        return new BenchException(name + " must run on " + providerClass + " (" + flag() + ") but " + why
                + " No figure is reported for it.");
    }

}
