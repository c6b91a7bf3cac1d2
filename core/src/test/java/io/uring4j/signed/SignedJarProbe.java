package io.uring4j.signed;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The main class of {@code io.uring4j.fs.SignedJarStartTest}'s signed jar, in a package of its own (a signed class
 * may not share one with unsigned ones); it runs in a child JVM, from that jar. It writes and reads a file and says
 * which channel the default file system gives it once the runtime is up.
 */
public final class SignedJarProbe {
    private SignedJarProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        Files.writeString(data, "written");
        System.out.println("read: " + Files.readString(data));
        for (int tries = 0; ; tries++) {      // the first channels may be the platform's, while the runtime starts
            try (FileChannel ch = FileChannel.open(data, StandardOpenOption.READ)) {
                if (ch.getClass().getSimpleName().equals("UringFileChannel") || tries == 5_000) {
                    System.out.println("channel: " + ch.getClass().getSimpleName());
                    return;
                }
            }
            Thread.sleep(1);
        }
    }
}
