package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The send chunks' memory after a burst: the slabs it added are freed once idle for a trimmer's period (two looks),
 * never while a chunk of theirs is lent, and a steady load afterwards keeps to the first slabs. The looks are made
 * here ({@link SendChunks#trim}), so nothing waits on a clock but the one test of the trimmer thread itself.
 */
class SendChunksTest {
    private static final int PER_SLAB = 16;
    private static final long SLAB_BYTES = (long) PER_SLAB * Outbox.CAPACITY;

    /** Looked at by the tests alone, not by the trimmer thread (but in its own test). */
    private SendChunks chunks = new SendChunks(false);

    @AfterEach
    void close() {
        chunks.close();
    }

    private List<SendChunks.Chunk> take(int n) {
        List<SendChunks.Chunk> taken = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            taken.add(chunks.take());
        }
        return taken;
    }

    @Test
    void aBurstsSlabsAreFreedOnceIdleForAWholePeriod() {
        long before = NativeMemory.inUse();
        take(1000).forEach(chunks::give);
        assertThat(chunks.slabs()).isEqualTo(63);
        assertThat(NativeMemory.inUse() - before).isEqualTo(63 * SLAB_BYTES);

        assertThat(chunks.trim()).as("lent since the last look: kept, looked at again").isTrue();
        assertThat(chunks.slabs()).isEqualTo(63);
        assertThat(chunks.trim()).as("nothing idle left beyond the kept slabs").isFalse();
        assertThat(chunks.slabs()).isEqualTo(SendChunks.KEEP_SLABS);
        assertThat(NativeMemory.inUse() - before).isEqualTo(SendChunks.KEEP_SLABS * SLAB_BYTES);
    }

    @Test
    void aSlabWithAChunkLentIsNeverFreed() {
        List<SendChunks.Chunk> taken = take(20 * PER_SLAB);
        List<SendChunks.Chunk> stillLent = new ArrayList<>();
        for (int i = 0; i < taken.size(); i++) {
            if (i % PER_SLAB == 5) {
                stillLent.add(taken.get(i));        // one per slab: each slab has a send in flight
            } else {
                chunks.give(taken.get(i));
            }
        }
        chunks.trim();
        chunks.trim();
        chunks.trim();
        assertThat(chunks.slabs()).isEqualTo(20);
        for (SendChunks.Chunk chunk : stillLent) {
            chunk.memory().set(JAVA_LONG, 0, 42L);       // a freed slab would throw: its arena is closed
            assertThat(chunk.memory().get(JAVA_LONG, 0)).isEqualTo(42L);
        }
        stillLent.forEach(chunks::give);
        chunks.trim();
        chunks.trim();
        assertThat(chunks.slabs()).isEqualTo(SendChunks.KEEP_SLABS);
    }

    @Test
    void aSlabLentFromBetweenTwoLooksIsKeptForAnotherPeriod() {
        take(10 * PER_SLAB).forEach(chunks::give);
        chunks.trim();
        take(7 * PER_SLAB).forEach(chunks::give);   // the first seven slabs, lent again after the look
        assertThat(chunks.trim()).isTrue();
        assertThat(chunks.slabs()).as("the three idle since the first look are freed").isEqualTo(7);
        assertThat(chunks.trim()).isFalse();
        assertThat(chunks.slabs()).isEqualTo(SendChunks.KEEP_SLABS);
    }

    @Test
    void aSteadyLoadAfterABurstKeepsToTheFirstSlabs() {
        take(1000).forEach(chunks::give);
        for (int look = 0; look < 2; look++) {
            for (int round = 0; round < 50; round++) {
                take(40).forEach(chunks::give);      // forty at a time fit in the first three slabs
            }
            chunks.trim();
        }
        assertThat(chunks.slabs()).isEqualTo(SendChunks.KEEP_SLABS);
    }

    @Test
    void aClosedPoolIsNotTrimmedAndLendsNothing() {
        take(100).forEach(chunks::give);
        chunks.close();
        assertThat(chunks.trim()).isFalse();
        assertThatThrownBy(chunks::take).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void theTrimmerThreadFreesABurstsSlabsOnItsOwn() throws InterruptedException {
        chunks.close();
        chunks = new SendChunks();
        take(500).forEach(chunks::give);
        // Two looks a second apart; the bound is only there so that a broken trimmer fails instead of hanging.
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (chunks.slabs() > SendChunks.KEEP_SLABS && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(chunks.slabs()).isEqualTo(SendChunks.KEEP_SLABS);
    }
}
