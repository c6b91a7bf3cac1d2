package io.uring4j.ring;

import io.uring4j.ring.abi.RegisterOpcode;
import io.uring4j.ring.abi.WaitRegionLayout;
import io.uring4j.ring.abi.ZcrxLayout;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A registered zero-copy receive queue ({@link Registrar#zcrxIfq}): its id (for {@link Sqe#prepRecvZc}), the
 * byte offsets of the refill ring's head, tail and entries inside the refill memory, and the area token that
 * tags its offsets.
 */
public record ZcrxQueue(int id, int headOffset, int tailOffset, int entriesOffset, long areaToken) {
    static ZcrxQueue register(IoUring ring, int ifIndex, int rxQueue, int rqEntries, MemorySegment area,
                              MemorySegment refill) throws ErrnoException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment areaReg = arena.allocate(ZcrxLayout.AREA_SIZE, 8);
            areaReg.set(JAVA_LONG, ZcrxLayout.AREA_ADDR, SqeCore.address(area));
            areaReg.set(JAVA_LONG, ZcrxLayout.AREA_LEN, area.byteSize());
            MemorySegment desc = arena.allocate(WaitRegionLayout.DESC_SIZE, 8);
            desc.set(JAVA_LONG, WaitRegionLayout.DESC_USER_ADDR, SqeCore.address(refill));
            desc.set(JAVA_LONG, WaitRegionLayout.DESC_SIZE_FIELD, refill.byteSize());
            desc.set(JAVA_INT, WaitRegionLayout.DESC_FLAGS, WaitRegionLayout.MEM_REGION_TYPE_USER);
            MemorySegment reg = arena.allocate(ZcrxLayout.IFQ_SIZE, 8);
            reg.set(JAVA_INT, ZcrxLayout.IFQ_IF_IDX, ifIndex);
            reg.set(JAVA_INT, ZcrxLayout.IFQ_IF_RXQ, rxQueue);
            reg.set(JAVA_INT, ZcrxLayout.IFQ_RQ_ENTRIES, rqEntries);
            reg.set(JAVA_LONG, ZcrxLayout.IFQ_AREA_PTR, areaReg.address());
            reg.set(JAVA_LONG, ZcrxLayout.IFQ_REGION_PTR, desc.address());
            int ret = ring.registerRaw(RegisterOpcode.REGISTER_ZCRX_IFQ, reg.address(), 1);
            if (ret < 0) {
                throw new ErrnoException("io_uring_register(REGISTER_ZCRX_IFQ)", ret, hint(-ret));
            }
            long offsets = ZcrxLayout.IFQ_OFFSETS;
            return new ZcrxQueue(reg.get(JAVA_INT, ZcrxLayout.IFQ_ZCRX_ID),
                    reg.get(JAVA_INT, offsets + ZcrxLayout.OFFSETS_HEAD),
                    reg.get(JAVA_INT, offsets + ZcrxLayout.OFFSETS_TAIL),
                    reg.get(JAVA_INT, offsets + ZcrxLayout.OFFSETS_RQES),
                    areaReg.get(JAVA_LONG, ZcrxLayout.AREA_RQ_TOKEN));
        }
    }

    private static String hint(int errno) {
        return switch (errno) {
            case Errno.EPERM -> "zero-copy receive needs CAP_NET_ADMIN";
            case Errno.EINVAL, Errno.EOPNOTSUPP, Errno.ENODEV -> "zero-copy receive needs a NIC queue with header"
                    + " split and flow steering (loopback and virtual devices have none), a DEFER_TASKRUN ring with"
                    + " CQE32 or CQE_MIXED, and kernel 6.15 or later";
            default -> null;
        };
    }
}
