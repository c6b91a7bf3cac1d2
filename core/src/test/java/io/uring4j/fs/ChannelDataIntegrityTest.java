package io.uring4j.fs;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.Patterns;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static java.nio.file.StandardOpenOption.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Data integrity across implementations: random writes — sizes on both sides of the 64 KiB pooled shadow,
 * heap and direct buffers, positional and relative — each made by the JDK's FileChannel or by uring4j's at
 * random, then random reads by both, all checked against a byte-array model of the file.
 */
@BothEngines
class ChannelDataIntegrityTest {
    private static final int SPAN = 1 << 20;
    private static Uring uring;

    @BeforeContainer
    static void start() throws Exception {
        uring = Uring.builder().loops(2).build();
    }

    @AfterContainer
    static void stop() {
        uring.close();
    }

    record Access(boolean byUring, boolean direct, boolean positional, int offset, int length, int seed) {
    }

    @Provide
    Arbitrary<List<Access>> accesses() {
        Arbitrary<Access> access = Combinators.combine(
                Arbitraries.of(true, false), Arbitraries.of(true, false), Arbitraries.of(true, false),
                Arbitraries.integers().between(0, SPAN),
                Arbitraries.integers().between(0, 150_000).edgeCases(e -> e.add(TempBuffers.POOLED, TempBuffers.POOLED + 1)),
                Arbitraries.integers().between(0, 255)).as(Access::new);
        return access.list().ofMinSize(1).ofMaxSize(12);
    }

    @Property(tries = 60)
    void whatOneWritesTheOtherReads(@ForAll("accesses") List<Access> writes, @ForAll("accesses") List<Access> reads)
            throws Exception {
        Path path = Files.createTempFile("uring4j-integrity", ".dat");
        byte[] model = new byte[SPAN + 150_000];
        int size = 0;
        try (FileChannel jdk = FileChannel.open(path, READ, WRITE);
             FileChannel ours = UringFileChannel.open(uring, path, READ, WRITE)) {
            for (Access w : writes) {
                FileChannel ch = w.byUring() ? ours : jdk;
                byte[] data = Patterns.pattern(w.seed(), w.length());
                ByteBuffer src = w.direct() ? ByteBuffer.allocateDirect(w.length()).put(data).flip() : ByteBuffer.wrap(data);
                int n;
                if (w.positional()) {
                    n = ch.write(src, w.offset());
                } else {
                    n = ch.position(w.offset()).write(src);
                    assertThat(ch.position()).isEqualTo(w.offset() + (long) n);
                }
                assertThat(n).isEqualTo(w.length());
                System.arraycopy(data, 0, model, w.offset(), n);
                size = Math.max(size, n == 0 ? size : w.offset() + n);
            }
            assertThat(jdk.size()).isEqualTo(size);
            assertThat(ours.size()).isEqualTo(size);
            for (Access r : reads) {
                FileChannel ch = r.byUring() ? ours : jdk;
                ByteBuffer dst = r.direct() ? ByteBuffer.allocateDirect(r.length()) : ByteBuffer.allocate(r.length());
                int n = r.positional() ? ch.read(dst, r.offset()) : ch.position(r.offset()).read(dst);
                int expected = r.length() == 0 ? 0 : r.offset() >= size ? -1 : Math.min(r.length(), size - r.offset());
                assertThat(n).as("read of %d at %d from a file of %d", r.length(), r.offset(), size).isEqualTo(expected);
                byte[] got = new byte[Math.max(n, 0)];
                dst.flip().get(got);
                assertThat(got).isEqualTo(Arrays.copyOfRange(model, r.offset(), r.offset() + got.length));
            }
        } finally {
            Files.delete(path);
        }
    }
}
