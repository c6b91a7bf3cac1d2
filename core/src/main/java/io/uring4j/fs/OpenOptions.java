package io.uring4j.fs;

import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * {@code java.nio.file} open options as open(2) flags, with the JDK's rules ({@code UnixChannelFactory}): no
 * READ nor WRITE means READ (APPEND alone means WRITE); READ + APPEND and APPEND + TRUNCATE_EXISTING are refused;
 * CREATE, CREATE_NEW and TRUNCATE_EXISTING count only when writing; DELETE_ON_CLOSE does not follow links and
 * unlinks right after the open; SPARSE is ignored.
 */
record OpenOptions(boolean read, boolean write, boolean append, boolean truncateExisting, boolean create,
                   boolean createNew, boolean deleteOnClose, boolean sync, boolean dsync, boolean direct,
                   boolean noFollowLinks) {

    static OpenOptions parse(Set<? extends OpenOption> options) {
        boolean read = false, write = false, append = false, truncate = false, create = false, createNew = false;
        boolean deleteOnClose = false, sync = false, dsync = false, direct = false, noFollow = false;
        for (OpenOption option : options) {
            switch (option) {
                case StandardOpenOption s -> {
                    switch (s) {
                        case READ -> read = true;
                        case WRITE -> write = true;
                        case APPEND -> append = true;
                        case TRUNCATE_EXISTING -> truncate = true;
                        case CREATE -> create = true;
                        case CREATE_NEW -> createNew = true;
                        case DELETE_ON_CLOSE -> deleteOnClose = true;
                        case SPARSE -> { }
                        case SYNC -> sync = true;
                        case DSYNC -> dsync = true;
                    }
                }
                case LinkOption l when l == LinkOption.NOFOLLOW_LINKS -> noFollow = true;
                case UringOpenOption u when u == UringOpenOption.DIRECT -> direct = true;
                case null -> throw new NullPointerException();
                default -> {
                    if (isJdkDirect(option)) {
                        direct = true;
                    } else {
                        throw new UnsupportedOperationException(option + " not supported");
                    }
                }
            }
        }
        if (!read && !write) {
            if (append) {
                write = true;
            } else {
                read = true;
            }
        }
        if (read && append) {
            throw new IllegalArgumentException("READ + APPEND not allowed");
        }
        if (append && truncate) {
            throw new IllegalArgumentException("APPEND + TRUNCATE_EXISTING not allowed");
        }
        return new OpenOptions(read, write, append, truncate, create, createNew, deleteOnClose, sync, dsync, direct,
                noFollow);
    }

    /**
     * {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, recognised by name: that enum lives in module
     * {@code jdk.unsupported}, which this module does not require (it also holds {@code sun.misc.Unsafe}).
     */
    private static boolean isJdkDirect(OpenOption option) {
        return option instanceof Enum<?> e && e.name().equals("DIRECT")
                && e.getDeclaringClass().getName().equals("com.sun.nio.file.ExtendedOpenOption");
    }

    /** The open(2) flags, as the JDK computes them. */
    int flags() {
        int flags = read && write ? OpenFlags.O_RDWR : write ? OpenFlags.O_WRONLY : OpenFlags.O_RDONLY;
        if (write) {
            if (truncateExisting) {
                flags |= OpenFlags.O_TRUNC;
            }
            if (append) {
                flags |= OpenFlags.O_APPEND;
            }
            if (createNew) {
                flags |= OpenFlags.O_CREAT | OpenFlags.O_EXCL;
            } else if (create) {
                flags |= OpenFlags.O_CREAT;
            }
        }
        if (!createNew && (noFollowLinks || deleteOnClose)) {
            flags |= OpenFlags.O_NOFOLLOW;
        }
        if (dsync) {
            flags |= OpenFlags.O_DSYNC;
        }
        if (sync) {
            flags |= OpenFlags.O_SYNC;
        }
        if (direct) {
            flags |= OpenFlags.O_DIRECT;
        }
        return flags;
    }

    /** Whether symbolic links are not followed (which changes the JDK's ELOOP message). */
    boolean followsLinks() {
        return (flags() & OpenFlags.O_NOFOLLOW) == 0;
    }

    /** The mode of a created file: {@code posix:permissions} from the attributes, else rw for all (minus umask). */
    @SuppressWarnings("unchecked")
    static int mode(FileAttribute<?>... attrs) {
        int mode = OpenFlags.DEFAULT_FILE_MODE;
        for (FileAttribute<?> attr : attrs) {
            String name = attr.name();
            if (!name.equals("posix:permissions") && !name.equals("unix:permissions")) {
                throw new UnsupportedOperationException("'" + name + "' not supported as initial attribute");
            }
            mode = 0;
            for (PosixFilePermission p : (Set<PosixFilePermission>) attr.value()) {
                mode |= 0400 >> p.ordinal();   // the enum runs OWNER_READ .. OTHERS_EXECUTE, one bit each
            }
        }
        return mode;
    }
}
