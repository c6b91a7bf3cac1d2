package io.uring4j.fs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Paths as the kernel reads them: NUL-terminated bytes in native memory. Each path gets its own memory from an
 * automatic arena, so it lives exactly as long as the op that holds it — which the runtime keeps until the
 * request's final CQE — and never in the caller's frame.
 */
final class NativePath {
    /** The JDK encodes file names with {@code sun.jnu.encoding}; so do we, so both name the same file. */
    private static final Charset ENCODING = encoding();

    /** The empty path, for AT_EMPTY_PATH requests on an fd; read-only for the kernel, so one copy serves all. */
    static final MemorySegment EMPTY = Arena.global().allocate(1);

    private NativePath() {
    }

    /** {@code path} as a NUL-terminated native string; the empty path means the current directory, as in the JDK. */
    static MemorySegment of(Path path) {
        return of(path, Arena.ofAuto());
    }

    /** {@code path} in {@code arena}'s memory, for a call made in place that the arena outlives. */
    static MemorySegment of(Path path, Arena arena) {
        if (!"file".equals(path.getFileSystem().provider().getScheme())) {
            throw new ProviderMismatchException("not a path of the local file system: " + path);
        }
        String name = path.toString();
        byte[] bytes = (name.isEmpty() ? "." : name).getBytes(ENCODING);
        MemorySegment segment = arena.allocate(bytes.length + 1L);     // zeroed: the NUL is there
        MemorySegment.copy(bytes, 0, segment, JAVA_BYTE, 0, bytes.length);
        return segment;
    }

    private static Charset encoding() {
        String name = System.getProperty("sun.jnu.encoding");
        try {
            return name == null ? StandardCharsets.UTF_8 : Charset.forName(name);
        } catch (IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }
}
