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
        opcode(rows, probe, Opcode.READ_MULTISHOT, "6.7");
        opcode(rows, probe, Opcode.WAITID, "6.7");
        opcode(rows, probe, Opcode.FUTEX_WAIT, "6.7");
        opcode(rows, probe, Opcode.FUTEX_WAKE, "6.7");
        opcode(rows, probe, Opcode.FUTEX_WAITV, "6.7");
        opcode(rows, probe, Opcode.FIXED_FD_INSTALL, "6.8");
        opcode(rows, probe, Opcode.FTRUNCATE, "6.9");
        opcode(rows, probe, Opcode.BIND, "6.11");
        opcode(rows, probe, Opcode.LISTEN, "6.11");
        opcode(rows, probe, Opcode.RECV_ZC, "6.15");
        opcode(rows, probe, Opcode.EPOLL_WAIT, "6.15");
        opcode(rows, probe, Opcode.READV_FIXED, "6.15");
        opcode(rows, probe, Opcode.WRITEV_FIXED, "6.15");
        opcode(rows, probe, Opcode.PIPE, "6.16");
        feature(rows, ring, Features.RECVSEND_BUNDLE, "6.10");
        feature(rows, ring, Features.MIN_TIMEOUT, "6.12");
        feature(rows, ring, Features.RW_ATTR, "6.14");
        feature(rows, ring, Features.NO_IOWAIT, "6.15");
        register(rows, query, RegisterOpcode.REGISTER_NAPI, "6.9");
        register(rows, query, RegisterOpcode.REGISTER_CLOCK, "6.12");
        register(rows, query, RegisterOpcode.REGISTER_CLONE_BUFFERS, "6.12");
        register(rows, query, RegisterOpcode.REGISTER_SEND_MSG_RING, "6.13");
        register(rows, query, RegisterOpcode.REGISTER_RESIZE_RINGS, "6.13");
        register(rows, query, RegisterOpcode.REGISTER_MEM_REGION, "6.13");
        register(rows, query, RegisterOpcode.REGISTER_ZCRX_IFQ, "6.15");
        rows.add(new Row("IORING_REGISTER_QUERY", "6.18", query != null));
        setup(rows, query, SetupFlags.HYBRID_IOPOLL, "6.13");
        setup(rows, query, SetupFlags.CQE_MIXED, "6.18");
        setup(rows, query, SetupFlags.SQE_MIXED, "6.19");
        setup(rows, query, SetupFlags.SQ_REWIND, "7.0");
        enter(rows, query, "ABS_TIMER", EnterFlags.ABS_TIMER, "6.12");
        enter(rows, query, "EXT_ARG_REG", EnterFlags.EXT_ARG_REG, "6.13");
        enter(rows, query, "NO_IOWAIT", EnterFlags.NO_IOWAIT, "6.15");
        return rows;
    }

    private static void opcode(List<Row> rows, Probe probe, byte opcode, String kernel) {
        rows.add(new Row("IORING_OP_" + Opcode.name(opcode), kernel, probe.isSupported(opcode)));
    }

    private static void feature(List<Row> rows, IoUring ring, int feature, String kernel) {
        rows.add(new Row("IORING_FEAT_" + Features.toString(feature), kernel, ring.hasFeature(feature)));
    }

    private static void register(List<Row> rows, Query query, int opcode, String kernel) {
        rows.add(new Row("IORING_" + RegisterOpcode.name(opcode), kernel,
                query == null ? null : query.hasRegisterOpcode(opcode)));
    }

    private static void setup(List<Row> rows, Query query, int flag, String kernel) {
        rows.add(new Row("IORING_SETUP_" + SetupFlags.name(flag), kernel,
                query == null ? null : query.acceptsSetupFlags(flag)));
    }

    private static void enter(List<Row> rows, Query query, String name, int flag, String kernel) {
        rows.add(new Row("IORING_ENTER_" + name, kernel, query == null ? null : query.acceptsEnterFlags(flag)));
    }
}
