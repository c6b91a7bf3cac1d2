package io.uring4j.ring;

import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * How io-wq sorts punted work (io_prep_async_work): buffered writes to one regular file are hashed by inode and
 * run one at a time (the portable engine's in submission order); work on a pipe or socket, which may block forever, runs on unbound
 * workers, so it cannot starve file I/O of the bounded ones.
 */
@BothEngines
class IoWqTest {
    private static final int RECORD = 512;

    @TempDir
    Path dir;

    @Test
    void asyncAppendsToOneFileThroughTwoDescriptorsAreSerialized() throws Exception {
        int writes = 64;
        Path path = dir.resolve("append.log");
        try (Fd a = Fd.open(path, LibC.O_CREAT | LibC.O_WRONLY | LibC.O_APPEND);
             Fd b = Fd.open(path, LibC.O_WRONLY | LibC.O_APPEND);
             Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(writes)) {
            List<Completion> expected = new ArrayList<>();
            for (int i = 0; i < writes; i++) {
                MemorySegment record = arena.allocate(RECORD).fill((byte) i);
                ring.sq().next().prepWrite(i % 2 == 0 ? a.fd() : b.fd(), record, 0).addFlags(SqeFlags.ASYNC).userData(i);
                expected.add(cqe(i, RECORD));
            }
            assertThat(submitAndReap(ring, writes)).containsExactlyInAnyOrderElementsOf(expected);
        }
        byte[] file = Files.readAllBytes(path);
        assertThat(file).hasSize(writes * RECORD);
        List<Integer> order = new ArrayList<>();
        for (int at = 0; at < file.length; at += RECORD) {
            byte id = file[at];
            for (int i = 1; i < RECORD; i++) {
                assertThat(file[at + i]).as("record at %d is whole", at).isEqualTo(id);
            }
            order.add((int) id);
        }
        assertThat(order).as("every record once").containsExactlyInAnyOrderElementsOf(
                java.util.stream.IntStream.range(0, writes).boxed().toList());
        if (Rings.portable()) {
            // Ours runs a file's hashed writes one by one in submission order. The kernel's hashing serializes
            // them too, and keeps submission order nearly always, but a loaded machine showed one swap.
            assertThat(order).isSorted();
        }
    }

    @Test
    void splicesBlockedOnEmptyPipesDoNotHoldUpAFileRead() throws Exception {
        // One more blocked splice than io-wq has bounded workers: min(sq entries, 4 x CPUs).
        int blocked = 4 * Runtime.getRuntime().availableProcessors() + 1;
        Path path = Files.write(dir.resolve("data"), new byte[] {1, 2, 3, 4});
        List<Pipe> pipes = new ArrayList<>();
        try (Fd file = Fd.open(path, LibC.O_RDONLY); Arena arena = Arena.ofConfined();
             IoUring ring = IoUring.open(Integer.highestOneBit(blocked) * 4)) {
            try {
                for (int i = 0; i < blocked; i++) {
                    Pipe in = Pipe.open();
                    Pipe out = Pipe.open();
                    pipes.add(in);
                    pipes.add(out);
                    ring.sq().next().prepSplice(in.readFd(), -1, out.writeFd(), -1, 8, 0)
                            .addFlags(SqeFlags.ASYNC).userData(100 + i);
                }
                MemorySegment buf = arena.allocate(4);
                ring.sq().next().prepRead(file.fd(), buf, 0).addFlags(SqeFlags.ASYNC).userData(1);

                assertThat(submitAndReap(ring, 1)).containsExactly(cqe(1, 4));
                assertThat(buf.toArray(JAVA_BYTE)).containsExactly(1, 2, 3, 4);
                for (int i = 0; i < blocked; i++) {
                    pipes.get(2 * i).write((byte) i);
                }
                List<Completion> spliced = reap(ring, blocked);
                assertThat(spliced).allSatisfy(c -> assertThat(c.res()).isEqualTo(1));
            } finally {
                pipes.forEach(Pipe::close);
            }
        }
    }
}
