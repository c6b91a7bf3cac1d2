package io.uring4j.sys;

/**
 * Linux errno values (x86-64 / aarch64 / asm-generic numbering) with their symbolic names, so that every error
 * the library reports says {@code EBADF}, not {@code -9}.
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int E2BIG = 7;
    public static final int EBADF = 9;
    public static final int ECHILD = 10;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EXDEV = 18;
    public static final int ENODEV = 19;
    public static final int ENOTDIR = 20;
    public static final int EISDIR = 21;
    public static final int EINVAL = 22;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;
    public static final int ENOTTY = 25;
    public static final int ETXTBSY = 26;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int ESPIPE = 29;
    public static final int EROFS = 30;
    public static final int EMLINK = 31;
    public static final int EPIPE = 32;
    public static final int ERANGE = 34;
    public static final int ENAMETOOLONG = 36;
    public static final int ENOSYS = 38;
    public static final int ENOTEMPTY = 39;
    public static final int ELOOP = 40;
    public static final int ENODATA = 61;
    public static final int ETIME = 62;
    public static final int EOVERFLOW = 75;
    public static final int EBADFD = 77;
    public static final int EBADR = 53;
    public static final int ENOTSOCK = 88;
    public static final int EDESTADDRREQ = 89;
    public static final int EMSGSIZE = 90;
    public static final int EPROTOTYPE = 91;
    public static final int ENOPROTOOPT = 92;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EOPNOTSUPP = 95;
    public static final int EAFNOSUPPORT = 97;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETUNREACH = 101;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int EISCONN = 106;
    public static final int ENOTCONN = 107;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int EDQUOT = 122;
    public static final int ECANCELED = 125;
    public static final int EOWNERDEAD = 130;
    /**
     * The kernel's internal "restart the system call" codes, never seen by a process's own system calls: a signal
     * handler's return turns them into a restart or EINTR. A request that one of io_uring's workers ran and that
     * was interrupted (a cancel signals the worker) can complete with one of them.
     */
    public static final int ERESTARTSYS = 512;
    public static final int ERESTARTNOINTR = 513;
    public static final int ERESTARTNOHAND = 514;
    public static final int ERESTART_RESTARTBLOCK = 516;

    private static final String[] NAMES = new String[ERESTART_RESTARTBLOCK + 1];
    private static final String[] TEXTS = new String[ERESTART_RESTARTBLOCK + 1];

    static {
        name(EPERM, "EPERM", "Operation not permitted");
        name(ENOENT, "ENOENT", "No such file or directory");
        name(ESRCH, "ESRCH", "No such process");
        name(EINTR, "EINTR", "Interrupted system call");
        name(EIO, "EIO", "Input/output error");
        name(ENXIO, "ENXIO", "No such device or address");
        name(E2BIG, "E2BIG", "Argument list too long");
        name(EBADF, "EBADF", "Bad file descriptor");
        name(ECHILD, "ECHILD", "No child processes");
        name(EAGAIN, "EAGAIN", "Resource temporarily unavailable");
        name(ENOMEM, "ENOMEM", "Cannot allocate memory");
        name(EACCES, "EACCES", "Permission denied");
        name(EFAULT, "EFAULT", "Bad address");
        name(EBUSY, "EBUSY", "Device or resource busy");
        name(EEXIST, "EEXIST", "File exists");
        name(EXDEV, "EXDEV", "Invalid cross-device link");
        name(ENODEV, "ENODEV", "No such device");
        name(ENOTDIR, "ENOTDIR", "Not a directory");
        name(EISDIR, "EISDIR", "Is a directory");
        name(EINVAL, "EINVAL", "Invalid argument");
        name(ENFILE, "ENFILE", "Too many open files in system");
        name(EMFILE, "EMFILE", "Too many open files");
        name(ENOTTY, "ENOTTY", "Inappropriate ioctl for device");
        name(EFBIG, "EFBIG", "File too large");
        name(ENOSPC, "ENOSPC", "No space left on device");
        name(ESPIPE, "ESPIPE", "Illegal seek");
        name(ETXTBSY, "ETXTBSY", "Text file busy");
        name(EROFS, "EROFS", "Read-only file system");
        name(EMLINK, "EMLINK", "Too many links");
        name(EPIPE, "EPIPE", "Broken pipe");
        name(ERANGE, "ERANGE", "Numerical result out of range");
        name(ENAMETOOLONG, "ENAMETOOLONG", "File name too long");
        name(ENOSYS, "ENOSYS", "Function not implemented");
        name(ENOTEMPTY, "ENOTEMPTY", "Directory not empty");
        name(ELOOP, "ELOOP", "Too many levels of symbolic links");
        name(EBADR, "EBADR", "Invalid request descriptor");
        name(ENODATA, "ENODATA", "No data available");
        name(ETIME, "ETIME", "Timer expired");
        name(EOVERFLOW, "EOVERFLOW", "Value too large for defined data type");
        name(EBADFD, "EBADFD", "File descriptor in bad state");
        name(ENOTSOCK, "ENOTSOCK", "Socket operation on non-socket");
        name(EDESTADDRREQ, "EDESTADDRREQ", "Destination address required");
        name(EMSGSIZE, "EMSGSIZE", "Message too long");
        name(EPROTOTYPE, "EPROTOTYPE", "Protocol wrong type for socket");
        name(ENOPROTOOPT, "ENOPROTOOPT", "Protocol not available");
        name(EPROTONOSUPPORT, "EPROTONOSUPPORT", "Protocol not supported");
        name(EOPNOTSUPP, "EOPNOTSUPP", "Operation not supported");
        name(EAFNOSUPPORT, "EAFNOSUPPORT", "Address family not supported by protocol");
        name(EADDRINUSE, "EADDRINUSE", "Address already in use");
        name(EADDRNOTAVAIL, "EADDRNOTAVAIL", "Cannot assign requested address");
        name(ENETUNREACH, "ENETUNREACH", "Network is unreachable");
        name(ECONNABORTED, "ECONNABORTED", "Software caused connection abort");
        name(ECONNRESET, "ECONNRESET", "Connection reset by peer");
        name(ENOBUFS, "ENOBUFS", "No buffer space available");
        name(EISCONN, "EISCONN", "Transport endpoint is already connected");
        name(ENOTCONN, "ENOTCONN", "Transport endpoint is not connected");
        name(ETIMEDOUT, "ETIMEDOUT", "Connection timed out");
        name(ECONNREFUSED, "ECONNREFUSED", "Connection refused");
        name(EHOSTUNREACH, "EHOSTUNREACH", "No route to host");
        name(EALREADY, "EALREADY", "Operation already in progress");
        name(EINPROGRESS, "EINPROGRESS", "Operation now in progress");
        name(EDQUOT, "EDQUOT", "Disk quota exceeded");
        name(ECANCELED, "ECANCELED", "Operation canceled");
        name(EOWNERDEAD, "EOWNERDEAD", "Owner died");
        name(ERESTARTSYS, "ERESTARTSYS", "Interrupted system call (the kernel's restart code)");
        name(ERESTARTNOINTR, "ERESTARTNOINTR", "Interrupted system call (the kernel's restart code)");
        name(ERESTARTNOHAND, "ERESTARTNOHAND", "Interrupted system call (the kernel's restart code)");
        name(ERESTART_RESTARTBLOCK, "ERESTART_RESTARTBLOCK", "Interrupted system call (the kernel's restart code)");
    }

    private Errno() {
    }

    private static void name(int errno, String name, String text) {
        NAMES[errno] = name;
        TEXTS[errno] = text;
    }

    /** The symbolic name of an errno value; accepts {@code -errno} as well. Unknown values read {@code errno 200}. */
    public static String name(int errno) {
        int e = Math.abs(errno);
        return e < NAMES.length && NAMES[e] != null ? NAMES[e] : "errno " + e;
    }

    /** strerror-like text for an errno value; accepts {@code -errno} as well. */
    public static String describe(int errno) {
        int e = Math.abs(errno);
        return e < TEXTS.length && TEXTS[e] != null ? TEXTS[e] : "Unknown error " + e;
    }
}
