package io.uring4j.runtime;

import io.uring4j.ring.Engine;

import io.uring4j.sys.ErrnoException;

import java.time.Duration;

/**
 * Configures a {@link Uring}: how many loops, ring sizes, request slots, spinning, the close timeout, and what
 * each ring registers (fixed buffers, a table for direct descriptors).
 */
public final class UringBuilder {
    private int loops = Runtime.getRuntime().availableProcessors();
    private int entries = 256;
    private int cqEntries;
    private int maxInFlight;
    private long spinNanos;
    private int batchCompletions = 1;
    private long batchWaitNanos;
    private long closeTimeoutNanos = Duration.ofSeconds(10).toNanos();
    private BufferPool fixedBuffers;
    private int directDescriptors;
    private boolean iowait;
    private int boundedWorkers = Math.max(64, 4 * Runtime.getRuntime().availableProcessors());
    private Engine engine = Engine.configured();

    UringBuilder() {
    }

    /** Event loops, each a platform thread with its own ring; default: the number of cores. */
    public UringBuilder loops(int loops) {
        this.loops = positive("loops", loops);
        return this;
    }

    /** SQ entries per ring (default 256). */
    public UringBuilder entries(int entries) {
        this.entries = positive("entries", entries);
        return this;
    }

    /** CQ entries per ring (default 4 × entries): the burst of completions one reap can take. */
    public UringBuilder cqEntries(int cqEntries) {
        this.cqEntries = positive("cqEntries", cqEntries);
        return this;
    }

    /**
     * Request slots per loop (default: the CQ size); more submissions wait in the loop until slots free up. Slots
     * are made as they are first needed, so a large bound costs nothing until it is used (about 100 bytes a slot).
     */
    public UringBuilder maxInFlight(int maxInFlight) {
        this.maxInFlight = positive("maxInFlight", maxInFlight);
        return this;
    }

    /** How long an idle loop busy-waits for work before it blocks in the kernel (default 0: block at once). */
    public UringBuilder spin(Duration spin) {
        this.spinNanos = spin.toNanos();
        return this;
    }

    /**
     * Coalesces an idle loop's wake-ups: it sleeps until {@code completions} CQEs are ready or {@code maxDelay}
     * has passed (FEAT_MIN_TIMEOUT, 6.12; ignored on older kernels). Under DEFER_TASKRUN the
     * completing side (a softirq, another thread's send) then wakes the loop once per batch instead of once per
     * completion; the price is up to {@code maxDelay} of added latency when fewer arrive. Only a loop that found a
     * quarter of a batch (4 at least) at its last wake-up waits for one, so light load is not delayed. Default: off
     * ({@code completions} 1).
     */
    public UringBuilder batchWait(int completions, Duration maxDelay) {
        this.batchCompletions = positive("completions", completions);
        if (completions > 1 && (maxDelay.isNegative() || maxDelay.isZero())) {
            throw new IllegalArgumentException("batchWait's maxDelay must be positive: " + maxDelay);
        }
        this.batchWaitNanos = maxDelay.toNanos();
        return this;
    }

    /**
     * Whether a loop blocked in the kernel counts as waiting for I/O (default: no). The kernel counts a task that
     * sleeps with requests in flight as iowait, so an idle server — a receive armed per connection — shows its CPUs
     * as busy in iowait, as Netty's users have reported. Loops wait with IORING_ENTER_NO_IOWAIT where the kernel
     * offers it (FEAT_NO_IOWAIT, 6.15); before that, and on the portable engine, this setting changes nothing.
     */
    public UringBuilder iowait(boolean countAsIowait) {
        this.iowait = countAsIowait;
        return this;
    }

    /**
     * The most io-wq workers each loop's ring runs at once for work on regular files and block devices, what the
     * kernel cannot do without blocking (IORING_REGISTER_IOWQ_MAX_WORKERS): a sync, a direct write the file system
     * must allocate for. Default: 64, or 4 per CPU where that is more. The kernel's own bound is 4 per CPU, 8 on a
     * two-CPU machine: 64 threads that sync at once would wait in turns of 8, where the JDK's blocking calls from
     * virtual threads add carriers (up to 256) and run together, and the journal commits them as one.
     */
    public UringBuilder boundedWorkers(int workers) {
        this.boundedWorkers = positive("boundedWorkers", workers);
        return this;
    }

    /** How long close waits for the kernel to complete cancelled requests (default 10 s). */
    public UringBuilder closeTimeout(Duration timeout) {
        this.closeTimeoutNanos = timeout.toNanos();
        return this;
    }

    /** Registers {@code pool} with every loop's ring as fixed buffer {@link BufferPool#FIXED_INDEX}. */
    public UringBuilder fixedBuffers(BufferPool pool) {
        this.fixedBuffers = java.util.Objects.requireNonNull(pool);
        return this;
    }

    /**
     * Registers a sparse file table of {@code slots} on every loop's ring, for direct descriptors: accepts (and
     * sockets, opens) that install into it with {@code IORING_FILE_INDEX_ALLOC} instead of the process's fd
     * table. A slot belongs to its loop's ring: use it only with requests on that loop.
     */
    public UringBuilder directDescriptors(int slots) {
        this.directDescriptors = positive("directDescriptors", slots);
        return this;
    }

    /**
     * The kernel side of every loop's ring: {@link Engine#auto()} (the default, unless the {@code uring4j.engine}
     * property says otherwise) takes the kernel's io_uring where it is allowed and the portable engine where it is
     * refused; {@link Engine#kernel()} or {@link Engine#portable()} force one.
     */
    public UringBuilder engine(Engine engine) {
        this.engine = java.util.Objects.requireNonNull(engine, "engine");
        return this;
    }

    public Uring build() throws ErrnoException {
        return new Uring(this);
    }

    Engine engine() {
        return engine;
    }

    int loops() {
        return loops;
    }

    int entries() {
        return entries;
    }

    int cqEntries() {
        return cqEntries > 0 ? cqEntries : 4 * entries;
    }

    int maxInFlight() {
        return maxInFlight > 0 ? maxInFlight : cqEntries();
    }

    long spinNanos() {
        return spinNanos;
    }

    int batchCompletions() {
        return batchCompletions;
    }

    long batchWaitNanos() {
        return batchWaitNanos;
    }

    BufferPool fixedBuffers() {
        return fixedBuffers;
    }

    boolean iowait() {
        return iowait;
    }

    int boundedWorkers() {
        return boundedWorkers;
    }

    int directDescriptors() {
        return directDescriptors;
    }

    long closeTimeoutNanos() {
        return closeTimeoutNanos;
    }

    private static int positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
        return value;
    }
}
