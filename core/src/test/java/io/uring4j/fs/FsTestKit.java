package io.uring4j.fs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/** Test plumbing for the file layer: FIFOs, native copies, dropping pages from the cache, waiting for a thread to block. */
public final class FsTestKit {
    private static final MethodHandle MKFIFO = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("mkfifo").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));

    private static final int POSIX_FADV_DONTNEED = 4;
    private static final MethodHandle FADVISE = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("posix_fadvise").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final int DROP_ATTEMPTS = 1000;

    private FsTestKit() {
    }

    /**
     * Drops {@code fd}'s clean pages from {@code from} to the end of the file out of the page cache, and makes sure
     * the page at {@code from} went. POSIX_FADV_DONTNEED skips a page that someone holds for a moment (the kernel's
     * reclaim scanners sample pages so), so it is repeated until mincore — a mapping of that page never touched,
     * which does not read it in as a probing read would (readahead) — reports it gone.
     */
    public static void dropFromPageCache(int fd, long from) throws IOException, InterruptedException {
        long page = from & -4096L;
        try (FileChannel file = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.READ);
             Arena arena = Arena.ofConfined()) {
            MemorySegment mapped = file.map(FileChannel.MapMode.READ_ONLY, page, 4096, arena);
            for (int attempt = 0; attempt < DROP_ATTEMPTS; attempt++) {
                assertThat(fadviseDontNeed(fd, from)).as("posix_fadvise DONTNEED").isZero();
                if (!mapped.isLoaded()) {
                    return;
                }
                Thread.sleep(1);
            }
        }
        throw new AssertionError("the page at " + page + " stays cached after " + DROP_ATTEMPTS + " DONTNEEDs");
    }

    /** posix_fadvise(fd, from, to the end, DONTNEED): 0 or an error number (it sets no errno). */
    static int fadviseDontNeed(int fd, long from) {
        try {
            return (int) FADVISE.invokeExact(fd, from, 0L, POSIX_FADV_DONTNEED);
        } catch (Throwable t) {
            throw new AssertionError("posix_fadvise downcall", t);
        }
    }

    /** Creates a FIFO at {@code path}. */
    public static Path mkfifo(Path path) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            int ret = (int) MKFIFO.invokeExact(arena.allocateFrom(path.toString()), 0600);
            assertThat(ret).as("mkfifo(%s)", path).isZero();
        }
        return path;
    }

    static MemorySegment nativeCopy(Arena arena, byte[] bytes) {
        MemorySegment s = arena.allocate(bytes.length, 4096);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, s, 0, bytes.length);
        return s;
    }

    /**
     * Waits until {@code thread} is blocked in I/O: parked in a uring4j blocking call, or inside a native read of
     * the JDK's channels ({@code sun.nio.ch}) — not any native read: a thread loading a class reads its jar so. A
     * state, not a duration, so the test does not depend on the machine's speed; the bound only turns a hang into
     * a failure.
     */
    static void awaitBlocked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!blockedInIo(thread)) {
            assertThat(System.nanoTime() - deadline).as("thread never blocked: " + thread.getState()).isNegative();
            assertThat(thread.isAlive()).as("thread ended before blocking").isTrue();
            Thread.sleep(1);
        }
    }

    private static boolean blockedInIo(Thread thread) {
        StackTraceElement[] stack = thread.getStackTrace();
        return switch (thread.getState()) {
            case WAITING -> java.util.Arrays.stream(stack)
                    .anyMatch(f -> f.getClassName().equals("io.uring4j.runtime.BlockingCall"));
            case RUNNABLE -> stack.length > 0 && stack[0].isNativeMethod() && stack[0].getMethodName().contains("read")
                    && stack[0].getClassName().startsWith("sun.nio.ch.");
            default -> false;
        };
    }

    /**
     * Mounts a tmpfs of {@code size} (e.g. "64k") on {@code dir}; false when that is not allowed here (it needs
     * root, or CAP_SYS_ADMIN). Unmount with {@link #unmount}.
     */
    static boolean mountTmpfs(Path dir, String size) throws InterruptedException {
        return run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString());
    }

    static void unmount(Path dir) throws InterruptedException {
        assertThat(run("umount", dir.toString())).as("umount %s", dir).isTrue();
    }

    private static boolean run(String... command) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** A sized heap copy of a file's content, for comparisons. */
    static byte[] content(Path path) throws IOException {
        return java.nio.file.Files.readAllBytes(path);
    }

    /** This process's open io_uring fds. */
    static long openRings() throws IOException {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(f -> {
                try {
                    return Files.readSymbolicLink(f).toString().equals("anon_inode:[io_uring]");
                } catch (IOException gone) {
                    return false;       // the listing's own fd, closed by now
                }
            }).count();
        }
    }
}
