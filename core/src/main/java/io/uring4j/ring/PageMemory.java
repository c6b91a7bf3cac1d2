package io.uring4j.ring;

import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Zeroed, page-aligned anonymous memory that the kernel maps or pins: NO_MMAP rings and buffer rings. */
final class PageMemory {
    private PageMemory() {
    }

    static long roundUp(long size) {
        long page = LibC.PAGE_SIZE;
        return (size + page - 1) & -page;
    }

    /** {@code size} rounded up to whole pages, unmapped when {@code arena} closes. */
    static MemorySegment allocate(long size, Arena arena, String purpose) throws ErrnoException {
        long length = roundUp(size);
        long addr = LibC.mmap(0, length, LibC.PROT_READ | LibC.PROT_WRITE,
                LibC.MAP_SHARED | LibC.MAP_ANONYMOUS | LibC.MAP_POPULATE, -1, 0);
        if (addr < 0) {
            throw new ErrnoException("mmap(" + purpose + ", " + length + " bytes)", (int) addr);
        }
        return MemorySegment.ofAddress(addr).reinterpret(length, arena, unused -> LibC.munmap(addr, length));
    }
}
