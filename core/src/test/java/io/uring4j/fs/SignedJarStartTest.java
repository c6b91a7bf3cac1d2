package io.uring4j.fs;

import io.uring4j.runtime.Uring;
import io.uring4j.signed.SignedJarProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, item 1: a JVM whose class path starts with a signed jar, under the file-system provider flag. Verifying
 * the jar reads {@code java.security} through the default file system — ours — while the JVM holds its class-path
 * lock; if that first read waited for the runtime's new threads, which load classes as they start, the JVM hung
 * before its main class ran. It must start, and its own file I/O must then run on io_uring.
 */
class SignedJarStartTest {
    private static final long START_SECONDS = 60;

    @TempDir
    Path dir;

    @Test
    void aJvmWithASignedJarFirstOnTheClassPathStartsUnderTheFlag() throws Exception {
        Path jar = dir.resolve("probe.jar");
        writeJar(jar, SignedJarProbe.class);
        Path keystore = dir.resolve("keys.p12");
        run(tool("keytool"), "-genkeypair", "-keystore", keystore.toString(), "-storepass", "changeit",
                "-alias", "probe", "-keyalg", "EC", "-dname", "CN=uring4j test", "-validity", "2");
        run(tool("jarsigner"), "-keystore", keystore.toString(), "-storepass", "changeit", jar.toString(), "probe");

        String classPath = jar + File.pathSeparator + location(Uring.class);
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(tool("java"), "--enable-native-access=ALL-UNNAMED",
                "-Djava.nio.file.spi.DefaultFileSystemProvider=" + UringFileSystemProvider.class.getName(),
                "-cp", classPath, SignedJarProbe.class.getName(), dir.resolve("data.txt").toString())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean ended = p.waitFor(START_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        assertThat(ended).as("the JVM started and ended (it hung before its main class ran)").isTrue();
        assertThat(Files.readString(out)).contains("channel: UringFileChannel").contains("read: written");
        assertThat(p.exitValue()).isZero();
    }

    private static void writeJar(Path jar, Class<?> main) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().putValue("Manifest-Version", "1.0");
        String entry = main.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest);
             InputStream in = main.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
    }

    private static String tool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    private static String location(Class<?> c) throws Exception {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(START_SECONDS, TimeUnit.SECONDS)).as("%s ended", command[0]).isTrue();
        assertThat(p.exitValue()).as("%s: %s", command[0], output).isZero();
    }
}
