package io.uring4j.portable;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The socket opcodes, run as the kernel runs them: a non-blocking attempt (MSG_DONTWAIT; a connecting socket
 * made non-blocking for the one call), and on EAGAIN a wait armed on the {@link Poller}, after which the
 * attempt runs again — on the poller thread or in the issuer's next enter, as nothing here blocks (except an
 * accept on a blocking listener, which goes to the io-wq: see {@link #acceptOnce}). Multishot accept and
 * receive post a CQE with F_MORE per result and re-arm, until an error, end of stream, or (receive) an empty
 * buffer ring: -ENOBUFS, with the data left in the socket.
 *
 * <p>What the SQE points at (buffers, addresses, msghdrs) is the submitter's until the final CQE: we use it
 * only while executing, never after the request's completion.
 */
final class SocketOps {
    /** Receives in a row before a multishot receive re-arms (the kernel's MULTISHOT_MAX_RETRY): fairness. */
    private static final int MULTISHOT_BATCH = 32;
    private static final int ACCEPT_IOPRIO = OpFlags.Accept.MULTISHOT | OpFlags.Accept.DONTWAIT
            | OpFlags.Accept.POLL_FIRST;
    private static final int RECV_IOPRIO = OpFlags.SendRecv.POLL_FIRST | OpFlags.SendRecv.RECV_MULTISHOT;
    private static final int SENDMSG_ZC_IOPRIO = OpFlags.SendRecv.POLL_FIRST | OpFlags.SendRecv.ZC_REPORT_USAGE;
    private static final int SEND_ZC_IOPRIO = SENDMSG_ZC_IOPRIO | OpFlags.SendRecv.FIXED_BUF;
    private static final int SOCKADDR_STORAGE = 128;
    /** connect: an EINPROGRESS is being waited for; its outcome is SO_ERROR. */
    private static final int CONNECTING = 1;

    private final PortableRing ring;

    SocketOps(PortableRing ring) {
        this.ring = ring;
    }

    /** The kernel's prep checks for the socket opcodes: a failure here fails the whole chain. */
    static int prep(Request r) {
        boolean select = (r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0;
        return switch (r.opcode) {
            case Opcode.SOCKET -> r.addr != 0 || r.opFlags != 0 || r.bufIndex != 0 || (r.off & ~0xffffffffL) != 0
                    ? -Errno.EINVAL : direct(r, (int) r.off);
            case Opcode.CONNECT -> r.len != 0 || r.bufIndex != 0 || r.opFlags != 0 || r.fileIndex != 0
                    ? -Errno.EINVAL : 0;
            // A multishot accept allocates its slots: it takes no explicit one.
            case Opcode.ACCEPT -> r.len != 0 || r.bufIndex != 0 || (r.ioprio & ~ACCEPT_IOPRIO) != 0
                    || (r.opFlags & ~(Sockets.SOCK_CLOEXEC | Sockets.SOCK_NONBLOCK)) != 0
                    || ((r.ioprio & OpFlags.Accept.MULTISHOT) != 0 && r.fileIndex != 0
                        && r.fileIndex != FileTable.FILE_INDEX_ALLOC) ? -Errno.EINVAL : direct(r, r.opFlags);
            case Opcode.SEND -> select || (r.ioprio & ~OpFlags.SendRecv.POLL_FIRST) != 0 ? -Errno.EINVAL : 0;
            // Zero-copy sends: no skipped CQE (the kernel refuses it too); fixed buffers on SEND_ZC only.
            case Opcode.SEND_ZC, Opcode.SENDMSG_ZC -> select || (r.sqeFlags & SqeFlags.CQE_SKIP_SUCCESS) != 0
                    || (r.ioprio & ~(r.opcode == Opcode.SEND_ZC ? SEND_ZC_IOPRIO : SENDMSG_ZC_IOPRIO)) != 0
                    ? -Errno.EINVAL : r.opcode == Opcode.SENDMSG_ZC && r.addr == 0 ? -Errno.EFAULT : 0;
            // len caps each receive; a multishot total in optlen (6.17) is not implemented: EINVAL, as before 6.17.
            case Opcode.RECV -> (r.ioprio & ~RECV_IOPRIO) != 0 || r.fileIndex != 0
                    || ((r.ioprio & OpFlags.SendRecv.RECV_MULTISHOT) != 0 && !select) ? -Errno.EINVAL : 0;
            case Opcode.SENDMSG -> select || (r.ioprio & ~OpFlags.SendRecv.POLL_FIRST) != 0
                    ? -Errno.EINVAL : r.addr == 0 ? -Errno.EFAULT : 0;
            // Buffer select only with multishot (a single buffer-select recvmsg is not implemented).
            case Opcode.RECVMSG -> (r.ioprio & ~RECV_IOPRIO) != 0 || r.off != 0
                    || select != ((r.ioprio & OpFlags.SendRecv.RECV_MULTISHOT) != 0) ? -Errno.EINVAL
                    : r.addr == 0 ? -Errno.EFAULT : select ? MultishotRecvmsg.prep(r) : 0;
            // BIND copies the address at prep, as the kernel does (move_addr_to_kernel); its length is in addr2.
            case Opcode.BIND -> r.len != 0 || r.bufIndex != 0 || r.opFlags != 0 || r.fileIndex != 0 ? -Errno.EINVAL
                    : copyAddress(r);
            case Opcode.LISTEN -> r.addr != 0 || r.bufIndex != 0 || r.opFlags != 0 || r.fileIndex != 0 || r.off != 0
                    ? -Errno.EINVAL : 0;
            case Opcode.SHUTDOWN -> r.off != 0 || r.addr != 0 || r.opFlags != 0 || r.bufIndex != 0 ? -Errno.EINVAL : 0;
            default -> 0;
        };
    }

    /**
     * SOCKET and ACCEPT into a direct descriptor (file_index): asking for close-on-exec is -EINVAL, as in the
     * kernel (a descriptor has no such flag), and the fd behind our slot gets it, so that it stays the engine's.
     * {@code flags} holds SOCK_CLOEXEC where the request has it: the socket type, or the accept flags.
     */
    private static int direct(Request r, int flags) {
        if (r.fileIndex == 0) {
            return 0;
        }
        if ((flags & Sockets.SOCK_CLOEXEC) != 0) {
            return -Errno.EINVAL;
        }
        if (r.opcode == Opcode.SOCKET) {
            r.off |= Sockets.SOCK_CLOEXEC;
        } else {
            r.opFlags |= Sockets.SOCK_CLOEXEC;
        }
        return 0;
    }

    /** BIND's sockaddr ({@code addr2} bytes at {@code addr}) into the request: at most a sockaddr_storage. */
    private static int copyAddress(Request r) {
        int len = (int) r.off;
        if (len < 0 || len > SOCKADDR_STORAGE) {
            return -Errno.EINVAL;
        }
        if (len > 0 && r.addr == 0) {
            return -Errno.EFAULT;
        }
        if (r.iov == null || r.iov.byteSize() < SOCKADDR_STORAGE) {
            r.iov = Arena.ofAuto().allocate(SOCKADDR_STORAGE, 8);
        }
        MemorySegment.copy(PortableRing.USER, r.addr, r.iov, 0, len);
        return 0;
    }

    /** SEND_ZC, with a fixed buffer if asked: sent by copying, as SEND. */
    int sendZc(Request r, int fd) {
        int check = (r.ioprio & OpFlags.SendRecv.FIXED_BUF) == 0 ? 0 : ring.buffers.check(r.bufIndex, r.addr, r.len);
        return check < 0 ? check : sendRecv(r, fd, true);
    }

    /** RECV: into the SQE's buffer, or with BUFFER_SELECT into provided ones. */
    int recv(Request r, int fd) {
        return (r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0 ? recvSelect(r, fd) : sendRecv(r, fd, false);
    }

    /** RECVMSG: with the application's msghdr, or multishot into provided buffers. */
    int recvmsg(Request r, int fd) {
        return (r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0 ? recvSelect(r, fd) : message(r, fd, false);
    }

    /** SENDMSG or RECVMSG with the application's msghdr, which it keeps until the completion. */
    int message(Request r, int fd, boolean send) {
        return retry(r, fd, SocketSys.transferMsg(send, fd, r.addr, r.opFlags | Sockets.MSG_DONTWAIT));
    }

    /**
     * The result of an attempt, or, on EAGAIN, a wait for the opcode's readiness (unless the caller asked for
     * MSG_DONTWAIT).
     */
    private int retry(Request r, int fd, int res) {
        if (res != -Errno.EAGAIN || (r.opFlags & Sockets.MSG_DONTWAIT) != 0) {
            return res;
        }
        return ring.await(r, fd);
    }

    /**
     * SEND (to the address in addr2 and addr_len, if any: sendto) or RECV into the SQE's buffer. With
     * MSG_WAITALL on a stream socket a short transfer goes on where it stopped ({@link Request#progress} bytes
     * in) until the whole length is done or the stream ends; anything shorter fails a link, as in the kernel.
     */
    int sendRecv(Request r, int fd, boolean send) {
        boolean waitAll = (r.opFlags & Sockets.MSG_WAITALL) != 0;
        r.wanted = waitAll ? r.len : 0;
        int flags = (r.opFlags & ~Sockets.MSG_WAITALL) | Sockets.MSG_DONTWAIT;
        while (true) {
            long addr = r.addr + r.progress;
            long len = Integer.toUnsignedLong(r.len) - r.progress;
            int res = send ? SocketSys.send(fd, addr, len, flags, r.off, r.fileIndex & 0xffff)
                    : SocketSys.recv(fd, addr, len, flags);
            if (res > 0 && waitAll && res < len && SocketSys.isStream(fd)) {
                r.progress += res;
                continue;
            }
            if (r.progress == 0) {
                return retry(r, fd, res);
            }
            if (res == -Errno.EAGAIN) {
                return ring.await(r, fd);
            }
            return res > 0 ? r.progress + res : r.progress;     // the end of the stream, or an error: what was done
        }
    }

    /**
     * RECV with BUFFER_SELECT, single or multishot, and multishot RECVMSG: each receive takes the next buffer of
     * the group's ring; F_BUFFER and its id go with the result. A receive that gets no data leaves the buffer in
     * the ring.
     */
    private int recvSelect(Request r, int fd) {
        boolean multishot = (r.ioprio & OpFlags.SendRecv.RECV_MULTISHOT) != 0;
        BufRings.Group group = ring.bufRings.group(r.bufIndex);
        if (group == null) {
            return -Errno.ENOBUFS;
        }
        for (int i = 0; ; i++) {
            if (r.cancelRequested) {
                return -Errno.ECANCELED;        // a cancel takes effect before the next receive, as in the kernel
            }
            int res;
            int bid;
            int lenAsked;
            synchronized (group) {
                if (!group.hasBuffer()) {
                    return -Errno.ENOBUFS;
                }
                int len = group.len();
                if (r.len != 0 && r.opcode == Opcode.RECV) {
                    len = Math.min(len, r.len);         // RECVMSG's len is the template's iovec count
                }
                bid = group.bid();
                lenAsked = len;
                int flags = r.opFlags | Sockets.MSG_DONTWAIT;
                res = r.opcode == Opcode.RECVMSG ? MultishotRecvmsg.receive(r, fd, group.addr(), len, flags)
                        : SocketSys.recv(fd, group.addr(), Integer.toUnsignedLong(len), flags);
                if (res > 0) {
                    group.consume();
                }
            }
            if (res <= 0) {
                return retry(r, fd, res);        // no buffer on EOF or an error, as in the kernel
            }
            int flags = CqeFlags.F_BUFFER | (bid << CqeFlags.BUFFER_SHIFT);
            if (!multishot) {
                r.cqeFlags = flags;
                return res;
            }
            ring.cq.postMore(r, res, flags);
            if (i + 1 == MULTISHOT_BATCH || res < lenAsked) {
                // Others get a turn (ready again at once); and a short receive emptied the socket, so the
                // next one would only say EAGAIN: arm straight away (the one-shot arming re-checks readiness).
                return ring.await(r, fd);
            }
        }
    }

    /**
     * connect(2) with the socket non-blocking for the call (the kernel passes O_NONBLOCK for its attempt too),
     * so that a connect in progress waits on the poller — cancellable, and a LINK_TIMEOUT can end it.
     */
    int connect(Request r, int fd) {
        if (r.progress == CONNECTING) {
            return SocketSys.soError(fd);
        }
        int flags = Sys.fcntl(fd, Sys.F_GETFL, 0);
        if (flags < 0) {
            return flags;
        }
        boolean blocking = (flags & LibC.O_NONBLOCK) == 0;
        if (blocking) {
            Sys.fcntl(fd, Sys.F_SETFL, flags | LibC.O_NONBLOCK);
        }
        int res = SocketSys.connect(fd, r.addr, (int) r.off);
        if (blocking) {
            Sys.fcntl(fd, Sys.F_SETFL, flags);
        }
        if (res == -Errno.EINPROGRESS) {
            r.progress = CONNECTING;
            return ring.await(r, fd);
        }
        return res == -Errno.EAGAIN ? ring.await(r, fd) : res;
    }

    /**
     * ACCEPT, single or multishot (one CQE with F_MORE per connection, until an error), into the fd table or a
     * direct descriptor: with FILE_INDEX_ALLOC each result is the slot picked, and a full table ends a
     * multishot accept with -ENFILE.
     */
    int accept(Request r, int fd, boolean onWorker) {
        boolean multishot = (r.ioprio & OpFlags.Accept.MULTISHOT) != 0;
        while (true) {
            if (r.cancelRequested) {
                return -Errno.ECANCELED;
            }
            int res = acceptOnce(r, fd, onWorker);
            if (res == -Errno.EAGAIN) {
                return (r.ioprio & OpFlags.Accept.DONTWAIT) != 0 ? res : ring.await(r, fd);
            }
            if (res >= 0 && r.fileIndex != 0) {
                res = ring.files.install(res, r.fileIndex);    // a full table: the connection is closed
            }
            if (!multishot || res < 0) {
                return res;
            }
            ring.cq.postMore(r, res, 0);
        }
    }

    /**
     * One accept4 that must not block. accept4 has no per-call MSG_DONTWAIT, and the listener's O_NONBLOCK is
     * shared with every other user of it, so a blocking listener is asked first (poll, zero timeout) and
     * accepted from on an io-wq worker: should another acceptor take the connection in between, only that
     * worker waits for the next one.
     */
    private int acceptOnce(Request r, int fd, boolean onWorker) {
        int flags = Sys.fcntl(fd, Sys.F_GETFL, 0);
        if (flags < 0) {
            return flags;
        }
        if ((flags & LibC.O_NONBLOCK) == 0) {
            int ready = SocketSys.readyNow(fd, OpFlags.Poll.POLLIN);
            if (ready <= 0) {
                return ready == 0 ? -Errno.EAGAIN : ready;
            }
            if (!onWorker) {
                return PortableRing.NEEDS_WORKER;
            }
        }
        return SocketSys.accept4(fd, r.addr, r.off, r.opFlags);
    }
}
