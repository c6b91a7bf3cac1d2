package io.uring4j.fs;

/**
 * {@code open(2)} flags and the permission bits of a new file. Most values are the same on every Linux
 * architecture; O_DIRECT, O_DIRECTORY, O_NOFOLLOW and O_LARGEFILE are the asm-generic values except on
 * AArch64, whose {@code fcntl.h} swaps them around — so those four are chosen by {@code os.arch}.
 */
public final class OpenFlags {
    private static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));

    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0x40;
    public static final int O_EXCL = 0x80;
    public static final int O_NOCTTY = 0x100;
    public static final int O_TRUNC = 0x200;
    public static final int O_APPEND = 0x400;
    public static final int O_NONBLOCK = 0x800;
    public static final int O_DSYNC = 0x1000;
    public static final int O_DIRECT = AARCH64 ? 0x10000 : 0x4000;
    public static final int O_LARGEFILE = AARCH64 ? 0x20000 : 0x8000;
    public static final int O_DIRECTORY = AARCH64 ? 0x4000 : 0x10000;
    public static final int O_NOFOLLOW = AARCH64 ? 0x8000 : 0x20000;
    public static final int O_NOATIME = 0x40000;
    public static final int O_CLOEXEC = 0x80000;
    /** O_SYNC includes O_DSYNC, as in the kernel's {@code __O_SYNC | O_DSYNC}. */
    public static final int O_SYNC = 0x100000 | O_DSYNC;
    public static final int O_PATH = 0x200000;
    /** An unnamed file in the directory given as path; needs O_WRONLY or O_RDWR. */
    public static final int O_TMPFILE = 0x400000 | O_DIRECTORY;

    /** The access mode bits of a flags word (O_RDONLY, O_WRONLY or O_RDWR). */
    public static final int O_ACCMODE = 3;

    /** The mode the JDK gives new files when no permissions are asked for: rw for all, minus the umask. */
    public static final int DEFAULT_FILE_MODE = 0666;
    /** The same for new directories. */
    public static final int DEFAULT_DIRECTORY_MODE = 0777;

    private OpenFlags() {
    }

    /** Whether {@code flags} open for reading. */
    public static boolean readable(int flags) {
        return (flags & O_ACCMODE) != O_WRONLY;
    }

    /** Whether {@code flags} open for writing. */
    public static boolean writable(int flags) {
        return (flags & O_ACCMODE) != O_RDONLY;
    }
}
