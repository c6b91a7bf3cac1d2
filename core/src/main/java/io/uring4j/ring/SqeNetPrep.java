package io.uring4j.ring;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;

import java.lang.foreign.MemorySegment;

import static io.uring4j.ring.abi.SqeLayout.ADDR;
import static io.uring4j.ring.abi.SqeLayout.FILE_INDEX;
import static io.uring4j.ring.abi.SqeLayout.OFF;
import static io.uring4j.ring.abi.SqeLayout.OPTNAME;
import static io.uring4j.ring.abi.SqeLayout.U16;
import static io.uring4j.ring.abi.SqeLayout.U32;

/**
 * Prep methods for sockets. Addresses are native {@code struct sockaddr} segments; {@code msghdr}s and the
 * memory they point to stay alive until the CQE (for zero-copy sends, until the {@link CqeFlags#F_NOTIF} CQE).
 * Multishot receives need a provided-buffer group: chain {@link #bufferSelect(int)}.
 */
abstract sealed class SqeNetPrep extends SqeFilePrep permits Sqe {
    SqeNetPrep(MemorySegment slot, int index) {
        super(slot, index);
    }

    /** socket(domain, type, protocol); the CQE result is the fd (5.19). */
    public final Sqe prepSocket(int domain, int type, int protocol) {
        return prepRw(Opcode.SOCKET, domain, 0, protocol, type);
    }

    /** socket() into registered slot {@code slot} (or {@link OpFlags.FileIndex#ALLOC}). */
    public final Sqe prepSocketDirect(int domain, int type, int protocol, int slot) {
        return prepSocket(domain, type, protocol).directSlot(slot);
    }

    /**
     * accept4; {@code addr}/{@code addrLen} may be {@link MemorySegment#NULL}. {@code addrLen} is a socklen_t
     * holding the size of {@code addr} on entry.
     */
    public final Sqe prepAccept(int fd, MemorySegment addr, MemorySegment addrLen, int flags) {
        return prepRw(Opcode.ACCEPT, fd, address(addr), 0, address(addrLen)).opFlags(flags);
    }

    /** accept4 into registered slot {@code slot} (or ALLOC: the CQE result is then the slot). */
    public final Sqe prepAcceptDirect(int fd, MemorySegment addr, MemorySegment addrLen, int flags, int slot) {
        return prepAccept(fd, addr, addrLen, flags).directSlot(slot);
    }

    /** Multishot accept: one CQE with {@link CqeFlags#F_MORE} per connection until it ends (5.19). */
    public final Sqe prepMultishotAccept(int fd, MemorySegment addr, MemorySegment addrLen, int flags) {
        return prepAccept(fd, addr, addrLen, flags).addIoprio(OpFlags.Accept.MULTISHOT);
    }

    /** Multishot accept into slots the kernel allocates; each CQE result is a slot. */
    public final Sqe prepMultishotAcceptDirect(int fd, MemorySegment addr, MemorySegment addrLen, int flags) {
        return prepMultishotAccept(fd, addr, addrLen, flags).fileIndex(OpFlags.FileIndex.ALLOC);
    }

    /** connect(fd, addr, addr.byteSize()). */
    public final Sqe prepConnect(int fd, MemorySegment addr) {
        return prepRw(Opcode.CONNECT, fd, address(addr), 0, addr.byteSize());
    }

    /** bind (6.11). */
    public final Sqe prepBind(int fd, MemorySegment addr) {
        return prepRw(Opcode.BIND, fd, address(addr), 0, addr.byteSize());
    }

    /** listen (6.11). */
    public final Sqe prepListen(int fd, int backlog) {
        return prepRw(Opcode.LISTEN, fd, 0, backlog, 0);
    }

    /** send of all of {@code buf}; {@code flags} are MSG_*. */
    public final Sqe prepSend(int fd, MemorySegment buf, int flags) {
        return prepRw(Opcode.SEND, fd, address(buf), length(buf), 0).opFlags(flags);
    }

    /** sendto: send with a destination address. */
    public final Sqe prepSendto(int fd, MemorySegment buf, int flags, MemorySegment dest) {
        return prepSend(fd, buf, flags).sendSetAddr(dest);
    }

    /** Zero-copy send: a result CQE with F_MORE, then an F_NOTIF CQE once {@code buf} may be reused (6.0). */
    public final Sqe prepSendZc(int fd, MemorySegment buf, int flags, int zcFlags) {
        return prepRw(Opcode.SEND_ZC, fd, address(buf), length(buf), 0).opFlags(flags).ioprio(zcFlags);
    }

    /** Zero-copy send from registered buffer {@code bufIndex}. */
    public final Sqe prepSendZcFixed(int fd, MemorySegment buf, int flags, int zcFlags, int bufIndex) {
        return prepSendZc(fd, buf, flags, zcFlags | OpFlags.SendRecv.FIXED_BUF).bufIndex(bufIndex);
    }

    /** recv into {@code buf}. */
    public final Sqe prepRecv(int fd, MemorySegment buf, int flags) {
        return prepRw(Opcode.RECV, fd, address(buf), length(buf), 0).opFlags(flags);
    }

    /** recv of up to {@code len} bytes into a provided buffer picked from {@code bufGroup}. */
    public final Sqe prepRecvSelect(int fd, int len, int flags, int bufGroup) {
        return prepRw(Opcode.RECV, fd, 0, len, 0).opFlags(flags).bufferSelect(bufGroup);
    }

    /**
     * Adds a destination address to a prepared SEND or SEND_ZC (liburing's {@code io_uring_prep_send_set_addr}):
     * {@code addr2} points at the sockaddr, {@code addr_len} holds its size.
     */
    public final Sqe sendSetAddr(MemorySegment dest) {
        off(address(dest));
        slot.set(U16, FILE_INDEX, (short) dest.byteSize());
        return (Sqe) this;
    }

    /** Multishot recv into provided buffers: chain {@code .bufferSelect(group)} (6.0). */
    public final Sqe prepRecvMultishot(int fd, int flags) {
        return prepRw(Opcode.RECV, fd, 0, 0, 0).opFlags(flags).addIoprio(OpFlags.SendRecv.RECV_MULTISHOT);
    }

    /**
     * Multishot recv with limits (6.17): each CQE carries at most {@code perCqe} bytes (0: no limit), and the
     * request ends (a CQE without F_MORE) once {@code total} bytes were received (0: never). Chain
     * {@code .bufferSelect(group)}. Older kernels answer EINVAL.
     */
    public final Sqe prepRecvMultishot(int fd, int flags, int perCqe, int total) {
        return prepRecvMultishot(fd, flags).len(perCqe).fileIndex(total);
    }

    /**
     * send of {@code count} {@code struct iovec}s at {@code iovecs} ({@link OpFlags.SendRecv#VECTORIZED}, 6.17):
     * a gathering send without a msghdr.
     */
    public final Sqe prepSendv(int fd, MemorySegment iovecs, int count, int flags) {
        return prepRw(Opcode.SEND, fd, address(iovecs), count, 0).opFlags(flags)
                .addIoprio(OpFlags.SendRecv.VECTORIZED);
    }

    /**
     * Zero-copy receive from the interface queue {@code zcrxId} ({@link Registrar#zcrxIfq}, 6.15): multishot;
     * each CQE (32 bytes: CQE32 or CQE_MIXED rings) names where in the registered area the data landed.
     * {@code len} 0 means no limit.
     */
    public final Sqe prepRecvZc(int fd, int zcrxId, int len, int flags) {
        return prepRw(Opcode.RECV_ZC, fd, 0, len, 0).opFlags(flags).fileIndex(zcrxId)
                .addIoprio(OpFlags.SendRecv.RECV_MULTISHOT);
    }

    /**
     * A send bundle (6.10, FEAT_RECVSEND_BUNDLE; liburing's {@code io_uring_prep_send_bundle}): sends the
     * buffers queued in a provided-buffer ring, in ring order, as one request — chain {@code .bufferSelect(group)}.
     * {@code len} 0 sends every buffer queued; the result is the bytes sent.
     */
    public final Sqe prepSendBundle(int fd, int len, int flags) {
        return prepRw(Opcode.SEND, fd, 0, len, 0).opFlags(flags).addIoprio(OpFlags.SendRecv.BUNDLE);
    }

    /**
     * A receive bundle (6.10): fills as many provided buffers as the data needs in one CQE, whose buffer id is
     * the first; the rest follow it in ring order — chain {@code .bufferSelect(group)}.
     */
    public final Sqe prepRecvBundle(int fd, int flags) {
        return prepRw(Opcode.RECV, fd, 0, 0, 0).opFlags(flags).addIoprio(OpFlags.SendRecv.BUNDLE);
    }

    /** A multishot receive of bundles (6.10): {@link #prepRecvBundle} until it ends. */
    public final Sqe prepRecvMultishotBundle(int fd, int flags) {
        return prepRecvMultishot(fd, flags).addIoprio(OpFlags.SendRecv.BUNDLE);
    }

    /** sendmsg. */
    public final Sqe prepSendmsg(int fd, MemorySegment msghdr, int flags) {
        return prepRw(Opcode.SENDMSG, fd, address(msghdr), 1, 0).opFlags(flags);
    }

    /** Zero-copy sendmsg (6.1). */
    public final Sqe prepSendmsgZc(int fd, MemorySegment msghdr, int flags) {
        return prepRw(Opcode.SENDMSG_ZC, fd, address(msghdr), 1, 0).opFlags(flags);
    }

    /** recvmsg. */
    public final Sqe prepRecvmsg(int fd, MemorySegment msghdr, int flags) {
        return prepRw(Opcode.RECVMSG, fd, address(msghdr), 1, 0).opFlags(flags);
    }

    /** Multishot recvmsg into provided buffers (chain {@code bufferSelect}); each buffer starts with io_uring_recvmsg_out. */
    public final Sqe prepRecvmsgMultishot(int fd, MemorySegment msghdr, int flags) {
        return prepRecvmsg(fd, msghdr, flags).addIoprio(OpFlags.SendRecv.RECV_MULTISHOT);
    }

    /** shutdown(fd, how). */
    public final Sqe prepShutdown(int fd, int how) {
        return prepRw(Opcode.SHUTDOWN, fd, 0, how, 0);
    }

    /**
     * A socket URING_CMD ({@link OpFlags.SocketCmd}: SIOCINQ, SIOCOUTQ, GETSOCKOPT, SETSOCKOPT): level and
     * optname, with {@code optval} the option buffer.
     */
    public final Sqe prepCmdSock(int cmdOp, int fd, int level, int optname, MemorySegment optval) {
        prepRw(Opcode.URING_CMD, fd, 0, 0, 0);
        slot.set(U32, OFF, cmdOp);
        slot.set(U32, ADDR, level);
        slot.set(U32, OPTNAME, optname);
        slot.set(U32, FILE_INDEX, length(optval));
        return addr3(address(optval));
    }

    /**
     * getsockname (or, with {@code peer}, getpeername) through URING_CMD ({@link OpFlags.SocketCmd#GETSOCKNAME}):
     * {@code addrLen} is a socklen_t holding the size of {@code addr} on entry. Newer than 6.18.
     */
    public final Sqe prepCmdGetsockname(int fd, MemorySegment addr, MemorySegment addrLen, boolean peer) {
        prepRw(Opcode.URING_CMD, fd, address(addr), 0, 0);
        slot.set(U32, OFF, OpFlags.SocketCmd.GETSOCKNAME);
        slot.set(U32, FILE_INDEX, peer ? 1 : 0);
        return addr3(address(addrLen));
    }
}
