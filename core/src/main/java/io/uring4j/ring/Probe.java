package io.uring4j.ring;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterArgLayout;

import java.lang.foreign.Arena;
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
    /** Opcodes asked for, as liburing does: every value a u8 opcode can take. */
    static final int OPS = 256;

    private final int lastOp;
    private final boolean[] supported;

    private Probe(int lastOp, boolean[] supported) {
        this.lastOp = lastOp;
        this.supported = supported;
    }

    /** A zeroed {@code struct io_uring_probe} with room for {@link #OPS} ops, for REGISTER_PROBE to fill. */
    static MemorySegment allocate(Arena arena) {
        return arena.allocate(RegisterArgLayout.PROBE_HEADER + RegisterArgLayout.PROBE_OP_SIZE * OPS, 8);
    }

    static Probe decode(MemorySegment probe) {
        int lastOp = probe.get(JAVA_BYTE, RegisterArgLayout.PROBE_LAST_OP) & 0xff;
        int opsLen = probe.get(JAVA_BYTE, RegisterArgLayout.PROBE_OPS_LEN) & 0xff;
        boolean[] supported = new boolean[OPS];
        for (int i = 0; i < opsLen; i++) {
            long op = RegisterArgLayout.PROBE_HEADER + RegisterArgLayout.PROBE_OP_SIZE * i;
            int code = probe.get(JAVA_BYTE, op + RegisterArgLayout.PROBE_OP_OP) & 0xff;
            supported[code] = (probe.get(JAVA_SHORT, op + RegisterArgLayout.PROBE_OP_FLAGS)
                    & RegisterArgLayout.PROBE_OP_SUPPORTED) != 0;
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
