package io.uring4j.fs;

import io.uring4j.sys.LibC;

import java.lang.foreign.MemorySegment;
import java.time.Instant;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * What {@code statx(2)} reported about a file, decoded from the 256-byte {@code struct statx}. Fields the kernel
 * did not fill (absent from {@link #mask()}) read as zero, or {@code null} for times; {@link #has} tells.
 *
 * @param mask            which fields are valid ({@code STATX_*})
 * @param blockSize       the preferred I/O block size (also the JDK's O_DIRECT alignment)
 * @param mode            file type and permission bits ({@code S_IFMT | 07777})
 * @param created         birth time, or {@code null} when the file system does not record it
 * @param dioMemAlign     O_DIRECT buffer address alignment, 0 when unknown or unsupported (6.1+)
 * @param dioOffsetAlign  O_DIRECT file offset and length alignment, 0 when unknown or unsupported (6.1+)
 */
public record Statx(int mask, int blockSize, long attributes, int links, int uid, int gid, int mode, long inode,
                    long size, long blocks, Instant accessed, Instant created, Instant statusChanged,
                    Instant modified, int deviceMajor, int deviceMinor, int rdevMajor, int rdevMinor, long mountId,
                    int dioMemAlign, int dioOffsetAlign) {

    /** Size of {@code struct statx} in bytes. */
    public static final int BYTES = 256;

    public static final int TYPE = 0x1;
    public static final int MODE = 0x2;
    public static final int NLINK = 0x4;
    public static final int UID = 0x8;
    public static final int GID = 0x10;
    public static final int ATIME = 0x20;
    public static final int MTIME = 0x40;
    public static final int CTIME = 0x80;
    public static final int INO = 0x100;
    public static final int SIZE = 0x200;
    public static final int BLOCKS = 0x400;
    /** Everything {@code stat(2)} returns. */
    public static final int BASIC_STATS = 0x7ff;
    public static final int BTIME = 0x800;
    public static final int MNT_ID = 0x1000;
    public static final int DIOALIGN = 0x2000;
    /** The mask uring4j asks for by default: the basic stats, birth time, mount id and O_DIRECT alignment. */
    public static final int DEFAULT_MASK = BASIC_STATS | BTIME | MNT_ID | DIOALIGN;

    /** Decodes {@code struct statx} (offsets from {@code include/uapi/linux/stat.h}). */
    public static Statx decode(MemorySegment s) {
        int mask = s.get(JAVA_INT, 0);
        return new Statx(mask, s.get(JAVA_INT, 4), s.get(JAVA_LONG, 8), s.get(JAVA_INT, 16),
                s.get(JAVA_INT, 20), s.get(JAVA_INT, 24), Short.toUnsignedInt(s.get(JAVA_SHORT, 28)),
                s.get(JAVA_LONG, 32), s.get(JAVA_LONG, 40), s.get(JAVA_LONG, 48),
                time(s, 64, mask, ATIME), time(s, 80, mask, BTIME), time(s, 96, mask, CTIME),
                time(s, 112, mask, MTIME), s.get(JAVA_INT, 136), s.get(JAVA_INT, 140), s.get(JAVA_INT, 128),
                s.get(JAVA_INT, 132), s.get(JAVA_LONG, 144), s.get(JAVA_INT, 152), s.get(JAVA_INT, 156));
    }

    /** {@code struct statx_timestamp}: i64 seconds, u32 nanoseconds. */
    private static Instant time(MemorySegment s, long offset, int mask, int bit) {
        if ((mask & bit) == 0) {
            return null;
        }
        return Instant.ofEpochSecond(s.get(JAVA_LONG, offset), Integer.toUnsignedLong(s.get(JAVA_INT, offset + 8)));
    }

    /** Whether the kernel filled the field(s) of {@code statxMask}. */
    public boolean has(int statxMask) {
        return (mask & statxMask) == statxMask;
    }

    /** The permission bits ({@code 07777}). */
    public int permissions() {
        return mode & 07777;
    }

    public boolean isRegularFile() {
        return (mode & LibC.S_IFMT) == LibC.S_IFREG;
    }

    public boolean isDirectory() {
        return (mode & LibC.S_IFMT) == LibC.S_IFDIR;
    }

    public boolean isSymbolicLink() {
        return (mode & LibC.S_IFMT) == LibC.S_IFLNK;
    }

    public boolean isFifo() {
        return (mode & LibC.S_IFMT) == LibC.S_IFIFO;
    }

    public boolean isSocket() {
        return (mode & LibC.S_IFMT) == LibC.S_IFSOCK;
    }
}
