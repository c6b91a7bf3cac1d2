package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Which opcodes the running kernel supports ({@code IORING_REGISTER_PROBE}): the way to detect features,
 * instead of parsing the kernel version (distributions backport). A snapshot: immutable, no native memory.
 */
public final class Probe {
    /** {@code struct io_uring_probe} header bytes, then 8 bytes per {@code io_uring_probe_op}. */
    static final long HEADER = 16;
    static final long OP_SIZE = 8;
    static final int OPS = 256;
    private static final int SUPPORTED = 1;

    private final int lastOp;
    private final boolean[] supported;

    private Probe(int lastOp, boolean[] supported) {
        this.lastOp = lastOp;
        this.supported = supported;
    }

    static Probe decode(MemorySegment probe) {
        int lastOp = probe.get(JAVA_BYTE, 0) & 0xff;
        int opsLen = probe.get(JAVA_BYTE, 1) & 0xff;
        boolean[] supported = new boolean[OPS];
        for (int i = 0; i < opsLen; i++) {
            long op = HEADER + OP_SIZE * i;
            int code = probe.get(JAVA_BYTE, op) & 0xff;
            supported[code] = (probe.get(JAVA_SHORT, op + 2) & SUPPORTED) != 0;
        }
        return new Probe(lastOp, supported);
    }

    /** Probes the kernel with a throwaway 2-entry ring (liburing's {@code io_uring_get_probe}). */
    public static Probe ofKernel() throws io.uring4j.sys.ErrnoException {
        try (IoUring ring = IoUring.open(2)) {
            return ring.register().probe();
        }
    }

    /** The highest opcode the kernel knows. */
    public int lastOp() {
        return lastOp;
    }

    public boolean isSupported(int opcode) {
        int op = opcode & 0xff;
        return op <= lastOp && supported[op];
    }

    /** Names of the supported opcodes, lowest first. */
    public List<String> supportedNames() {
        List<String> names = new ArrayList<>();
        for (int op = 0; op <= lastOp; op++) {
            if (supported[op]) {
                names.add(Opcode.name(op));
            }
        }
        return names;
    }

    @Override
    public String toString() {
        return "Probe[last_op=" + lastOp + " " + supportedNames() + "]";
    }
}
