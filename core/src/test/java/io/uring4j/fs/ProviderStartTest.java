package io.uring4j.fs;

import io.uring4j.testkit.ChildJvm;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The file-system provider while the shared runtime starts, in a JVM of its own under the flag: a short program's
 * streams and {@code Files.lines} do not wait for the runtime (the platform's serve them meanwhile), a FileChannel
 * does, and once the runtime is up the streams are uring4j's too.
 */
class ProviderStartTest {
    @Test
    void streamsAreThePlatformsWhileTheRuntimeStartsAndChannelsWaitForIt() throws Exception {
        String out = ChildJvm.output(StartingProbe.class,
                "-Djava.nio.file.spi.DefaultFileSystemProvider=" + UringFileSystemProvider.class.getName());
        assertThat(out).contains("lines while starting: [written]")
                .contains("starting: byte channel sun.nio.ch.FileChannelImpl, read back 'written' and 'written'")
                .contains("channel: io.uring4j.fs.UringFileChannel")
                .contains("up: byte channel io.uring4j.fs.UringFileChannel, read back 'written' and 'written'");
    }

    /** A child JVM's program: streams with the runtime's start held back, then a channel, then streams again. */
    public static final class StartingProbe {
        public static void main(String[] args) throws Exception {
            Path file;
            // The runtime starts in UringFiles.shared(), synchronized on the class: holding it holds the start back,
            // so that the streams below are opened before the runtime is up, whatever the machine's speed. A stream
            // that waited for the runtime would start it here, on this thread, and be uring4j's.
            synchronized (UringFiles.class) {
                file = Files.createTempFile("uring4j-start", ".txt");
                Files.writeString(file, "written");
                try (Stream<String> lines = Files.lines(file)) {        // a FileChannel's, which Files closes
                    System.out.println("lines while starting: " + lines.toList());
                }
                System.out.println("starting: " + streams(file));
            }
            try (FileChannel ch = FileChannel.open(file)) {
                System.out.println("channel: " + ch.getClass().getName());
            }
            System.out.println("up: " + streams(file));
            Files.delete(file);
        }

        private static String streams(Path file) throws Exception {
            String channel;
            try (SeekableByteChannel ch = Files.newByteChannel(file)) {
                channel = ch.getClass().getName();
            }
            try (InputStream in = Files.newInputStream(file)) {
                return "byte channel " + channel + ", read back '" + new String(in.readAllBytes())
                        + "' and '" + Files.readString(file) + "'";
            }
        }
    }
}
