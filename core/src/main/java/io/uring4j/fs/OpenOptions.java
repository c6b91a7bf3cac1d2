package io.uring4j.fs;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * {@code java.nio.file} open options as open(2) flags, with the JDK's rules ({@code UnixChannelFactory}): the
 * defaults and refusals of each channel kind ({@link #forFileChannel}, {@link #forAsynchronousChannel}); CREATE,
 * CREATE_NEW and TRUNCATE_EXISTING count only when writing; DELETE_ON_CLOSE does not follow links and unlinks
 * right after the open; SPARSE is ignored.
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
        return new OpenOptions(read, write, append, truncate, create, createNew, deleteOnClose, sync, dsync, direct,
                noFollow);
    }

    /** FileChannel's rules: neither READ nor WRITE means READ, or WRITE with APPEND; two combinations refused. */
    OpenOptions forFileChannel() {
        boolean r = read || (!write && !append);
        boolean w = write || (!read && append);
        if (r && append) {
            throw new IllegalArgumentException("READ + APPEND not allowed");
        }
        if (append && truncateExisting) {
            throw new IllegalArgumentException("APPEND + TRUNCATE_EXISTING not allowed");
        }
        return with(r, w);
    }

    /** AsynchronousFileChannel's rules: neither READ nor WRITE means READ; APPEND is not supported. */
    OpenOptions forAsynchronousChannel() {
        if (append) {
            throw new UnsupportedOperationException("APPEND not allowed");
        }
        return with(read || !write, write);
    }

    private OpenOptions with(boolean r, boolean w) {
        return new OpenOptions(r, w, append, truncateExisting, create, createNew, deleteOnClose, sync, dsync, direct,
                noFollowLinks);
    }

    /**
     * {@code com.sun.nio.file.ExtendedOpenOption.DIRECT} itself, for opening the JDK's channels O_DIRECT, looked up
     * by name as below; null where module {@code jdk.unsupported} is not in the boot layer.
     */
    static final OpenOption JDK_DIRECT = jdkDirect();

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static OpenOption jdkDirect() {
        try {
            return (OpenOption) Enum.valueOf((Class) Class.forName("com.sun.nio.file.ExtendedOpenOption"), "DIRECT");
        } catch (ReflectiveOperationException | LinkageError | IllegalArgumentException e) {
            return null;
        }
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

    /** Whether symbolic links are followed (if not, the JDK's ELOOP message says so). */
    private boolean followsLinks() {
        return (flags() & OpenFlags.O_NOFOLLOW) == 0;
    }

    /**
     * Opens {@code path} with these options as the JDK's channel factory does: CREATE_NEW of "." is EEXIST up
     * front, CREATE_NEW of a directory is EEXIST rather than EISDIR, ELOOP under NOFOLLOW_LINKS says so, and
     * DELETE_ON_CLOSE unlinks right after the open (best effort).
     */
    AsyncFile open(UringFiles files, Path path, int mode) throws IOException {
        String name = path.toString();
        if (write && createNew && (name.equals(".") || name.endsWith("/."))) {
            throw new FileAlreadyExistsException(name);
        }
        AsyncFile file;
        try {
            file = files.open(path, flags(), mode);
        } catch (FileSystemException e) {
            if (e.getCause() instanceof ErrnoException errno) {
                if (createNew && errno.errno() == Errno.EISDIR) {
                    throw FileErrors.translate(new ErrnoException(errno.operation(), Errno.EEXIST), path, null);
                }
                if (!followsLinks() && errno.errno() == Errno.ELOOP) {
                    throw new IOException(Errno.describe(Errno.ELOOP) + " (NOFOLLOW_LINKS specified)", e);
                }
            }
            throw e;
        }
        if (deleteOnClose) {
            try {
                files.unlink(path);
            } catch (IOException ignored) {
                // the file may be gone already; the channel works either way
            }
        }
        return file;
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
