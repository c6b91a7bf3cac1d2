package io.uring4j.net;

import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;

import java.io.IOException;

/** A connected socket's shutdowns, as the JDK's channels keep them: each side once, and shut for good. */
final class HalfClose {
    private volatile boolean inputShut;
    private volatile boolean outputShut;

    boolean inputShut() {
        return inputShut;
    }

    boolean outputShut() {
        return outputShut;
    }

    /** shutdown(SHUT_RD) once; as the JDK's, a reset connection has nothing to shut (ENOTCONN is fine). */
    void shutdownInput(int fd) throws IOException {
        if (!inputShut) {
            shutdown(fd, Sockets.SHUT_RD);
            inputShut = true;
        }
    }

    /** shutdown(SHUT_WR) once. */
    synchronized void shutdownOutput(int fd) throws IOException {
        if (!outputShut) {
            shutdown(fd, Sockets.SHUT_WR);
            outputShut = true;
        }
    }

    /**
     * Whether the output is shut down, once a shutdown under way has finished: the send it fails (EPIPE) may end
     * before {@link #shutdownOutput} has set the flag.
     */
    synchronized boolean outputShutDown() {
        return outputShut;
    }

    private static void shutdown(int fd, int how) throws IOException {
        int ret = Sockets.shutdown(fd, how);
        if (ret < 0 && ret != -Errno.ENOTCONN) {
            throw NetErrors.of("shutdown", ret);
        }
    }
}
