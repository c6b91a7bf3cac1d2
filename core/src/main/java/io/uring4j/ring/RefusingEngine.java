package io.uring4j.ring;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * {@link Engine#refusing}: a kernel whose io_uring_setup fails with one errno, as under seccomp or
 * {@code kernel.io_uring_disabled} — to try what an application (or {@link Engine#auto()}) does there. No ring
 * exists, so nothing else may be called on it.
 */
record RefusingEngine(int errno) implements Engine {
    @Override
    public String name() {
        return "kernel";
    }

    @Override
    public int setup(int entries, MemorySegment params) {
        return -errno;
    }

    @Override
    public MemorySegment map(int ringFd, long offset, long size, Arena arena) {
        throw new IllegalStateException("map: no ring was set up");
    }

    @Override
    public int enter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        throw new IllegalStateException("enter: no ring was set up");
    }

    @Override
    public int register(int ringFd, int opcode, long arg, int nrArgs) {
        throw new IllegalStateException("register: no ring was set up");
    }

    @Override
    public int close(int ringFd) {
        throw new IllegalStateException("close: no ring was set up");
    }
}
