package io.uring4j.net;

import io.uring4j.runtime.ChainResult;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/**
 * Socket errnos as the exceptions the JDK's own sockets throw, so code ported from {@code java.net} /
 * {@code java.nio.channels} keeps its {@code catch} clauses; the {@link ErrnoException} with the op and errno is
 * kept as the cause. Messages follow the JDK's ("Connection refused", "Connection reset").
 */
final class NetErrors {
    private NetErrors() {
    }

    /** The exception for {@code op} failing with {@code result} ({@code -errno}). */
    static IOException of(String op, int result) {
        ErrnoException cause = new ErrnoException(op, result);
        IOException e = switch (-result) {
            case Errno.ECONNREFUSED -> new ConnectException("Connection refused");
            case Errno.ETIMEDOUT -> new ConnectException("Connection timed out");
            case Errno.ENETUNREACH, Errno.EHOSTUNREACH -> new NoRouteToHostException("No route to host");
            case Errno.EADDRINUSE -> new BindException("Address already in use");
            case Errno.EADDRNOTAVAIL -> new BindException("Cannot assign requested address");
            case Errno.ECONNRESET -> new SocketException("Connection reset");
            case Errno.EPIPE -> new SocketException("Broken pipe");
            case Errno.ENOTCONN -> new SocketException("Socket is not connected");
            default -> null;
        };
        if (e == null) {
            return cause;
        }
        e.initCause(cause);
        return e;
    }

    /**
     * A failed recv or send as the JDK's SocketChannel reports it: a reset read is SocketException "Connection
     * reset"; anything else, reads and writes, an IOException with the strerror text ("Broken pipe", "Connection
     * reset by peer"). The ErrnoException, naming the operation, is the cause.
     */
    static IOException transfer(String what, ErrnoException e) {
        IOException failure = what.equals("recv") && e.errno() == Errno.ECONNRESET
                ? new SocketException("Connection reset") : new IOException(Errno.describe(e.errno()));
        failure.initCause(e);
        return failure;
    }

    /** Whether step 0 of a request-plus-LINK_TIMEOUT chain was cut short by the timeout (step 1 fired). */
    static boolean timedOut(ChainResult r) {
        return r.result(1) == -Errno.ETIME && (r.result(0) == -Errno.ECANCELED || r.result(0) == -Errno.EINTR);
    }

    /** A connect that its link timeout cut short. */
    static SocketTimeoutException connectTimedOut(long millis) {
        return new SocketTimeoutException("Connect timed out after " + millis + " ms");
    }

    /**
     * A socket option the kernel refused, as the JDK's channels report one: a SocketException in the errno's
     * words ("Invalid argument"), whose cause, an ErrnoException, names {@code call} and the errno.
     */
    static SocketException refusedOption(String call, int result) {
        SocketException e = new SocketException(Errno.describe(-result));
        e.initCause(new ErrnoException(call, result));
        return e;
    }

    /** An operation ended because the socket was closed (by another thread, or with the runtime). */
    static SocketException closed() {
        return new SocketException("Socket closed");
    }
}
