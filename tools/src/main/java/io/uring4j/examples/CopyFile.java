package io.uring4j.examples;

import io.uring4j.fs.AsyncFile;
import io.uring4j.fs.OpenFlags;
import io.uring4j.fs.UringFiles;
import io.uring4j.runtime.ChainResult;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * Copies a file with linked read→write chains: each chunk is one chain, so its write starts in the kernel the
 * moment its read completes, without a round trip through Java; {@code DEPTH} chains are in flight at once.
 * A short read — only the last chunk has one — breaks its link (the write is cancelled), and that chunk's bytes
 * are written on their own. Run it with {@code ./uring4j example CopyFile [source [target]]}: without a target it
 * writes a new {@code source.copy}; without a source it copies a sample file, both in a fresh private directory
 * that it removes afterwards. A source or target it cannot use is one line naming the file and the errno (exit
 * status 1).
 */
public final class CopyFile {
    private static final int CHUNK = 256 * 1024;
    private static final int DEPTH = 8;
    /** A target named on the command line is replaced, as cp does (through a symlink too). */
    private static final int REPLACE = OpenFlags.O_CREAT | OpenFlags.O_TRUNC;
    /**
     * A target named for the user is created new and never through a symlink: a name that others can guess (in
     * /tmp, say) could already be their symlink to a file of ours.
     */
    private static final int CREATE_NEW = OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_NOFOLLOW;

    private CopyFile() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 2) {
            System.err.println("usage: ./uring4j example CopyFile [source [target]]");
            System.exit(2);
        }
        try {
            if (args.length > 0) {
                Path source = Path.of(args[0]);
                if (args.length > 1) {
                    copy(source, Path.of(args[1]), REPLACE);
                } else {
                    copy(source, source.resolveSibling(source.getFileName() + ".copy"), CREATE_NEW);
                }
            } else {
                copySample();
            }
        } catch (FileSystemException e) {
            System.err.println("CopyFile: " + oneLine(e));
            System.exit(1);
        }
    }

    /** The sample and its copy live in a new directory only this user can enter, removed afterwards. */
    private static void copySample() throws Exception {
        Path dir = Files.createTempDirectory("uring4j-copy");
        Path source = dir.resolve("sample.bin");
        Path target = dir.resolve("sample.copy");
        try {
            sample(source);
            copy(source, target, CREATE_NEW);
        } finally {
            Files.deleteIfExists(target);
            Files.deleteIfExists(source);
            Files.delete(dir);
        }
    }

    private static void copy(Path source, Path target, int createFlags) throws Exception {
        try (Uring uring = Uring.builder().loops(1).build(); Arena arena = Arena.ofShared()) {
            UringFiles files = UringFiles.of(uring);
            if (files.stat(source).isDirectory()) {      // it would open, and each read fail with EISDIR
                throw (FileSystemException) new FileSystemException(source.toString(), null,
                        Errno.describe(Errno.EISDIR)).initCause(new ErrnoException("open " + source, Errno.EISDIR));
            }
            long start = System.nanoTime();
            long size;
            try (AsyncFile in = files.open(source, OpenFlags.O_RDONLY);
                 AsyncFile out = files.open(target, OpenFlags.O_WRONLY | createFlags)) {
                size = in.size();
                MemorySegment[] buffers = new MemorySegment[DEPTH];
                for (int i = 0; i < DEPTH; i++) {
                    buffers[i] = arena.allocate(CHUNK, 4096);
                }
                for (long window = 0; window < size; window += (long) DEPTH * CHUNK) {
                    List<CompletableFuture<ChainResult>> chains = new ArrayList<>();
                    for (int i = 0; i < DEPTH && window + (long) i * CHUNK < size; i++) {
                        long offset = window + (long) i * CHUNK;
                        chains.add(uring.loop().chain(Op.read(in.fd(), buffers[i], offset))
                                .then(Op.write(out.fd(), buffers[i], offset)).submitAsync());
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
    private static void sample(Path path) throws Exception {
        byte[] bytes = new byte[20 * 1024 * 1024 + 12345];
        new Random(42).nextBytes(bytes);
        Files.write(path, bytes, StandardOpenOption.CREATE_NEW);
    }

    /** {@code /path: ENOENT (No such file or directory)}: the file and the errno of a failed file operation. */
    private static String oneLine(FileSystemException e) {
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof ErrnoException x) {
                return e.getFile() + ": " + x.errnoName() + " (" + Errno.describe(x.errno()) + ")";
            }
        }
        return e.getMessage();
    }
}
