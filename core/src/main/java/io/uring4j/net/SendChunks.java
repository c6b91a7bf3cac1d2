package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A selector's or an asynchronous group's ring's native memory for queued sends: {@link Outbox#CAPACITY}-byte
 * chunks, lent to a channel's outbox ({@link Outbox}, {@link AsyncOutbox}) while it holds bytes and given back once
 * its last send has completed, so an idle connection holds none. Any thread.
 *
 * <p>Chunks come in slabs of {@value #PER_SLAB}, each its own arena, added as more are lent at once than there are.
 * A chunk is lent from the first slab that has one free, so what a steady load uses gathers in the first slabs and
 * the slabs a burst added fall idle together. An idle slab stays for a while — the next burst, often a second later,
 * finds it — and is freed once it has lent nothing for a whole {@link #TRIM_PERIOD_NANOS} (down to
 * {@value #KEEP_SLABS} slabs): ten thousand connections with bytes queued at once do not keep 160 MiB for the life
 * of the process. One daemon thread does that for every pool that has idle slabs beyond those, and sleeps otherwise.
 * A slab is freed only when every chunk of it is back: a chunk is given back only once no send can read it.
 */
final class SendChunks {
    private static final int PER_SLAB = 16;
    private static final int ALL_FREE = (1 << PER_SLAB) - 1;
    /** Slabs kept however long they lend nothing: a light load never allocates. */
    static final int KEEP_SLABS = 4;
    /** How long a slab must have lent nothing before it is freed: between one and two of these. */
    private static final long TRIM_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Pools with idle slabs beyond {@link #KEEP_SLABS}, looked at by the {@link Trimmer} each period. */
    private static final Set<SendChunks> TRIMMING = ConcurrentHashMap.newKeySet();

    /** In order of creation, but for the freed; each knows its place. */
    private final List<Slab> slabs = new ArrayList<>();
    /** No slab before this one has a free chunk. */
    private int firstFree;
    /** On {@link #TRIMMING} (or about to be). */
    private boolean trimming;
    private boolean closed;
    /** Whether the {@link Trimmer} looks at this pool; else its owner calls {@link #trim} (tests do). */
    private final boolean trimmedInBackground;

    SendChunks() {
        this(true);
    }

    SendChunks(boolean trimmedInBackground) {
        this.trimmedInBackground = trimmedInBackground;
    }

    /**
     * One chunk, as memory (its address goes to the SEND) and as a buffer view made once: a write copies into the
     * view with {@code ByteBuffer.put(int, ByteBuffer, int, int)}, which allocates nothing, where a segment over
     * the caller's buffer would be an object per write unless C2 scalar-replaces it.
     */
    record Chunk(MemorySegment memory, ByteBuffer bytes, Slab slab, int index) {
    }

    /** {@value #PER_SLAB} chunks in one arena, freed together. */
    static final class Slab {
        private final Arena arena = NativeMemory.sharedArena();
        private final Chunk[] chunks = new Chunk[PER_SLAB];
        private int place;
        /** Bit i: chunk i is free. */
        private int free = ALL_FREE;
        /** Lent a chunk since the trimmer's last look. */
        private boolean lent;

        private Slab(int place) {
            this.place = place;
            MemorySegment memory;
            try {
                memory = arena.allocate((long) PER_SLAB * Outbox.CAPACITY, 64);
            } catch (RuntimeException | Error e) {      // past uring4j's native memory limit, say
                arena.close();
                throw e;
            }
            for (int i = 0; i < PER_SLAB; i++) {
                MemorySegment chunk = memory.asSlice((long) i * Outbox.CAPACITY, Outbox.CAPACITY);
                chunks[i] = new Chunk(chunk, chunk.asByteBuffer(), this, i);
            }
        }
    }

    synchronized Chunk take() {
        if (closed) {
            throw new IllegalStateException("send chunks freed: their selector or ring is closed");
        }
        while (firstFree < slabs.size() && slabs.get(firstFree).free == 0) {
            firstFree++;
        }
        if (firstFree == slabs.size()) {
            slabs.add(new Slab(firstFree));
        }
        Slab slab = slabs.get(firstFree);
        int i = Integer.numberOfTrailingZeros(slab.free);
        slab.free &= ~(1 << i);
        slab.lent = true;
        return slab.chunks[i];
    }

    void give(Chunk chunk) {
        boolean idleSlab;
        synchronized (this) {
            Slab slab = chunk.slab();
            slab.free |= 1 << chunk.index();
            firstFree = Math.min(firstFree, slab.place);
            idleSlab = !trimming && !closed && slab.free == ALL_FREE && slabs.size() > KEEP_SLABS;
            if (idleSlab) {
                trimming = true;
            }
        }
        if (idleSlab && trimmedInBackground && TRIMMING.add(this)) {
            LockSupport.unpark(Trimmer.THREAD);
        }
    }

    /** Slabs held now. */
    synchronized int slabs() {
        return slabs.size();
    }

    /**
     * The trimmer's look: frees the slabs (beyond the first {@link #KEEP_SLABS}) that have lent nothing since the
     * previous look and have every chunk back. True while some slab beyond those is idle: look again next period.
     */
    synchronized boolean trim() {
        if (closed) {
            return trimming = false;
        }
        List<Slab> kept = new ArrayList<>(slabs.size());
        boolean idleLeft = false;
        for (Slab slab : slabs) {
            boolean idle = slab.free == ALL_FREE;
            if (idle && !slab.lent && kept.size() >= KEEP_SLABS) {
                slab.arena.close();
                continue;
            }
            idleLeft |= idle && kept.size() >= KEEP_SLABS;
            slab.lent = false;
            slab.place = kept.size();
            kept.add(slab);
        }
        slabs.clear();
        slabs.addAll(kept);
        firstFree = 0;
        return trimming = idleLeft;
    }

    /** Frees the slabs: only once no send can read a chunk. */
    synchronized void close() {
        closed = true;
        for (Slab slab : slabs) {
            slab.arena.close();
        }
        slabs.clear();
    }

    /**
     * The daemon thread that looks at the pools on {@link #TRIMMING}, at least a period apart, so that a slab it
     * frees has lent nothing for a period at least; started by the first pool with an idle slab to spare.
     */
    private static final class Trimmer {
        static final Thread THREAD = Thread.ofPlatform().daemon().name("uring4j-send-chunks-trimmer")
                .start(Trimmer::run);

        private static void run() {
            long lastLook = System.nanoTime() - TRIM_PERIOD_NANOS;
            while (true) {
                if (TRIMMING.isEmpty()) {
                    LockSupport.park();
                    continue;
                }
                long wait = lastLook + TRIM_PERIOD_NANOS - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                    continue;
                }
                lastLook = System.nanoTime();
                for (SendChunks pool : TRIMMING) {
                    TRIMMING.remove(pool);          // first: a give that finds it off the list puts it back
                    if (pool.trim()) {
                        TRIMMING.add(pool);
                    }
                }
            }
        }
    }
}
