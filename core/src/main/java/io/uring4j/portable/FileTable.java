package io.uring4j.portable;

import io.uring4j.ring.abi.RegisterArgLayout;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The registered file table (REGISTER_FILES and its updates, direct descriptors): an fd of the engine's own per
 * slot. Registered files are held as close-on-exec duplicates, as the kernel holds a reference to the file: the
 * application may close its own fd. Direct descriptors (file_index) are fds of the engine's own, close-on-exec,
 * never handed to the application. The table changes in place, so workers resolve a fixed file without a lock;
 * changes hold the ring lock, as registration calls do.
 */
final class FileTable {
    private static final int FILE_SKIP = -2;
    /** IORING_FILE_INDEX_ALLOC: sqe.file_index (or FILES_UPDATE's offset) asking us to pick the slot. */
    static final int FILE_INDEX_ALLOC = -1;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle FILE_HELD;
    private static final int MAX_FILES = 1 << 20;
    private static final MemorySegment USER = PortableRing.USER;

    static {
        try {
            FILE_HELD = MethodHandles.lookup().findVarHandle(Request.class, "fileHeld", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final PortableRing ring;
    /** Registered files: an fd per slot (-1: empty), changed in place under the ring lock (read without it). */
    private volatile int[] files;
    /** FILE_INDEX_ALLOC picks slots in [allocStart, allocEnd), trying allocHint first, as the kernel's bitmap. */
    private int allocStart;
    private int allocEnd;
    private int allocHint;
    /** Fds dropped from the table while requests still held them ({@link #drop}); under the ring lock. */
    private int[] lingering = new int[0];
    private int lingeringCount;

    FileTable(PortableRing ring) {
        this.ring = ring;
    }

    /**
     * The fd a request works on: its own, or with FIXED_FILE the registered one; -EBADF if none. A fixed file is
     * looked up once, when the request is first issued, as the kernel assigns req->file: the request then holds
     * that fd (in its {@code fd}, FIXED_FILE cleared, {@code fileHeld} set), and the fd stays open until the
     * request ends even if its slot is emptied or filled again meanwhile ({@link #drop}).
     */
    int fd(Request r) {
        if ((r.sqeFlags & SqeFlags.FIXED_FILE) != 0) {
            return hold(r);
        }
        return r.fd < 0 ? -Errno.EBADF : r.fd;
    }

    /**
     * Looks up {@code r}'s slot and holds its fd. The hold is published before the slot is read again, and a
     * slot's change before its old fd is checked for holders ({@link #setSlot}): so either its dropper sees our
     * hold and keeps the fd open for us, or we see the change and look again — never an fd closed under us.
     */
    private int hold(Request r) {
        int slot = r.fd;
        while (true) {
            int fd = file(slot);
            if (fd < 0) {
                return fd;
            }
            r.fd = fd;
            FILE_HELD.setVolatile(r, true);
            if (file(slot) == fd) {
                r.sqeFlags &= ~SqeFlags.FIXED_FILE;
                return fd;
            }
            FILE_HELD.setVolatile(r, false);        // the slot changed under us: let go, then look again
            r.fd = slot;
            ring.lock.lock();
            try {
                released(fd);
            } finally {
                ring.lock.unlock();
            }
        }
    }

    /** The fd in slot {@code index}, or -EBADF (out of range, empty, or no table). */
    int file(int index) {
        int[] table = files;
        if (table == null || index < 0 || index >= table.length) {
            return -Errno.EBADF;
        }
        int fd = (int) SLOT.getVolatile(table, index);
        return fd < 0 ? -Errno.EBADF : fd;
    }

    /**
     * A duplicate of the fd in slot {@code index} (MSG_RING's MSG_SEND_FD), made under the ring lock so that the
     * slot's fd cannot be closed meanwhile; -EBADF for an empty slot.
     */
    int dupFile(int index) {
        ring.lock.lock();
        try {
            int fd = file(index);
            return fd < 0 ? fd : Sys.dup(fd);
        } finally {
            ring.lock.unlock();
        }
    }

    /** REGISTER_FILES: {@code nr} fds at {@code arg} (or, sparse, empty slots). Under the ring lock. */
    int register(long arg, int nr, boolean sparse) {
        if (files != null) {
            return -Errno.EBUSY;
        }
        if (nr <= 0) {
            return -Errno.EINVAL;
        }
        if (nr > MAX_FILES || nr > fileLimit()) {
            return -Errno.EMFILE;       // the table counts against RLIMIT_NOFILE, as in the kernel
        }
        int[] table = new int[nr];
        for (int i = 0; i < nr; i++) {
            int fd = sparse || arg == 0 ? -1 : USER.get(JAVA_INT, arg + 4L * i);
            table[i] = -1;
            if (fd >= 0) {
                int dup = Sys.dup(fd);
                if (dup < 0) {
                    closeAll(table);
                    return dup;
                }
                table[i] = dup;
            } else if (fd != -1) {
                closeAll(table);
                return -Errno.EBADF;
            }
        }
        setAllocRange(0, nr);
        files = table;
        return 0;
    }

    /** The soft RLIMIT_NOFILE, or no limit if it cannot be read. */
    private static long fileLimit() {
        long[] limit = LibC.getrlimit(LibC.RLIMIT_NOFILE);
        return limit == null || limit[0] < 0 ? Long.MAX_VALUE : limit[0];
    }

    /** UNREGISTER_FILES. Under the ring lock (a register call). */
    int unregister() {
        int[] table = files;
        if (table == null) {
            return -Errno.ENXIO;
        }
        files = null;
        setAllocRange(0, 0);
        for (int fd : table) {
            if (fd >= 0) {
                drop(fd);
            }
        }
        return 0;
    }

    /**
     * REGISTER_FILES_UPDATE(2) and the FILES_UPDATE opcode: {@code nr} fds from {@code fds} into the slots from
     * {@code offset} on (-1 empties a slot, FILE_SKIP leaves it). As the kernel's, a slot is emptied before its
     * new fd is looked up; the count done, or the error if none was.
     */
    int updateFiles(int offset, long fds, int nr) {
        ring.lock.lock();
        try {
            int[] table = files;
            if (table == null) {
                return -Errno.ENXIO;
            }
            if (offset < 0 || nr < 0 || (long) offset + nr > table.length) {
                return -Errno.EINVAL;
            }
            int done = 0;
            int error = 0;
            for (; done < nr; done++) {
                int fd = USER.get(JAVA_INT, fds + 4L * done);
                if (fd == FILE_SKIP) {
                    continue;
                }
                setSlot(table, offset + done, -1);
                if (fd == -1) {
                    continue;
                }
                int dup = fd >= 0 ? Sys.dup(fd) : -Errno.EBADF;
                if (dup < 0) {
                    error = dup;
                    break;
                }
                setSlot(table, offset + done, dup);
            }
            return done > 0 ? done : error;
        } finally {
            ring.lock.unlock();
        }
    }

    /**
     * FILES_UPDATE with FILE_INDEX_ALLOC: each fd of {@code fds} goes into a slot we pick, whose index is written
     * back over it. The count done, or the error if none was.
     */
    int updateFilesAlloc(long fds, int nr) {
        if (files == null) {
            return -Errno.ENXIO;
        }
        int done = 0;
        int error = 0;
        for (; done < nr; done++) {
            int fd = USER.get(JAVA_INT, fds + 4L * done);
            int dup = fd >= 0 ? Sys.dup(fd) : -Errno.EBADF;
            int slot = dup < 0 ? dup : install(dup, FILE_INDEX_ALLOC);
            if (slot < 0) {
                error = slot;
                break;
            }
            USER.set(JAVA_INT, fds + 4L * done, slot);
        }
        return done > 0 ? done : error;
    }

    /**
     * The result of an open, socket or accept that made {@code fd}: the fd itself, or with a {@code fileIndex}
     * (sqe.file_index) the result of {@link #install}ing it.
     */
    int installed(int fd, int fileIndex) {
        return fd < 0 || fileIndex == 0 ? fd : install(fd, fileIndex);
    }

    /**
     * A direct descriptor: puts {@code fd}, which the engine alone knows (the caller hands it over), into slot
     * {@code fileIndex - 1}, replacing what was there, or with FILE_INDEX_ALLOC into a free slot of the
     * allocation range. 0, or the slot allocated; else -ENXIO (no table), -EINVAL (past its end) or -ENFILE
     * (no free slot), and the fd is closed, as the kernel puts the file.
     */
    int install(int fd, int fileIndex) {
        int ret;
        ring.lock.lock();
        try {
            int[] table = files;
            if (fileIndex == FILE_INDEX_ALLOC) {
                ret = table == null ? -Errno.ENFILE : freeSlot(table);
            } else {
                long slot = Integer.toUnsignedLong(fileIndex - 1);        // file_index 0: slot 2^32 - 1
                ret = table == null ? -Errno.ENXIO : slot >= table.length ? -Errno.EINVAL : (int) slot;
            }
            if (ret >= 0) {
                setSlot(table, ret, fd);
                return fileIndex == FILE_INDEX_ALLOC ? ret : 0;
            }
        } finally {
            ring.lock.unlock();
        }
        Sys.close(fd);
        return ret;
    }

    /**
     * The kernel's io_file_bitmap_get: the first empty slot from the hint to the end of the allocation range,
     * then from the range's start up to the hint; -ENFILE if none.
     */
    private int freeSlot(int[] table) {
        int end = allocEnd;
        while (true) {
            for (int i = allocHint; i < end; i++) {
                if (table[i] < 0) {
                    return i;
                }
            }
            if (allocHint == allocStart) {
                return -Errno.ENFILE;
            }
            end = allocHint;
            allocHint = allocStart;
        }
    }

    /** CLOSE with file_index: empties slot {@code slot}. */
    int closeSlot(int slot) {
        ring.lock.lock();
        try {
            int[] table = files;
            if (table == null) {
                return -Errno.ENXIO;
            }
            if (slot < 0 || slot >= table.length) {
                return -Errno.EINVAL;
            }
            if (table[slot] < 0) {
                return -Errno.EBADF;
            }
            setSlot(table, slot, -1);
            return 0;
        } finally {
            ring.lock.unlock();
        }
    }

    /**
     * REGISTER_FILE_ALLOC_RANGE: {@code struct io_uring_file_index_range} {off, len, resv}; FILE_INDEX_ALLOC
     * then picks slots in {@code [off, off + len)} only. Under the ring lock (a register call).
     */
    int allocRange(long arg, int nr) {
        if (arg == 0 || nr != 0) {
            return -Errno.EINVAL;
        }
        long off = Integer.toUnsignedLong(USER.get(JAVA_INT, arg + RegisterArgLayout.FILE_INDEX_RANGE_OFF));
        long end = off
                + Integer.toUnsignedLong(USER.get(JAVA_INT, arg + RegisterArgLayout.FILE_INDEX_RANGE_LEN));
        if (end > 0xffffffffL) {
            return -Errno.EOVERFLOW;
        }
        int[] table = files;
        if (USER.get(JAVA_LONG, arg + RegisterArgLayout.FILE_INDEX_RANGE_RESV) != 0
                || end > (table == null ? 0 : table.length)) {
            return -Errno.EINVAL;
        }
        setAllocRange((int) off, (int) end);
        return 0;
    }

    private void setAllocRange(int start, int end) {
        allocStart = start;
        allocEnd = end;
        allocHint = start;
    }

    /**
     * Puts {@code fd} into slot {@code slot} (-1: empties it) and drops what was there; under the ring lock.
     * The allocation hint moves as the kernel's bitmap moves it: past a slot filled, onto a slot emptied.
     */
    private void setSlot(int[] table, int slot, int fd) {
        int old = table[slot];
        SLOT.setVolatile(table, slot, fd);         // before the holders of the old fd are looked for: see hold
        if (old >= 0) {
            drop(old);
        }
        if (old < 0 && fd >= 0) {
            allocHint = slot + 1;
        } else if (old >= 0 && fd < 0) {
            allocHint = slot;
        }
    }

    /**
     * An fd left the table: closed now, or, while requests that looked it up are in flight, once the last of
     * them ends ({@link #released}) — the kernel's requests hold a reference to their file. Under the ring lock.
     */
    private void drop(int fd) {
        if (heldByRequest(fd)) {
            if (lingering.length == lingeringCount) {
                lingering = Arrays.copyOf(lingering, Math.max(4, 2 * lingeringCount));
            }
            lingering[lingeringCount++] = fd;
        } else {
            Sys.close(fd);
        }
    }

    /**
     * A request that held {@code fd} ({@link Request#fileHeld}) was retired: if {@code fd} left the table
     * meanwhile and no other request holds it, it is closed now. Under the ring lock; costs nothing while no
     * dropped fd lingers.
     */
    void released(int fd) {
        if (lingeringCount == 0) {
            return;
        }
        for (int i = 0; i < lingeringCount; i++) {
            if (lingering[i] == fd) {
                if (!heldByRequest(fd)) {
                    lingering[i] = lingering[--lingeringCount];
                    Sys.close(fd);
                }
                return;
            }
        }
    }

    /** Whether a request in flight holds {@code fd}: a scan of the pool, made only when a file leaves the table. */
    private boolean heldByRequest(int fd) {
        for (Request r : ring.lock.pool.all) {
            if (r != null && (boolean) FILE_HELD.getVolatile(r) && r.fd == fd) {
                return true;
            }
        }
        return false;
    }

    private static void closeAll(int[] table) {
        for (int fd : table) {
            if (fd >= 0) {
                Sys.close(fd);
            }
        }
    }

    /** The ring is closing (under its lock): every fd goes, in the table or lingering for a request. */
    void close() {
        int[] table = files;
        files = null;
        if (table != null) {
            closeAll(table);
        }
        for (int i = 0; i < lingeringCount; i++) {
            Sys.close(lingering[i]);
        }
        lingeringCount = 0;
    }
}
