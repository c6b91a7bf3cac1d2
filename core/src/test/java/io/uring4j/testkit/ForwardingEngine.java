package io.uring4j.testkit;

import io.uring4j.ring.Engine;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** An engine that hands every call to another: tests override the one call they make fail or change. */
public class ForwardingEngine implements Engine {
    protected final Engine real;

    public ForwardingEngine(Engine real) {
        this.real = real;
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public int setup(int entries, MemorySegment params) {
        return real.setup(entries, params);
    }

    @Override
    public MemorySegment map(int ringFd, long offset, long size, Arena arena) throws ErrnoException {
        return real.map(ringFd, offset, size, arena);
    }

    @Override
    public int enter(int ringFd, int toSubmit, int minComplete, int flags, long arg, long argSize) {
        return real.enter(ringFd, toSubmit, minComplete, flags, arg, argSize);
    }

    @Override
    public int register(int ringFd, int opcode, long arg, int nrArgs) {
        return real.register(ringFd, opcode, arg, nrArgs);
    }

    @Override
    public int close(int ringFd) {
        return real.close(ringFd);
    }
}
