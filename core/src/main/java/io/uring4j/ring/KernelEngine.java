package io.uring4j.ring;

import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.IoUringSyscalls;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** {@link Engine} on Linux's io_uring system calls. */
final class KernelEngine implements Engine {
    static final KernelEngine INSTANCE = new KernelEngine();

    private KernelEngine() {
    }

    @Override
    public String name() {
        return "kernel";
    }

    @Override
    public int setup(int entries, MemorySegment params) {
        return IoUringSyscalls.setup(entries, params);
    }

    @Override
    public MemorySegment map(int ringFd, long offset, long size, Arena arena) throws ErrnoException {
        long addr = LibC.mmap(0, size, LibC.PROT_READ | LibC.PROT_WRITE, LibC.MAP_SHARED | LibC.MAP_POPULATE,
                ringFd, offset);
        if (addr < 0) {
            throw new ErrnoException("mmap(io_uring region 0x" + Long.toHexString(offset) + ", " + size + " bytes)",
                    (int) addr);
        }
        return MemorySegment.ofAddress(addr).reinterpret(size, arena, unused -> LibC.munmap(addr, size));
    }

    @Override
    public int enter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        return IoUringSyscalls.enter(ringFd, toSubmit, minComplete, flags, arg, argSize);
    }

    /** {@link #enter} with the caller's own errno capture buffer (see {@link IoUringSyscalls#newCallState}). */
    int enter(MemorySegment callState, int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        return IoUringSyscalls.enter(callState, ringFd, toSubmit, minComplete, flags, arg, argSize);
    }

    @Override
    public int register(int ringFd, int opcode, long arg, int nrArgs) {
        return IoUringSyscalls.register(ringFd, opcode, arg, nrArgs);
    }

    @Override
    public int close(int ringFd) {
        return LibC.close(ringFd);
    }
}
