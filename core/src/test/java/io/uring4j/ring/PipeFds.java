package io.uring4j.ring;

import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A blocking pipe, the tests' source of reads that never complete by themselves (an empty pipe) until data is
 * written or the write end is closed (then a pending read completes with 0). Closing closes both ends.
 */
final class PipeFds implements AutoCloseable {
    final int readFd;
    final int writeFd;
    private boolean writeEndOpen = true;

    private PipeFds(int readFd, int writeFd) {
        this.readFd = readFd;
        this.writeFd = writeFd;
    }

    static PipeFds open() {
        int[] fds = new int[2];
        assertThat(LibC.pipe2(fds, LibC.O_CLOEXEC)).as("pipe2").isZero();
        return new PipeFds(fds[0], fds[1]);
    }

    /** Writes all of {@code data} with a plain write(2). */
    void write(MemorySegment data) {
        assertThat(LibC.write(writeFd, data)).as("write to the pipe").isEqualTo(data.byteSize());
    }

    /** Closes the write end: reads pending on the read end complete with 0 (EOF). */
    void closeWriteEnd() {
        if (writeEndOpen) {
            writeEndOpen = false;
            LibC.close(writeFd);
        }
    }

    @Override
    public void close() {
        closeWriteEnd();
        LibC.close(readFd);
    }

    /** A one-entry {@code struct iovec} array describing {@code buf}. */
    static MemorySegment iovec(Arena arena, MemorySegment buf) {
        MemorySegment iov = arena.allocate(16, 8);
        iov.set(ADDRESS, 0, buf);
        iov.set(JAVA_LONG, 8, buf.byteSize());
        return iov;
    }
}
