package io.uring4j.examples;

import io.uring4j.cli.ToolProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ./uring4j example CopyFile}: a source it cannot read is one line with the errno, and the copies it names
 * itself are never written through someone else's symlink.
 */
class CopyFileTest {
    @TempDir
    Path dir;

    private static ToolProcess copyFile(List<String> jvmFlags, String... args) throws Exception {
        return ToolProcess.run(120, CopyFile.class, jvmFlags, args);
    }

    @Test
    void aMissingSourceIsOneLineWithItsErrno() throws Exception {
        Path missing = dir.resolve("missing");
        try (ToolProcess p = copyFile(List.of(), missing.toString())) {
            assertThat(p.status()).isEqualTo(1);
            assertThat(p.errLines()).containsExactly("CopyFile: " + missing + ": ENOENT (No such file or directory)");
        }
    }

    @Test
    void aDirectorySourceIsOneLineWithEisdir() throws Exception {
        try (ToolProcess p = copyFile(List.of(), dir.toString(), dir.resolve("copy").toString())) {
            assertThat(p.status()).isEqualTo(1);
            assertThat(p.errLines()).containsExactly("CopyFile: " + dir + ": EISDIR (Is a directory)");
        }
        assertThat(dir.resolve("copy")).doesNotExist();
    }

    /** {@code source.copy} is a name CopyFile chose: a symlink planted there is refused, not followed. */
    @Test
    void theTargetItNamesIsNotOpenedThroughASymlink() throws Exception {
        Path source = Files.writeString(dir.resolve("source"), "data");
        Path victim = Files.writeString(dir.resolve("victim"), "keep me");
        Path planted = Files.createSymbolicLink(dir.resolve("source.copy"), victim);
        try (ToolProcess p = copyFile(List.of(), source.toString())) {
            assertThat(p.status()).as(p.toString()).isEqualTo(1);
            assertThat(p.errLines()).containsExactly("CopyFile: " + planted + ": EEXIST (File exists)");
        }
        assertThat(victim).hasBinaryContent("keep me".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /**
     * Without arguments it copies a sample in the temporary directory. Another user watching that directory plants
     * a symlink at {@code <name>.copy} for every name that appears there (the copy's name before); the files it
     * writes must stay its own, and none is left behind.
     */
    @Test
    void theSampleCopyLeavesNoGuessableNameInTheTemporaryDirectory() throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Path victim = Files.writeString(dir.resolve("victim"), "keep me");
        try (WatchService watch = FileSystems.getDefault().newWatchService()) {
            tmp.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
            Thread attacker = Thread.ofVirtual().start(() -> plant(watch, tmp, victim));
            try (ToolProcess p = copyFile(List.of("-Djava.io.tmpdir=" + tmp))) {
                assertThat(p.status()).as(p.toString()).isZero();
                assertThat(p.out()).contains("identical: true");
            } finally {
                attacker.interrupt();
                attacker.join();
            }
        }
        assertThat(victim).hasBinaryContent("keep me".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        try (var left = Files.list(tmp)) {
            assertThat(left.filter(f -> !Files.isSymbolicLink(f))).as("left behind").isEmpty();
        }
    }

    private static void plant(WatchService watch, Path tmp, Path victim) {
        try {
            while (true) {
                WatchKey key = watch.take();
                for (WatchEvent<?> e : key.pollEvents()) {
                    if (e.context() instanceof Path name && !name.toString().endsWith(".copy")) {
                        Files.createSymbolicLink(tmp.resolve(name + ".copy"), victim);
                    }
                }
                key.reset();
            }
        } catch (InterruptedException | java.nio.file.ClosedWatchServiceException done) {
            // the copy has ended
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
