package io.uring4j.examples;

import io.uring4j.runtime.ChainResult;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * The runtime's three styles — callbacks, futures, blocking calls on virtual threads — plus a linked chain.
 * Run it with {@code ./uring4j example RuntimeTour}.
 */
public final class RuntimeTour {
    private RuntimeTour() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Files.writeString(Files.createTempFile("uring4j-tour", ".txt"), "io_uring from Java");
        try (Uring uring = Uring.builder().loops(2).build(); Arena arena = Arena.ofShared()) {
            int fd = LibC.open(file.toString(), LibC.O_RDWR, 0);

            // 1. Callbacks: run on the loop thread; a handler kept in a field is reused without allocation.
            CountDownLatch done = new CountDownLatch(1);
            CompletionHandler handler = (result, flags) -> {
                System.out.println("callback on " + Thread.currentThread().getName() + ": nop -> " + result);
                done.countDown();
            };
            uring.submit(Op.nop(42), handler);
            done.await();

            // 2. Futures: typed results, or an exception naming the opcode and errno.
            MemorySegment buffer = arena.allocate(64);
            int n = uring.submitAsync(Op.read(fd, buffer, 0)).join();
            System.out.println("future: read " + n + " bytes: " + buffer.getString(0, StandardCharsets.UTF_8));
            uring.submitAsync(Op.read(-1, buffer, 0))
                    .exceptionally(e -> { System.out.println("future failed: " + e.getMessage()); return -1; })
                    .join();

            // 3. Blocking calls: a virtual thread parks until the CQE; no carrier is held meanwhile.
            Thread vt = Thread.ofVirtual().start(() -> {
                try {
                    uring.call(Op.timeout(Duration.ofMillis(5)));
                    System.out.println("virtual thread: slept 5 ms on an io_uring timer");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            vt.join();

            // 4. A chain: write, then fsync only if the write succeeded; each step reports its own result.
            EventLoop loop = uring.loop();
            MemorySegment text = arena.allocateFrom("linked!", StandardCharsets.UTF_8);
            ChainResult chain = loop.chain(Op.write(fd, text.asSlice(0, 7), 0)).then(Op.fsync(fd)).call();
            System.out.println("chain: " + chain);
            System.out.println("loop 0: " + uring.loop(0).stats());
            LibC.close(fd);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
