package io.uring4j.portable;

import io.uring4j.ring.Restriction;
import io.uring4j.ring.abi.RegisterArgLayout;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * What a restricted ring may do (REGISTER_RESTRICTIONS, registered while R_DISABLED, in force from
 * ENABLE_RINGS on): the SQE opcodes and register opcodes allowed, and the SQE flags allowed and required. A
 * request that breaks them completes with -EACCES, a register call fails with EACCES.
 */
final class Restrictions {
    /** IORING_MAX_RESTRICTIONS: RESTRICTION_LAST + REGISTER_LAST. */
    private static final int MAX = 4 + PortableEngine.REGISTER_LAST;
    private static final MemorySegment USER = PortableRing.USER;

    /** Bit n: SQE opcode n allowed (every opcode we implement is below 64). */
    private long sqeOps;
    /** Bit n: register opcode n allowed. */
    private long registerOps;
    private int flagsAllowed;
    private int flagsRequired;

    private Restrictions() {
    }

    /** Reads {@code nr} restrictions at {@code arg}; null if one is invalid (EINVAL, nothing registered). */
    static Restrictions parse(long arg, int nr) {
        if (arg == 0 || nr < 0 || nr > MAX) {
            return null;
        }
        Restrictions r = new Restrictions();
        for (int i = 0; i < nr; i++) {
            long at = arg + RegisterArgLayout.RESTRICTION_SIZE * i;
            int type = USER.get(JAVA_SHORT, at + RegisterArgLayout.RESTRICTION_OPCODE) & 0xffff;
            int value = USER.get(JAVA_BYTE, at + RegisterArgLayout.RESTRICTION_VALUE) & 0xff;
            switch (type) {
                case Restriction.REGISTER_OP -> {
                    if (value >= PortableEngine.REGISTER_LAST) {
                        return null;
                    }
                    r.registerOps |= 1L << value;
                }
                case Restriction.SQE_OP -> {
                    if (value > OpDefs.LAST_OP) {
                        return null;
                    }
                    r.sqeOps |= 1L << value;
                }
                case Restriction.SQE_FLAGS_ALLOWED -> r.flagsAllowed = value;
                case Restriction.SQE_FLAGS_REQUIRED -> r.flagsRequired = value;
                default -> {
                    return null;
                }
            }
        }
        return r;
    }

    /** io_check_restriction: the opcode is allowed, the required flags are set and no other flag is. */
    boolean allows(int opcode, int sqeFlags) {
        return (sqeOps >>> opcode & 1) != 0 && (sqeFlags & flagsRequired) == flagsRequired
                && (sqeFlags & ~(flagsAllowed | flagsRequired)) == 0;
    }

    boolean allowsRegister(int opcode) {
        return (registerOps >>> opcode & 1) != 0;
    }
}
