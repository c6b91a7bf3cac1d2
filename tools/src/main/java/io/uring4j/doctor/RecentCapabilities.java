package io.uring4j.doctor;

import io.uring4j.ring.IoUring;
import io.uring4j.ring.Probe;
import io.uring4j.ring.Query;
import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.ring.abi.SetupFlags;

import java.util.ArrayList;
import java.util.List;

/**
 * The doctor's section on what kernels 6.7 and later brought (the README's kernel support table): opcodes from
 * the probe, features from the ring, register opcodes and setup and enter flags from {@code REGISTER_QUERY} where
 * the kernel has it (6.18) — without it, "unknown": they can only be tried.
 */
final class RecentCapabilities {
    /** One capability: its name, the kernel that brought it, and whether this one offers it (null: unknown). */
    record Row(String name, String kernel, Boolean offered) {
        String answer() {
            return offered == null ? "unknown (no REGISTER_QUERY)" : offered ? "yes" : "no";
        }
    }

    private RecentCapabilities() {
    }

    static List<Row> of(IoUring ring, Probe probe, Query query) {
        List<Row> rows = new ArrayList<>();
        Object[][] opcodes = {{Opcode.READ_MULTISHOT, "6.7"}, {Opcode.WAITID, "6.7"}, {Opcode.FUTEX_WAIT, "6.7"},
            {Opcode.FUTEX_WAKE, "6.7"}, {Opcode.FUTEX_WAITV, "6.7"}, {Opcode.FIXED_FD_INSTALL, "6.8"},
            {Opcode.FTRUNCATE, "6.9"}, {Opcode.BIND, "6.11"}, {Opcode.LISTEN, "6.11"}, {Opcode.RECV_ZC, "6.15"},
            {Opcode.EPOLL_WAIT, "6.15"}, {Opcode.READV_FIXED, "6.15"}, {Opcode.WRITEV_FIXED, "6.15"},
            {Opcode.PIPE, "6.16"}};
        for (Object[] op : opcodes) {
            byte code = (Byte) op[0];
            rows.add(new Row("IORING_OP_" + Opcode.name(code), (String) op[1], probe.isSupported(code)));
        }
        Object[][] features = {{Features.RECVSEND_BUNDLE, "6.10"}, {Features.MIN_TIMEOUT, "6.12"},
            {Features.RW_ATTR, "6.14"}, {Features.NO_IOWAIT, "6.15"}};
        for (Object[] feature : features) {
            int bit = (Integer) feature[0];
            rows.add(new Row("IORING_FEAT_" + Features.toString(bit), (String) feature[1], ring.hasFeature(bit)));
        }
        Object[][] registers = {{RegisterOpcode.REGISTER_NAPI, "6.9"}, {RegisterOpcode.REGISTER_CLOCK, "6.12"},
            {RegisterOpcode.REGISTER_CLONE_BUFFERS, "6.12"}, {RegisterOpcode.REGISTER_SEND_MSG_RING, "6.13"},
            {RegisterOpcode.REGISTER_RESIZE_RINGS, "6.13"}, {RegisterOpcode.REGISTER_MEM_REGION, "6.13"},
            {RegisterOpcode.REGISTER_ZCRX_IFQ, "6.15"}};
        for (Object[] register : registers) {
            int op = (Integer) register[0];
            rows.add(new Row("IORING_" + RegisterOpcode.name(op), (String) register[1],
                    query == null ? null : query.hasRegisterOpcode(op)));
        }
        rows.add(new Row("IORING_REGISTER_QUERY", "6.18", query != null));
        Object[][] setups = {{SetupFlags.HYBRID_IOPOLL, "6.13"}, {SetupFlags.CQE_MIXED, "6.18"},
            {SetupFlags.SQE_MIXED, "6.19"}, {SetupFlags.SQ_REWIND, "7.0"}};
        for (Object[] setup : setups) {
            int flag = (Integer) setup[0];
            rows.add(new Row("IORING_SETUP_" + SetupFlags.name(flag), (String) setup[1],
                    query == null ? null : query.acceptsSetupFlags(flag)));
        }
        Object[][] enters = {{EnterFlags.ABS_TIMER, "ABS_TIMER", "6.12"}, {EnterFlags.EXT_ARG_REG, "EXT_ARG_REG", "6.13"},
            {EnterFlags.NO_IOWAIT, "NO_IOWAIT", "6.15"}};
        for (Object[] enter : enters) {
            rows.add(new Row("IORING_ENTER_" + enter[1], (String) enter[2],
                    query == null ? null : query.acceptsEnterFlags((Integer) enter[0])));
        }
        return rows;
    }
}
