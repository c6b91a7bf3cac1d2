package io.uring4j.bench;

/** The benchmark cannot go on; the message says why and, where possible, what to do. Exit status 1. */
final class BenchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BenchException(String message) {
        super(message);
    }

    BenchException(String message, Throwable cause) {
        super(message, cause);
    }
}
