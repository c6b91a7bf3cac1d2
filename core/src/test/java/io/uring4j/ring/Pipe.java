package io.uring4j.ring;

import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A blocking pipe (O_CLOEXEC), the tests' source of reads that never complete by themselves: a read of the empty
 * pipe waits until data is written or the write end is closed (then it completes with 0). Closing closes both
 * ends. Public for the runtime tests.
 */
public final class Pipe implements AutoCloseable {
    private final int readFd;
    private final int writeFd;
    private boolean writeEndOpen = true;

    private Pipe(int readFd, int writeFd) {
        this.readFd = readFd;
        this.writeFd = writeFd;
    }

    public static Pipe open() {
        int[] fds = new int[2];
        assertThat(LibC.pipe2(fds, LibC.O_CLOEXEC)).as("pipe2").isZero();
        return new Pipe(fds[0], fds[1]);
    }

    public int readFd() {
        return readFd;
    }

    public int writeFd() {
        return writeFd;
    }

    /** Writes {@code bytes} in one write(2) (atomic below PIPE_BUF) and checks it all went in. */
    public void write(byte... bytes) {
        try (Arena arena = Arena.ofConfined()) {
            write(arena.allocateFrom(JAVA_BYTE, bytes));
        }
    }

    /** Writes all of {@code data} in one write(2). */
    public void write(MemorySegment data) {
        assertThat(LibC.write(writeFd, data)).as("write to the pipe").isEqualTo(data.byteSize());
    }

    /** One read(2) of at most {@code max} bytes (blocks while the pipe is empty). */
    public byte[] read(int max) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(max);
            long n = LibC.read(readFd, buf);
            assertThat(n).as("read from the pipe (negative: -errno)").isNotNegative();
            return buf.asSlice(0, n).toArray(JAVA_BYTE);
        }
    }

    /** Closes the write end: reads pending on the read end complete with 0 (EOF). */
    public void closeWriteEnd() {
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
}
