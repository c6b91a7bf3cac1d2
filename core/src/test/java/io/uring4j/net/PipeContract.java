package io.uring4j.net;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.SelectorProvider;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Pipe contract, run against the JDK's provider ({@link JdkPipeTest}) and uring4j's ({@link UringPipeTest})
 * with the same code. Waits are bounded by generous timeouts only.
 */
abstract class PipeContract extends ClosesAfterEach {
    abstract SelectorProvider provider();

    abstract SelectorProvider otherProvider();

    Pipe pipe() throws IOException {
        Pipe pipe = provider().openPipe();
        closing(pipe.source());
        closing(pipe.sink());
        return pipe;
    }

    private static byte[] pattern(int n) {
        byte[] bytes = new byte[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = (byte) (i * 31 + 7);
        }
        return bytes;
    }

    @Test
    void whatTheSinkWritesTheSourceReads() throws Exception {
        Pipe pipe = pipe();
        for (boolean direct : new boolean[] {false, true}) {
            ByteBuffer src = direct ? ByteBuffer.allocateDirect(100) : ByteBuffer.allocate(100);
            src.put(pattern(100)).flip();
            assertThat(pipe.sink().write(src)).isEqualTo(100);
            ByteBuffer dst = direct ? ByteBuffer.allocateDirect(100) : ByteBuffer.allocate(100);
            while (dst.hasRemaining()) {
                assertThat(pipe.source().read(dst)).isPositive();
            }
            byte[] got = new byte[100];
            dst.flip().get(got);
            assertThat(got).isEqualTo(pattern(100));
        }
    }

    @Test
    void aBlockingWriteLargerThanThePipeWritesEverythingWhileTheReaderReads() throws Exception {
        Pipe pipe = pipe();
        byte[] data = pattern(1 << 20);
        CompletableFuture<Integer> written = CompletableFuture.supplyAsync(() -> {
            try {
                return pipe.sink().write(ByteBuffer.wrap(data));
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        ByteBuffer dst = ByteBuffer.allocate(data.length);
        while (dst.hasRemaining()) {
            assertThat(pipe.source().read(dst)).isPositive();
        }
        assertThat(written.get(30, TimeUnit.SECONDS)).isEqualTo(data.length);
        assertThat(dst.array()).isEqualTo(data);
    }

    @Test
    void aReadAfterTheSinkClosedIsEndOfStreamAndAWriteAfterTheSourceClosedFails() throws Exception {
        Pipe pipe = pipe();
        pipe.sink().write(ByteBuffer.wrap(pattern(5)));
        pipe.sink().close();
        ByteBuffer dst = ByteBuffer.allocate(16);
        assertThat(pipe.source().read(dst)).isEqualTo(5);
        assertThat(pipe.source().read(dst)).isEqualTo(-1);
        Pipe other = pipe();
        other.source().close();
        assertThatThrownBy(() -> other.sink().write(ByteBuffer.wrap(pattern(5))))
                .isInstanceOf(IOException.class).hasMessageContaining("Broken pipe");
        assertThatThrownBy(() -> pipe.sink().write(ByteBuffer.allocate(1))).isInstanceOf(ClosedChannelException.class);
        pipe.source().close();
        assertThatThrownBy(() -> pipe.source().read(dst)).isInstanceOf(ClosedChannelException.class);
    }

    @Test
    void nonBlockingCallsTakeWhatThereIsAndSayWhenThereIsNothing() throws Exception {
        Pipe pipe = pipe();
        pipe.source().configureBlocking(false);
        pipe.sink().configureBlocking(false);
        assertThat(pipe.source().read(ByteBuffer.allocate(8))).isZero();
        ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
        long total = 0;
        int n;
        while ((n = pipe.sink().write(chunk.clear())) > 0) {
            total += n;
        }
        assertThat(total).isPositive();
        ByteBuffer dst = ByteBuffer.allocate(64 * 1024);
        long read = 0;
        while ((n = pipe.source().read(dst.clear())) > 0) {
            read += n;
        }
        assertThat(n).isZero();
        assertThat(read).isEqualTo(total);
    }

    @Test
    void scatteringReadsAndGatheringWritesKeepTheOrder() throws Exception {
        Pipe pipe = pipe();
        byte[] data = pattern(9);
        ByteBuffer[] srcs = {ByteBuffer.wrap(data, 0, 3).slice(), ByteBuffer.allocateDirect(4).put(data, 3, 4).flip(),
            ByteBuffer.wrap(data, 7, 2).slice()};
        assertThat(pipe.sink().write(srcs)).isEqualTo(9);
        assertThat(Arrays.stream(srcs).noneMatch(ByteBuffer::hasRemaining)).isTrue();
        ByteBuffer[] dsts = {ByteBuffer.allocate(2), ByteBuffer.allocateDirect(5), ByteBuffer.allocate(2)};
        long got = 0;
        while (got < 9) {
            got += pipe.source().read(dsts);
        }
        ByteBuffer all = ByteBuffer.allocate(9);
        for (ByteBuffer d : dsts) {
            all.put(d.flip());
        }
        assertThat(all.array()).isEqualTo(data);
    }

    @Test
    void aSelectorReportsTheSourceReadableAndTheSinkWritableUntilFull() throws Exception {
        Selector selector = closing(provider().openSelector());
        Pipe pipe = pipe();
        pipe.source().configureBlocking(false);
        pipe.sink().configureBlocking(false);
        assertThat(pipe.source().validOps()).isEqualTo(SelectionKey.OP_READ);
        assertThat(pipe.sink().validOps()).isEqualTo(SelectionKey.OP_WRITE);
        assertThatThrownBy(() -> pipe.sink().register(selector, SelectionKey.OP_READ))
                .isInstanceOf(IllegalArgumentException.class);
        SelectionKey read = pipe.source().register(selector, SelectionKey.OP_READ);
        SelectionKey write = pipe.sink().register(selector, SelectionKey.OP_WRITE);
        assertThat(selector.select(10_000)).isEqualTo(1);
        assertThat(selector.selectedKeys()).containsExactly(write);
        selector.selectedKeys().clear();
        ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
        while (pipe.sink().write(chunk.clear()) > 0) {
            // fill the pipe
        }
        assertThat(selector.select(10_000)).isEqualTo(1);
        assertThat(selector.selectedKeys()).containsExactly(read);
        selector.selectedKeys().clear();
        while (pipe.source().read(chunk.clear()) > 0) {
            // drain it
        }
        assertThat(selector.select(10_000)).isEqualTo(1);
        assertThat(selector.selectedKeys()).containsExactly(write);
    }

    @Test
    void anotherProvidersSelectorIsRefused() throws Exception {
        Selector foreign = closing(otherProvider().openSelector());
        Pipe pipe = pipe();
        pipe.source().configureBlocking(false);
        assertThatThrownBy(() -> pipe.source().register(foreign, SelectionKey.OP_READ))
                .isInstanceOf(IllegalSelectorException.class);
    }

    @Test
    void closeFromAnotherThreadEndsABlockedRead() throws Exception {
        Pipe pipe = pipe();
        Blocked blocked = blockedOnAVirtualThread(() -> pipe.source().read(ByteBuffer.allocate(8)));
        pipe.source().close();
        assertThat(blocked.failure().get(10, TimeUnit.SECONDS)).isInstanceOf(AsynchronousCloseException.class);
    }

    @Test
    void anInterruptEndsABlockedReadAndClosesTheSource() throws Exception {
        Pipe pipe = pipe();
        Blocked blocked = blockedOnAVirtualThread(() -> pipe.source().read(ByteBuffer.allocate(8)));
        blocked.thread().interrupt();
        assertThat(blocked.failure().get(10, TimeUnit.SECONDS)).isInstanceOf(ClosedByInterruptException.class);
        assertThat(pipe.source().isOpen()).isFalse();
    }

    @Test
    void openedAndClosedPipesLeaveNoDescriptorBehind() throws Exception {
        leavesNoDescriptorBehind(this::openUseAndClose);
    }

    private void openUseAndClose() throws IOException {
        Pipe pipe = provider().openPipe();
        try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
            sink.write(ByteBuffer.wrap(pattern(3)));
            source.read(ByteBuffer.allocate(3));
        }
    }
}
