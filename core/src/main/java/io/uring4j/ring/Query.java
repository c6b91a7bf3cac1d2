package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.QueryLayout;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * What the kernel supports, by its own account ({@code IORING_REGISTER_QUERY} with
 * {@code IO_URING_QUERY_OPCODES}, 6.18): how many request and register opcodes it knows, and the masks of the
 * feature, setup, enter and SQE flags it accepts. Where the probe answers for opcodes only, this also answers for
 * setup and enter flags, which otherwise can only be tried. A snapshot: immutable, no native memory.
 *
 * @param requestOpcodes  opcodes 0 to this - 1 exist ({@code IORING_OP_*})
 * @param registerOpcodes register opcodes 0 to this - 1 exist ({@code IORING_REGISTER_*})
 * @param features        {@code IORING_FEAT_*} bits ({@link Features})
 * @param setupFlags      {@code IORING_SETUP_*} bits
 * @param enterFlags      {@code IORING_ENTER_*} bits
 * @param sqeFlags        {@code IOSQE_*} bits
 */
public record Query(int requestOpcodes, int registerOpcodes, long features, long setupFlags, long enterFlags,
                    long sqeFlags) {
    /** Asks the kernel without a ring (fd -1). Kernels before 6.18 answer EINVAL: it is unknown to them. */
    public static Query ofKernel() throws ErrnoException {
        return ask(Engine.kernel(), -1);
    }

    static Query ask(Engine engine, int ringFd) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(QueryLayout.OPCODES_SIZE, 8);
            MemorySegment hdr = arena.allocate(QueryLayout.HDR_SIZE, 8);
            hdr.set(JAVA_LONG, QueryLayout.HDR_QUERY_DATA, data.address());
            hdr.set(JAVA_INT, QueryLayout.HDR_QUERY_OP, QueryLayout.QUERY_OPCODES);
            hdr.set(JAVA_INT, QueryLayout.HDR_SIZE_FIELD, (int) QueryLayout.OPCODES_SIZE);
            int ret = engine.register(ringFd, RegisterOpcode.REGISTER_QUERY, hdr.address(), 0);
            if (ret == 0) {
                ret = hdr.get(JAVA_INT, QueryLayout.HDR_RESULT);
            }
            if (ret < 0) {
                throw new ErrnoException("io_uring_register(REGISTER_QUERY)", ret,
                        "the query interface came with kernel 6.18; use the probe and setup trials before that");
            }
            return new Query(data.get(JAVA_INT, QueryLayout.OPCODES_NR_REQUEST),
                    data.get(JAVA_INT, QueryLayout.OPCODES_NR_REGISTER), data.get(JAVA_LONG, QueryLayout.OPCODES_FEATURES),
                    data.get(JAVA_LONG, QueryLayout.OPCODES_SETUP_FLAGS),
                    data.get(JAVA_LONG, QueryLayout.OPCODES_ENTER_FLAGS), data.get(JAVA_LONG, QueryLayout.OPCODES_SQE_FLAGS));
        }
    }

    /** Whether the kernel knows register opcode {@code opcode} ({@code IORING_REGISTER_*}). */
    public boolean hasRegisterOpcode(int opcode) {
        return opcode >= 0 && opcode < registerOpcodes;
    }

    /** Whether the kernel accepts every bit of {@code flags} ({@code IORING_SETUP_*}). */
    public boolean acceptsSetupFlags(int flags) {
        return (Integer.toUnsignedLong(flags) & ~setupFlags) == 0;
    }

    /** Whether the kernel accepts every bit of {@code flags} ({@code IORING_ENTER_*}). */
    public boolean acceptsEnterFlags(int flags) {
        return (Integer.toUnsignedLong(flags) & ~enterFlags) == 0;
    }
}
