package io.uring4j.bench;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * What a short program does with files, run as a program of its own: a small file written, read back, copied, the
 * directory listed, the copy deleted. Under the file-system provider flag its first file call starts uring4j's
 * runtime (its streams do not wait for it), so the process's whole run, from start to exit, is what the flag costs
 * or saves such a program ({@code process_ms}, which {@link CompareFlag} measures from outside; {@code total_ms} is
 * the part inside {@code main}). Standard output gets the results, which must not depend on the provider, then one
 * JSON line, which names the provider rather than a FileChannel's class: opening one would wait for the runtime.
 *
 * <p>Arguments: directory.
 */
public final class StartupWorkload {
    private StartupWorkload() {
    }

    public static void main(String[] args) throws IOException {
        long start = System.nanoTime();
        Path dir = Path.of(args[0]);
        Path file = dir.resolve("hello.txt");
        Files.writeString(file, "hello from a short program\n");
        String back = Files.readString(file);
        Path copy = Files.copy(file, dir.resolve("copy.txt"), StandardCopyOption.REPLACE_EXISTING);
        long entries;
        try (Stream<Path> list = Files.list(dir)) {
            entries = list.count();
        }
        byte[] copied = Files.readAllBytes(copy);
        Files.delete(copy);
        long end = System.nanoTime();
        System.out.println("read back: " + back.strip() + "; " + entries + " entries; copy of " + copied.length
                + " bytes");
        System.out.printf(Locale.ROOT, "{\"provider\":\"%s\",\"total_ms\":%.1f}%n",
                FileSystems.getDefault().provider().getClass().getName(), (end - start) / 1e6);
    }
}
