package io.uring4j.ring;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;

import java.lang.foreign.MemorySegment;

import static io.uring4j.ring.abi.SqeLayout.OFF;
import static io.uring4j.ring.abi.SqeLayout.U32;

/**
 * One submission queue entry. The prep methods are grouped by family across the class chain
 * {@link SqeCore} (fields, the prep core) → {@link SqeFilePrep} → {@link SqeNetPrep} → this class
 * (no-ops, poll, timeouts, cancellation, provided buffers, cross-ring messages, futex, waitid, passthrough).
 *
 * <p>Timespecs ({@code struct __kernel_timespec}, see {@link Timespec}) are read by the kernel when it consumes
 * the SQE; keep them alive until submit returns (and, for updates, until the CQE).
 */
public final class Sqe extends SqeNetPrep {
    Sqe(MemorySegment slot, int index) {
        super(slot, index);
    }

    /** A no-op: completes with result 0. */
    public Sqe prepNop() {
        return prepRw(Opcode.NOP, -1, 0, 0, 0);
    }

    /** A no-op that completes with {@code result} ({@link OpFlags.Nop#INJECT_RESULT}). */
    public Sqe prepNop(int result) {
        return prepRw(Opcode.NOP, -1, 0, result, 0).opFlags(OpFlags.Nop.INJECT_RESULT);
    }

    /** One-shot poll for {@code events} (POLLIN, ...); the CQE result is the ready mask. */
    public Sqe prepPollAdd(int fd, int events) {
        return prepRw(Opcode.POLL_ADD, fd, 0, 0, 0).opFlags(events);
    }

    /** Multishot poll: a CQE with F_MORE each time the fd becomes ready, until removed. */
    public Sqe prepPollMultishot(int fd, int events) {
        return prepPollAdd(fd, events).len(OpFlags.Poll.ADD_MULTI);
    }

    /** Removes the poll request whose user_data is {@code targetUserData}. */
    public Sqe prepPollRemove(long targetUserData) {
        return prepRw(Opcode.POLL_REMOVE, -1, targetUserData, 0, 0);
    }

    /**
     * Updates a poll request in place: its events ({@link OpFlags.Poll#UPDATE_EVENTS}) and/or its user_data
     * ({@link OpFlags.Poll#UPDATE_USER_DATA}). {@code newUserData} must be 0 unless UPDATE_USER_DATA is set
     * (the kernel answers EINVAL). Current kernels replace only the event bits and keep the poll one-shot or
     * multishot as it was: ADD_MULTI in {@code pollFlags} is accepted but not applied (checked on 6.18).
     */
    public Sqe prepPollUpdate(long oldUserData, long newUserData, int events, int pollFlags) {
        return prepRw(Opcode.POLL_REMOVE, -1, oldUserData, pollFlags, newUserData).opFlags(events);
    }

    /**
     * A timeout: completes with -ETIME when {@code ts} expires, or with 0 once {@code count} other CQEs have
     * been posted (0: time only). {@code flags} are {@link OpFlags.Timeout} bits.
     */
    public Sqe prepTimeout(MemorySegment ts, int count, int flags) {
        return prepRw(Opcode.TIMEOUT, -1, address(ts), 1, Integer.toUnsignedLong(count)).opFlags(flags);
    }

    /** Removes the timeout whose user_data is {@code targetUserData}. */
    public Sqe prepTimeoutRemove(long targetUserData, int flags) {
        return prepRw(Opcode.TIMEOUT_REMOVE, -1, targetUserData, 0, 0).opFlags(flags);
    }

    /** Re-arms the timeout {@code targetUserData} with {@code ts}. */
    public Sqe prepTimeoutUpdate(MemorySegment ts, long targetUserData, int flags) {
        return prepRw(Opcode.TIMEOUT_REMOVE, -1, targetUserData, 0, address(ts))
                .opFlags(flags | OpFlags.Timeout.UPDATE);
    }

    /** A timeout for the request linked just before this SQE (which must carry IO_LINK). */
    public Sqe prepLinkTimeout(MemorySegment ts, int flags) {
        return prepRw(Opcode.LINK_TIMEOUT, -1, address(ts), 1, 0).opFlags(flags);
    }

    /**
     * Cancels requests whose user_data is {@code targetUserData}; {@link OpFlags.Cancel} bits widen the match
     * (ALL, ANY, OP). Result: 0, -ENOENT, -EALREADY, or the count with ALL.
     */
    public Sqe prepCancel(long targetUserData, int flags) {
        return prepRw(Opcode.ASYNC_CANCEL, -1, targetUserData, 0, 0).opFlags(flags);
    }

    /** Cancels requests on {@code fd} (a fixed file with {@link OpFlags.Cancel#FD_FIXED}). */
    public Sqe prepCancelFd(int fd, int flags) {
        return prepRw(Opcode.ASYNC_CANCEL, fd, 0, 0, 0).opFlags(flags | OpFlags.Cancel.FD);
    }

    /** Cancels requests with opcode {@code opcode} ({@link OpFlags.Cancel#OP}; ALL to cancel every one). */
    public Sqe prepCancelOpcode(byte opcode, int flags) {
        return prepRw(Opcode.ASYNC_CANCEL, -1, 0, opcode, 0).opFlags(flags | OpFlags.Cancel.OP);
    }

    /** Legacy provided buffers: {@code count} buffers of {@code bufLen} bytes at {@code base}, ids from {@code firstBid}. */
    public Sqe prepProvideBuffers(MemorySegment base, int bufLen, int count, int bufGroup, int firstBid) {
        return prepRw(Opcode.PROVIDE_BUFFERS, count, address(base), bufLen, firstBid).bufGroup(bufGroup);
    }

    /** Removes up to {@code count} legacy provided buffers from {@code bufGroup}; the result is how many. */
    public Sqe prepRemoveBuffers(int count, int bufGroup) {
        return prepRw(Opcode.REMOVE_BUFFERS, count, 0, 0, 0).bufGroup(bufGroup);
    }

    /** Posts a CQE {@code (userData, result)} to the ring {@code ringFd} (5.18). */
    public Sqe prepMsgRing(int ringFd, int result, long userData, int flags) {
        return prepRw(Opcode.MSG_RING, ringFd, OpFlags.MsgRing.DATA, result, userData).opFlags(flags);
    }

    /** Like {@link #prepMsgRing}, with the target CQE's flags set to {@code cqeFlags}. */
    public Sqe prepMsgRingCqeFlags(int ringFd, int result, long userData, int flags, int cqeFlags) {
        return prepMsgRing(ringFd, result, userData, flags | OpFlags.MsgRing.FLAGS_PASS).fileIndex(cqeFlags);
    }

    /** Passes registered file {@code sourceSlot} into slot {@code targetSlot} (or ALLOC) of the ring {@code ringFd}. */
    public Sqe prepMsgRingFd(int ringFd, int sourceSlot, int targetSlot, long userData, int flags) {
        return prepRw(Opcode.MSG_RING, ringFd, OpFlags.MsgRing.SEND_FD, 0, userData).opFlags(flags)
                .addr3(sourceSlot).directSlot(targetSlot);
    }

    /** waitid(idtype, id, infop, options) (6.7); {@code infop} is a siginfo_t or NULL. */
    public Sqe prepWaitid(int idtype, int id, MemorySegment infop, int options, int flags) {
        return prepRw(Opcode.WAITID, id, 0, idtype, address(infop)).opFlags(flags).fileIndex(options);
    }

    /**
     * futex2 wait on {@code futex} while it holds {@code value} (6.7); {@code futexFlags} are
     * {@link OpFlags.Futex} bits (SIZE_U32, PRIVATE), {@code mask} usually {@link OpFlags.Futex#MATCH_ANY}.
     * The result is 0 once woken, -EAGAIN if the word no longer held {@code value}.
     */
    public Sqe prepFutexWait(MemorySegment futex, long value, long mask, int futexFlags, int flags) {
        return prepRw(Opcode.FUTEX_WAIT, futexFlags, address(futex), 0, value).addr3(mask).opFlags(flags);
    }

    /** futex2 wake of up to {@code count} waiters (6.7); the result is how many were woken. */
    public Sqe prepFutexWake(MemorySegment futex, long count, long mask, int futexFlags, int flags) {
        return prepRw(Opcode.FUTEX_WAKE, futexFlags, address(futex), 0, count).addr3(mask).opFlags(flags);
    }

    /**
     * futex_waitv over {@code count} {@code struct futex_waitv} entries ({@link OpFlags.Futex#WAITV_SIZE} bytes
     * each) (6.7); the result is the index of the word that woke.
     */
    public Sqe prepFutexWaitv(MemorySegment waitv, int count, int flags) {
        return prepRw(Opcode.FUTEX_WAITV, 0, address(waitv), count, 0).opFlags(flags);
    }

    /** epoll_wait into {@code events} (12-byte {@code struct epoll_event}s) (6.15). */
    public Sqe prepEpollWait(int epfd, MemorySegment events, int maxEvents, int flags) {
        return prepRw(Opcode.EPOLL_WAIT, epfd, address(events), maxEvents, 0).opFlags(flags);
    }

    /** epoll_ctl(epfd, op, fd, event). */
    public Sqe prepEpollCtl(int epfd, int fd, int op, MemorySegment event) {
        return prepRw(Opcode.EPOLL_CTL, epfd, address(event), op, fd);
    }

    /** File-specific passthrough command {@code cmdOp}; write the payload into {@link #cmd()}. */
    public Sqe prepUringCmd(int cmdOp, int fd) {
        prepRw(Opcode.URING_CMD, fd, 0, 0, 0);
        slot.set(U32, OFF, cmdOp);
        return this;
    }
}
