package io.uring4j.fs;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Errors of path operations as {@code java.nio.file} reports them — the same classes and messages as the JDK's
 * own translation (EACCES → {@link AccessDeniedException}, ENOENT → {@link NoSuchFileException}, EEXIST →
 * {@link FileAlreadyExistsException}, anything else a {@link FileSystemException} with the strerror text), with
 * the {@link ErrnoException} that names the io_uring opcode as the cause.
 */
final class FileErrors {
    private FileErrors() {
    }

    /** {@code e} translated for {@code file} (and {@code other}, the second path of a rename or link, or null). */
    static IOException translate(ErrnoException e, Path file, Path other) {
        String a = file == null ? null : file.toString();
        String b = other == null ? null : other.toString();
        FileSystemException x = switch (e.errno()) {
            case Errno.EACCES -> new AccessDeniedException(a, b, null);
            case Errno.ENOENT -> new NoSuchFileException(a, b, null);
            case Errno.EEXIST -> new FileAlreadyExistsException(a, b, null);
            case Errno.ELOOP -> new FileSystemException(a, b,
                    Errno.describe(Errno.ELOOP) + " or unable to access attributes of symbolic link");
            default -> new FileSystemException(a, b, Errno.describe(e.errno()));
        };
        x.initCause(e);
        return x;
    }

    /** A future's failure, translated when it is an errno; other failures are returned as they are. */
    static Throwable translate(Throwable failure, Path file, Path other) {
        Throwable cause = unwrap(failure);
        return cause instanceof ErrnoException e ? translate(e, file, other) : cause;
    }

    /** The failure inside a {@link CompletionException} or {@link ExecutionException}. */
    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
