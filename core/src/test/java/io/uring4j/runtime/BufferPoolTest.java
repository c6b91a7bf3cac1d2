package io.uring4j.runtime;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Leasing and returning a pool's buffers, from one thread and from many. */
class BufferPoolTest {
    @Test
    void everyBufferIsLeasedOnceUntilReturned() {
        try (BufferPool pool = BufferPool.create(4096, 70)) {        // more than one word of the free bitmap
            Set<Integer> ids = new HashSet<>();
            List<BufferPool.Buffer> leased = new ArrayList<>();
            for (BufferPool.Buffer b; (b = pool.tryAcquire()) != null; ) {
                assertThat(ids.add(b.id())).as("buffer %d leased twice", b.id()).isTrue();
                assertThat(b.segment().byteSize()).isEqualTo(4096);
                assertThat(b.segment().address() % 4096).isZero();
                leased.add(b);
            }
            assertThat(ids).hasSize(70);
            assertThat(pool.available()).isZero();
            assertThatThrownBy(pool::close).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("70 buffer(s) still leased");
            BufferPool.Buffer first = leased.removeFirst();
            first.release();
            assertThatThrownBy(first::release).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("released twice");
            assertThat(pool.available()).as("a second release counts nothing").isOne();
            assertThat(pool.tryAcquire()).isSameAs(first);
            leased.add(first);
            leased.forEach(BufferPool.Buffer::release);
            assertThat(pool.available()).isEqualTo(70);
        }
    }

    @Test
    void aWaitingAcquireTakesTheBufferReleased() throws Exception {
        try (BufferPool pool = BufferPool.create(64, 1)) {
            BufferPool.Buffer only = pool.tryAcquire();
            CompletableFuture<BufferPool.Buffer> waiting = OnVirtualThread.supply(pool::acquire);
            awaitCondition(() -> pool.available() == 0 && !waiting.isDone());
            only.release();
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isSameAs(only);
            only.release();
        }
    }

    /** Threads leasing and returning at once: no buffer is ever held by two of them, none is lost. */
    @Test
    void manyThreadsNeverShareABuffer() throws Exception {
        int threads = 8;
        try (BufferPool pool = BufferPool.create(64, 6)) {
            AtomicIntegerArray holders = new AtomicIntegerArray(6);
            List<Thread> workers = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int i = 0; i < 20_000; i++) {
                            BufferPool.Buffer b = i % 2 == 0 ? pool.acquire() : pool.tryAcquire();
                            if (b != null) {
                                assertThat(holders.incrementAndGet(b.id())).as("holders of %d", b.id()).isOne();
                                holders.decrementAndGet(b.id());
                                b.release();
                            }
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }));
            }
            for (Thread w : workers) {
                w.join();
            }
            assertThat(failures).isEmpty();
            assertThat(pool.available()).isEqualTo(6);
        }
    }
}
