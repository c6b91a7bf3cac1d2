package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.LibC;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.assumeSupported;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Async discard (URING_CMD BLOCK_URING_CMD_DISCARD on a block device, 6.12; liburing's cmd-discard.c), on a
 * loop device over a file: skipped where none can be made (no root, no losetup, no loop driver).
 */
@Timeout(60)
class BlockDiscardTest {
    @TempDir
    Path dir;

    /** {@code losetup -f --show file}: the loop device, or null when none can be made here. */
    private static String attachLoop(Path file) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder("losetup", "-f", "--show", file.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            return null;        // no losetup
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 && out.startsWith("/dev/loop") ? out : null;
    }

    private static void detachLoop(String device) throws IOException, InterruptedException {
        new ProcessBuilder("losetup", "-d", device).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
    }

    @Test
    void aDiscardedRangeReadsBackAsZeros() throws Exception {
        Path file = dir.resolve("disk.img");
        byte[] ones = new byte[1 << 20];
        Arrays.fill(ones, (byte) 0xab);
        Files.write(file, ones);
        String device = attachLoop(file);
        assumeTrue(device != null, "no loop device can be made here (needs root and losetup)");
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(4)) {
            assumeSupported(ring, Opcode.URING_CMD);
            int fd = LibC.open(device, LibC.O_RDWR, 0);
            assertThat(fd).as("open " + device).isNotNegative();
            try {
                ring.sq().next().prepCmdDiscard(fd, 0, 64 * 1024).userData(1);
                Completion discarded = submitAndReap(ring);
                Rings.skipIfRefused(discarded.res(), "block URING_CMD discard (6.12)");
                assertThat(discarded).isEqualTo(Completion.cqe(1, 0));

                MemorySegment head = arena.allocate(4096, 4096);
                ring.sq().next().prepRead(fd, head, 0).userData(2);
                assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(2, 4096));
                assertThat(head.toArray(JAVA_BYTE)).as("discarded: zeros").containsOnly((byte) 0);
                MemorySegment after = arena.allocate(4096, 4096);
                ring.sq().next().prepRead(fd, after, 64 * 1024).userData(3);
                assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(3, 4096));
                assertThat(after.toArray(JAVA_BYTE)).as("past the range: untouched").containsOnly((byte) 0xab);
            } finally {
                LibC.close(fd);
            }
        } finally {
            detachLoop(device);
        }
    }
}
