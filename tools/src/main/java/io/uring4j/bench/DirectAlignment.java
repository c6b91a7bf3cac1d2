package io.uring4j.bench;

import io.uring4j.fs.Statx;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.IoUring;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The offset and length alignment an O_DIRECT read of a file or block device needs: statx's STATX_DIOALIGN
 * (Linux 6.1; block devices from 6.11), else a block device's logical block size from sysfs. A read of a
 * preallocated file's unwritten extents ignores it, so the benchmark checks it before it starts rather than
 * measuring reads the device would refuse.
 */
final class DirectAlignment {
    private DirectAlignment() {
    }

    /** The alignment in bytes; 0 when the kernel does not say (or the file cannot do O_DIRECT: its open says so). */
    static int of(Path path) throws IOException {
        Statx s = statx(path);
        if (s.has(Statx.DIOALIGN) && s.dioOffsetAlign() > 0) {
            return s.dioOffsetAlign();
        }
        if ((s.mode() & LibC.S_IFMT) == LibC.S_IFBLK) {
            Path dev = Path.of("/sys/dev/block", s.rdevMajor() + ":" + s.rdevMinor());
            for (Path queue : new Path[] {dev.resolve("queue"), dev.resolve("../queue")}) {  // a partition: its disk's
                Path size = queue.resolve("logical_block_size");
                if (Files.isReadable(size)) {
                    return Integer.parseInt(Files.readString(size).strip());
                }
            }
        }
        return 0;
    }

    private static Statx statx(Path path) throws IOException {
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(2)) {
            MemorySegment buf = arena.allocate(Statx.BYTES, 8);
            ring.sq().next().prepStatx(LibC.AT_FDCWD, arena.allocateFrom(path.toString()), 0,
                    Statx.TYPE | Statx.MODE | Statx.DIOALIGN, buf);
            ring.submitAndWait(1);
            Cqe cqe = ring.cq().peek();
            int res = cqe.res();
            ring.cq().seen(cqe);
            if (res < 0) {
                throw new ErrnoException("statx " + path, res);
            }
            return Statx.decode(buf);
        }
    }
}
