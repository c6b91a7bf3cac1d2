package io.uring4j.ring;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.CqeLayout;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A cursor over one completion queue entry ({@code struct io_uring_cqe}: user_data u64 @0, res s32 @8,
 * flags u32 @12, and on CQE32 rings two more u64s @16). One cursor per ring is repositioned for each CQE, so
 * reading completions allocates nothing; it is valid only until the CQ head moves past the entry — copy what
 * you need, do not keep the cursor.
 *
 * <p>CQEs are naturally aligned in the page-aligned ring; the unaligned layouts only spare the JIT an
 * alignment check per read.
 */
public final class Cqe {
    /** The CQ ring mapping; {@link #offset} is the current CQE's byte offset in it. */
    private final MemorySegment cqes;
    private final boolean big;
    private long offset;

    Cqe(MemorySegment cqes, boolean big) {
        this.cqes = cqes;
        this.big = big;
    }

    Cqe at(long offset) {
        this.offset = offset;
        return this;
    }

    public long userData() {
        return cqes.get(JAVA_LONG_UNALIGNED, offset + CqeLayout.USER_DATA);
    }

    /** The result: {@code >= 0} as the opcode defines it, or {@code -errno}. */
    public int res() {
        return cqes.get(JAVA_INT_UNALIGNED, offset + CqeLayout.RES);
    }

    /** {@code IORING_CQE_F_*} bits, with the buffer id in the upper 16. */
    public int flags() {
        return cqes.get(JAVA_INT_UNALIGNED, offset + CqeLayout.FLAGS);
    }

    /** More CQEs will follow for this request ({@link CqeFlags#F_MORE}). */
    public boolean hasMore() {
        return CqeFlags.hasMore(flags());
    }

    /** A provided buffer was consumed ({@link CqeFlags#F_BUFFER}); see {@link #bufferId()}. */
    public boolean hasBuffer() {
        return CqeFlags.hasBuffer(flags());
    }

    public int bufferId() {
        return CqeFlags.bufferId(flags());
    }

    /** A zero-copy notification ({@link CqeFlags#F_NOTIF}). */
    public boolean isNotification() {
        return CqeFlags.isNotification(flags());
    }

    /** The socket had more data ({@link CqeFlags#F_SOCK_NONEMPTY}). */
    public boolean isSocketNonEmpty() {
        return CqeFlags.isSocketNonEmpty(flags());
    }

    /** The extra 64-bit words of a 32-byte CQE ({@code big_cqe[index]}, index 0 or 1); CQE32 rings only. */
    public long bigCqe(int index) {
        if (!big) {
            throw new IllegalStateException("big_cqe exists only on CQE32 rings");
        }
        return cqes.get(JAVA_LONG_UNALIGNED, offset + CqeLayout.BIG_CQE + 8L * java.util.Objects.checkIndex(index, 2));
    }

    @Override
    public String toString() {
        int res = res();
        return "Cqe[user_data=" + userData() + " res=" + (res < 0 ? io.uring4j.sys.Errno.name(res) : res)
                + " flags=" + CqeFlags.toString(flags()) + "]";
    }
}
