package io.uring4j.examples;

import io.uring4j.fs.AsyncFile;
import io.uring4j.fs.OpenFlags;
import io.uring4j.fs.UringFiles;
import io.uring4j.runtime.ChainResult;
import io.uring4j.runtime.Ops;
import io.uring4j.runtime.Uring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * Copies a file with linked read→write chains: each chunk is one chain, so its write starts in the kernel the
 * moment its read completes, without a round trip through Java; {@code DEPTH} chains are in flight at once.
 * A short read — only the last chunk has one — breaks its link (the write is cancelled), and that chunk's bytes
 * are written on their own. Run it with {@code ./uring4j example CopyFile [source [target]]}.
 */
public final class CopyFile {
    private static final int CHUNK = 256 * 1024;
    private static final int DEPTH = 8;

    private CopyFile() {
    }

    public static void main(String[] args) throws Exception {
        Path source = args.length > 0 ? Path.of(args[0]) : sample();
        Path target = args.length > 1 ? Path.of(args[1]) : source.resolveSibling(source.getFileName() + ".copy");
        try (Uring uring = Uring.builder().loops(1).build(); Arena arena = Arena.ofShared()) {
            UringFiles files = UringFiles.of(uring);
            long start = System.nanoTime();
            long size;
            try (AsyncFile in = files.open(source, OpenFlags.O_RDONLY);
                 AsyncFile out = files.open(target, OpenFlags.O_WRONLY | OpenFlags.O_CREAT | OpenFlags.O_TRUNC)) {
                size = in.size();
                MemorySegment[] buffers = new MemorySegment[DEPTH];
                for (int i = 0; i < DEPTH; i++) {
                    buffers[i] = arena.allocate(CHUNK, 4096);
                }
                for (long window = 0; window < size; window += (long) DEPTH * CHUNK) {
                    List<CompletableFuture<ChainResult>> chains = new ArrayList<>();
                    for (int i = 0; i < DEPTH && window + (long) i * CHUNK < size; i++) {
                        long offset = window + (long) i * CHUNK;
                        chains.add(uring.loop().chain(Ops.read(in.fd(), buffers[i], offset))
                                .then(Ops.write(out.fd(), buffers[i], offset)).submitAsync());
                    }
                    for (int i = 0; i < chains.size(); i++) {
                        ChainResult r = chains.get(i).join();
                        int read = r.result(0);
                        if (read < 0) {
                            throw new IllegalStateException("read failed: " + r);
                        }
                        if (read < CHUNK) {             // the link broke: write what was read
                            long offset = window + (long) i * CHUNK;
                            out.write(buffers[i].asSlice(0, read), offset);
                        } else if (r.result(1) != CHUNK) {
                            throw new IllegalStateException("write failed: " + r);
                        }
                    }
                }
                out.fsync();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("copied %,d bytes %s -> %s in %.3f s (%.0f MiB/s); identical: %b%n", size, source,
                    target, seconds, size / seconds / (1 << 20), Files.mismatch(source, target) == -1);
        }
    }

    /** A 20 MiB file with a ragged end, so the last chain has a short read. */
    private static Path sample() throws Exception {
        byte[] bytes = new byte[20 * 1024 * 1024 + 12345];
        new Random(42).nextBytes(bytes);
        Path p = Files.createTempFile("uring4j-copy", ".bin");
        p.toFile().deleteOnExit();
        Path.of(p + ".copy").toFile().deleteOnExit();
        return Files.write(p, bytes);
    }
}
