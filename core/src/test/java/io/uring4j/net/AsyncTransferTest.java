package io.uring4j.net;

import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An asynchronous channel's transfers tried in place, as the JDK's are: a gathering write with room in the socket
 * buffer and a scattering read with bytes waiting complete on the calling thread, with no request — one sendmsg
 * or recvmsg (Tomcat's NIO2 connector writes its pipelined responses gathered).
 */
@BothEngines
class AsyncTransferTest {
    @UringRuntime(loops = 1)
    private static Uring uring;

    @Test
    void severalBuffersAreWrittenAndReadInPlaceWhenTheSocketIsReady() {
        int[] fds = new int[2];
        int type = Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC;
        assertThat(Sockets.socketpair(Sockets.AF_UNIX, type, 0, fds)).isZero();
        try {
            FdGuard writeGuard = new FdGuard(uring.loop(), fds[0]);
            FdGuard readGuard = new FdGuard(uring.loop(), fds[1]);
            ByteBuffer[] srcs = {ByteBuffer.wrap("abc".getBytes()),
                ByteBuffer.allocateDirect(4).put("defg".getBytes()).flip(), ByteBuffer.wrap("hi".getBytes())};
            AsyncTransfer writer = new AsyncTransfer(fds[0], false);
            assertThat(writer.stage(srcs, 0, 3)).isEqualTo(9);
            assertThat(writer.attempt(writeGuard)).isEqualTo(9);
            writer.finish(9);
            assertThat(srcs).noneMatch(ByteBuffer::hasRemaining);

            ByteBuffer[] dsts = {ByteBuffer.allocate(2), ByteBuffer.allocateDirect(5), ByteBuffer.allocate(8)};
            AsyncTransfer reader = new AsyncTransfer(fds[1], true);
            assertThat(reader.stage(dsts, 0, 3)).isEqualTo(15);
            assertThat(reader.attempt(readGuard)).isEqualTo(9);
            reader.finish(9);
            StringBuilder got = new StringBuilder();
            for (ByteBuffer d : dsts) {
                d.flip();
                while (d.hasRemaining()) {
                    got.append((char) d.get());
                }
            }
            assertThat(got.toString()).isEqualTo("abcdefghi");
            ByteBuffer[] more = {ByteBuffer.allocate(4), ByteBuffer.allocate(4)};
            assertThat(reader.stage(more, 0, 2)).isEqualTo(8);
            assertThat(reader.attempt(readGuard)).as("nothing waiting").isEqualTo(AsyncTransfer.WOULD_BLOCK);
        } finally {
            LibC.close(fds[0]);
            LibC.close(fds[1]);
        }
    }
}
