package io.uring4j.sys;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The positional reads and writes of {@link LibC}, which try the call without errno capture first: a success is
 * the kernel's count, and a failure still names its errno (learnt from the call made again with capture).
 */
class PositionalCallsTest {
    @TempDir
    Path dir;

    @Test
    void successesCountAndFailuresNameTheirErrno() throws Exception {
        Path path = Files.write(dir.resolve("data"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(4);
            int ro = LibC.open(path.toString(), LibC.O_RDONLY, 0);
            assertThat(ro).isNotNegative();
            try {
                assertThat(LibC.pread(ro, buf, 2)).isEqualTo(4);
                assertThat(buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 3);
                assertThat(LibC.preadv2(ro, buf, 6, 0)).isEqualTo(2);
                assertThat(LibC.tryPreadv2(ro, buf.address(), buf.byteSize(), 5, LibC.RWF_NOWAIT)).as("a try, cached")
                        .isEqualTo(3);
                assertThat(buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 6);
                assertThat(LibC.pread(ro, buf, 8)).as("end of file").isZero();
                assertThat(LibC.pwrite(ro, buf, 0)).as("a read-only fd").isEqualTo(-Errno.EBADF);
                assertThat(LibC.pwritev2(ro, buf, 0, 0)).as("a read-only fd").isEqualTo(-Errno.EBADF);
                assertThat(LibC.pread(ro, buf, -1)).as("a negative offset").isEqualTo(-Errno.EINVAL);
                assertThat(LibC.preadv2(ro, buf, 0, 0x7fff_0000)).as("unknown flags").isEqualTo(-Errno.EOPNOTSUPP);
            } finally {
                LibC.close(ro);
            }
            assertThat(LibC.pread(ro, buf, 0)).as("a closed fd").isEqualTo(-Errno.EBADF);
            assertThat(LibC.preadv2(ro, buf, 0, 0)).as("a closed fd").isEqualTo(-Errno.EBADF);
            assertThat(LibC.tryPreadv2(ro, buf.address(), buf.byteSize(), 0, 0))
                    .as("a try on a closed fd: failed, errno not asked").isNegative();
            int rw = LibC.open(path.toString(), LibC.O_RDWR, 0);
            try {
                buf.fill((byte) 9);
                assertThat(LibC.pwrite(rw, buf, 8)).isEqualTo(4);
                assertThat(LibC.pwritev2(rw, buf, 12, 0)).isEqualTo(4);
                assertThat(LibC.pwrite(rw, buf, -1)).as("a negative offset").isEqualTo(-Errno.EINVAL);
            } finally {
                LibC.close(rw);
            }
            assertThat(Files.size(path)).isEqualTo(16);
        }
    }
}
