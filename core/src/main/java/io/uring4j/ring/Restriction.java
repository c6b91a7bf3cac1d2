package io.uring4j.ring;

/**
 * One {@code struct io_uring_restriction} for an R_DISABLED ring: what it may do once enabled.
 *
 * @param type  REGISTER_OP (0), SQE_OP (1), SQE_FLAGS_ALLOWED (2) or SQE_FLAGS_REQUIRED (3)
 * @param value the register opcode, SQE opcode or SQE flag set
 */
public record Restriction(int type, int value) {
    public static final int REGISTER_OP = 0;
    public static final int SQE_OP = 1;
    public static final int SQE_FLAGS_ALLOWED = 2;
    public static final int SQE_FLAGS_REQUIRED = 3;

    /** Allows the register opcode {@code opcode} (a {@code Registrar} constant). */
    public static Restriction registerOp(int opcode) {
        return new Restriction(REGISTER_OP, opcode);
    }

    /** Allows SQEs with opcode {@code opcode}. */
    public static Restriction sqeOp(int opcode) {
        return new Restriction(SQE_OP, opcode);
    }

    public static Restriction sqeFlagsAllowed(int flags) {
        return new Restriction(SQE_FLAGS_ALLOWED, flags);
    }

    public static Restriction sqeFlagsRequired(int flags) {
        return new Restriction(SQE_FLAGS_REQUIRED, flags);
    }
}
