package io.uring4j.examples;

import io.uring4j.ring.Cqe;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Timespec;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A tour of the ring core: open a file, write to it and read it back with one linked chain, then a timeout.
 * Run it with {@code ./uring4j example}.
 */
public final class Hello {
    private Hello() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Files.createTempFile("uring4j-hello", ".txt");
        try (IoUring ring = IoUring.builder().entries(8).build();
             Arena arena = Arena.ofConfined()) {
            System.out.println("ring: " + ring);
            System.out.println("kernel has SEND_ZC: " + ring.register().probe().isSupported(Opcode.SEND_ZC));

            int fd = LibC.open(file.toString(), LibC.O_RDWR, 0);
            MemorySegment text = arena.allocateFrom("hello, io_uring", StandardCharsets.UTF_8);
            MemorySegment out = text.asSlice(0, text.byteSize() - 1);      // without the NUL
            MemorySegment in = arena.allocate(text.byteSize());                // zeroed: NUL-terminated

            // write → fsync → read, linked: each starts when the previous one succeeded.
            ring.sq().next().prepWrite(fd, out, 0).userData(1).link();
            ring.sq().next().prepFsync(fd, 0).userData(2).link();
            ring.sq().next().prepRead(fd, in, 0).userData(3);
            ring.submitAndWait(3);
            ring.cq().drain(cqe -> System.out.println("  " + cqe));
            System.out.println("read back: \"" + in.getString(0, StandardCharsets.UTF_8) + "\"");

            // A 10 ms timeout completes with -ETIME.
            ring.sq().next().prepTimeout(Timespec.allocate(arena, 10_000_000L), 0, 0).userData(4);
            ring.submit();
            Cqe cqe = ring.waitCqe();
            System.out.println("timeout: user_data=" + cqe.userData() + " res=" + Errno.name(cqe.res()));
            ring.cq().seen(cqe);
            LibC.close(fd);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
