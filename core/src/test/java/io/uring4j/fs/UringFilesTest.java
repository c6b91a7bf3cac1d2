package io.uring4j.fs;

import io.uring4j.runtime.Uring;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.uring4j.fs.OpenFlags.*;
import static io.uring4j.testkit.Patterns.pattern;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** UringFiles: open errors as java.nio.file exceptions, and the path operations against what the JDK sees. */
@BothEngines
class UringFilesTest {
    @UringRuntime(loops = 1)
    private static Uring uring;
    private static UringFiles files;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        files = UringFiles.of(uring);
    }

    @Test
    void openErrorsAreTheJdksExceptions() throws Exception {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> files.open(missing, O_RDONLY)).isInstanceOf(NoSuchFileException.class)
                .hasMessage(missing.toString())
                .cause().isInstanceOf(ErrnoException.class).hasMessageContaining("OPENAT").hasMessageContaining("ENOENT");
        Path existing = Files.write(dir.resolve("existing"), pattern(1, 3));
        assertThatThrownBy(() -> files.open(existing, O_WRONLY | O_CREAT | O_EXCL))
                .isInstanceOf(FileAlreadyExistsException.class).hasMessage(existing.toString());
        assertThatThrownBy(() -> files.open(dir, O_WRONLY)).isExactlyInstanceOf(FileSystemException.class)
                .hasMessage(dir + ": Is a directory");
        assertThatThrownBy(() -> files.openAsync(missing, O_RDONLY, 0).get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void permissionIsDeniedUnlessRoot() throws Exception {
        assumeFalse("root".equals(System.getProperty("user.name")), "root bypasses file permissions");
        Path locked = Files.write(dir.resolve("locked"), pattern(1, 3));
        Files.setPosixFilePermissions(locked, java.util.Set.of());
        assertThatThrownBy(() -> files.open(locked, O_RDONLY)).isInstanceOf(AccessDeniedException.class);
    }

    @Test
    void createModeAndTmpfile() throws Exception {
        Path created = dir.resolve("created");
        try (AsyncFile f = files.open(created, O_WRONLY | O_CREAT, 0640)) {
            assertThat(f.stat().permissions() & 0770).isEqualTo(0640 & 0770);
        }
        try (AsyncFile anonymous = files.open(dir, O_RDWR | O_TMPFILE, 0600)) {
            assertThat(anonymous.stat().isRegularFile()).isTrue();
            assertThat(anonymous.stat().links()).as("an O_TMPFILE file has no name").isZero();
        }
    }

    @Test
    void openat2ResolvesBeneathADirectory() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("jail"));
        Files.write(sub.resolve("inside"), pattern(4, 8));
        Files.write(dir.resolve("outside"), pattern(5, 8));
        try (AsyncFile jail = files.open(sub, O_RDONLY | O_DIRECTORY)) {
            int fd = uring.call(FileOps.openat2(jail.fd(), Path.of("inside"), O_RDONLY | O_CLOEXEC, 0,
                    FileOps.RESOLVE_BENEATH));
            assertThat(io.uring4j.sys.LibC.close(fd)).isZero();
            assertThatThrownBy(() -> uring.call(FileOps.openat2(jail.fd(), Path.of("../outside"), O_RDONLY, 0,
                    FileOps.RESOLVE_BENEATH))).isInstanceOf(ErrnoException.class).hasMessageContaining("EXDEV");
        }
    }

    @Test
    void pathOperationsMatchTheJdkView() throws Exception {
        Path sub = dir.resolve("sub");
        files.mkdir(sub);
        assertThat(Files.isDirectory(sub)).isTrue();
        assertThatThrownBy(() -> files.mkdir(sub)).isInstanceOf(FileAlreadyExistsException.class);

        Path a = Files.write(sub.resolve("a"), pattern(2, 100));
        Path b = sub.resolve("b");
        files.rename(a, b);
        assertThat(Files.exists(a)).isFalse();
        assertThat(Files.readAllBytes(b)).isEqualTo(pattern(2, 100));
        Path c = Files.write(sub.resolve("c"), pattern(3, 5));
        assertThatThrownBy(() -> files.rename(b, c, FileOps.RENAME_NOREPLACE))
                .isInstanceOf(FileAlreadyExistsException.class).hasMessage(b + " -> " + c);
        files.renameAsync(b, c, FileOps.RENAME_EXCHANGE).get(10, TimeUnit.SECONDS);
        assertThat(Files.readAllBytes(c)).isEqualTo(pattern(2, 100));

        Path hard = sub.resolve("hard");
        files.link(hard, c);
        assertThat(Files.isSameFile(hard, c)).isTrue();
        assertThat(files.stat(c).links()).isEqualTo(2);

        Path soft = sub.resolve("soft");
        files.symlink(soft, Path.of("c"));
        assertThat(Files.readSymbolicLink(soft)).isEqualTo(Path.of("c"));
        assertThat(files.lstat(soft).isSymbolicLink()).isTrue();
        assertThat(files.stat(soft).size()).as("stat follows the link").isEqualTo(100);
        assertThat(files.statAsync(sub).get(10, TimeUnit.SECONDS).isDirectory()).isTrue();

        assertThatThrownBy(() -> files.rmdir(sub)).isInstanceOf(FileSystemException.class)
                .isNotInstanceOf(DirectoryNotEmptyException.class)      // the JDK's raw translation, as here
                .hasMessage(sub + ": Directory not empty");
        for (Path p : new Path[] {soft, hard, b, c}) {
            files.unlink(p);
        }
        files.rmdirAsync(sub).get(10, TimeUnit.SECONDS);
        assertThat(Files.exists(sub)).isFalse();
        assertThatThrownBy(() -> files.unlink(sub)).isInstanceOf(NoSuchFileException.class);
    }
}
