package io.uring4j.fs;

import io.uring4j.runtime.NativeMemory;
import io.uring4j.runtime.OnVirtualThread;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Native stand-ins for heap buffers: a thread reuses its own (a virtual one its carrier's), never one in use. */
class TempBuffersTest {
    private static final long MIB = 1 << 20;

    @Test
    void aPlatformThreadReusesItsOwnBufferForLargeTransfersGrowingItToFit() throws Exception {
        OnThread.run(() -> {
            TempBuffers.Lease first = TempBuffers.lease(MIB, 8);
            long address = first.segment().address();
            first.release();
            TempBuffers.Lease smaller = TempBuffers.lease(MIB / 2 + 1, 4096);
            assertThat(smaller.segment().address()).isEqualTo(address);
            assertThat(smaller.segment().byteSize()).isEqualTo(MIB / 2 + 1);
            smaller.release();

            TempBuffers.Lease larger = TempBuffers.lease(3 * MIB, 8);
            larger.release();
            TempBuffers.Lease again = TempBuffers.lease(2 * MIB, 8);
            assertThat(again.segment().address()).as("the grown buffer is kept")
                    .isEqualTo(larger.segment().address());
            again.release();
        });
    }

    /**
     * A stream's 8 KiB calls reuse the thread's own buffer too, as the JDK's temporary buffer, not one of a pool that
     * every thread's CPU writes; the same size is the same lease, so none allocates. While it is held, a pool buffer.
     */
    @Test
    void aPlatformThreadsSmallTransfersReuseItsOwnBufferAndAPoolOneWhileItIsHeld() throws Exception {
        OnThread.run(() -> {
            TempBuffers.Lease first = TempBuffers.lease(8192, 8);
            assertThat(first.owned()).as("the thread's own buffer").isNotNull();
            assertThat(first.pooled()).isNull();
            first.release();
            TempBuffers.Lease again = TempBuffers.lease(8192, 8);
            assertThat(again).as("the same lease again").isSameAs(first);
            TempBuffers.Lease whileHeld = TempBuffers.lease(100, 8);
            assertThat(whileHeld.pooled()).as("a pool buffer while the own one is held").isNotNull();
            assertThat(disjoint(again.segment(), whileHeld.segment())).isTrue();
            whileHeld.release();
            again.release();
        });
    }

    @Test
    void aVirtualThreadsSmallTransfersReuseItsCarriersBuffer() throws Exception {
        OnVirtualThread.supply(() -> {
            // No blocking call in between: the virtual thread stays on its carrier.
            TempBuffers.Lease first = TempBuffers.lease(8192, 8);
            assertThat(first.owned()).as("a carrier's buffer").isNotNull();
            first.release();
            assertThat(TempBuffers.lease(8192, 8)).as("the same lease again").isSameAs(first);
            first.release();
            return null;
        }).get(30, TimeUnit.SECONDS);
    }

    /**
     * A virtual thread keeps no buffer of its own (there may be millions), but its large transfers reuse its
     * carrier's, as the JDK's temporary buffers are kept per carrier, grown to fit; one still leased (its thread
     * parked with it, say) is never handed out again.
     */
    @Test
    void aVirtualThreadReusesItsCarriersBufferNeverOneInUse() throws Exception {
        OnVirtualThread.supply(() -> {
            // No blocking call in between: the virtual thread stays on its carrier.
            TempBuffers.Lease first = TempBuffers.lease(MIB, 8);
            long address = first.segment().address();
            first.release();
            TempBuffers.Lease again = TempBuffers.lease(MIB / 2 + 1, 4096);
            assertThat(again.segment().address()).as("the carrier's buffer").isEqualTo(address);
            TempBuffers.Lease whileHeld = TempBuffers.lease(MIB, 8);
            assertThat(disjoint(again.segment(), whileHeld.segment())).isTrue();
            whileHeld.release();
            again.release();

            TempBuffers.Lease larger = TempBuffers.lease(3 * MIB, 8);
            larger.release();
            assertThat(TempBuffers.lease(2 * MIB, 8).segment().address()).as("the grown buffer is kept")
                    .isEqualTo(larger.segment().address());
            return null;
        }).get(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    /**
     * A carrier whose buffer is held (by a virtual thread parked with it, or by a carrier that hashes alike) is served
     * by another slot's buffer, not by a new zeroed allocation per transfer: eight virtual threads reading large
     * files on two carriers measured half the JDK's throughput when two carriers shared a slot.
     */
    @Test
    void aVirtualThreadWhoseCarriersBufferIsHeldGetsAnotherKeptOne() throws Exception {
        OnVirtualThread.supply(() -> {
            // No blocking call in between: the virtual thread stays on its carrier, whose slot the first lease holds.
            TempBuffers.Lease first = TempBuffers.lease(MIB, 8);
            TempBuffers.Lease second = TempBuffers.lease(MIB, 8);
            assertThat(second.owned()).as("a kept buffer, not memory of its own").isNotNull();
            assertThat(disjoint(first.segment(), second.segment())).isTrue();
            second.release();
            first.release();
            return null;
        }).get(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void aBufferStillInUseIsNeverHandedOutAgainUntilReleasedFromAnyThread() throws Exception {
        OnThread.run(() -> {
            TempBuffers.Lease held = TempBuffers.lease(MIB, 8);
            TempBuffers.Lease other = TempBuffers.lease(MIB, 8);
            assertThat(disjoint(held.segment(), other.segment())).isTrue();
            other.release();

            Thread releaser = new Thread(held::release);     // an asynchronous request completes on a loop
            releaser.start();
            releaser.join();
            assertThat(TempBuffers.lease(MIB, 8).segment().address()).isEqualTo(held.segment().address());
        });
    }

    @Test
    void aBufferTheKernelMayStillWriteIsNotReused() throws Exception {
        OnThread.run(() -> {
            TempBuffers.Lease abandoned = TempBuffers.lease(MIB, 8);
            abandoned.releaseAfter(new java.io.IOException(new IllegalStateException("closed without its CQE")));
            assertThat(disjoint(TempBuffers.lease(MIB, 8).segment(), abandoned.segment())).isTrue();
        });
    }

    /**
     * As the JDK frees a thread's temporary buffer when the thread ends: 200 short-lived threads each transferring a
     * MiB leave at most the last one's buffer, not 200 MiB waiting for a GC that a small heap may never run.
     */
    @Test
    void aThreadsOwnBufferIsFreedOnceTheThreadHasEnded() throws Exception {
        long before = NativeMemory.inUse();
        long rssBefore = residentBytes();
        for (int i = 0; i < 200; i++) {
            Thread t = Thread.ofPlatform().start(() -> TempBuffers.lease(1 << 20, 8).release());
            t.join();
        }
        assertThat(NativeMemory.inUse() - before).as("native bytes left by 200 ended threads")
                .isLessThanOrEqualTo(1 << 20);
        // The same seen from outside (the buffers are zeroed, so each one kept is resident): 200 MiB if kept.
        assertThat(residentBytes() - rssBefore).as("resident growth").isLessThan(100L << 20);
    }

    private static long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
            }
        }
        throw new AssertionError("no VmRSS in /proc/self/status");
    }

    private static boolean disjoint(MemorySegment a, MemorySegment b) {
        return a.address() + a.byteSize() <= b.address() || b.address() + b.byteSize() <= a.address();
    }

    /** Runs a check on a fresh platform thread, so that no other test's buffer is its own. */
    private static final class OnThread {
        interface Check {
            void run() throws Exception;
        }

        static void run(Check check) throws Exception {
            Throwable[] failure = new Throwable[1];
            Thread t = new Thread(() -> {
                try {
                    check.run();
                } catch (Throwable e) {
                    failure[0] = e;
                }
            });
            t.start();
            t.join();
            if (failure[0] instanceof Exception e) {
                throw e;
            }
            if (failure[0] instanceof Error e) {
                throw e;
            }
        }
    }
}
