package io.uring4j.net;

import io.uring4j.testkit.OpenFds;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.uring4j.testkit.Await.awaitCondition;

/** Tests that open selectors and channels: whatever {@link #closing} was given is closed after each test, newest first. */
abstract class ClosesAfterEach {
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
    }

    <T extends AutoCloseable> T closing(T c) {
        open.add(c);
        return c;
    }

    /** A call that blocks; what it throws (null: it returned) completes {@code failure}. */
    record Blocked(Thread thread, CompletableFuture<Throwable> failure) {
    }

    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    /** Starts {@code call} on a virtual thread and returns once the thread waits in it (parked). */
    static Blocked blockedOnAVirtualThread(Call call) throws InterruptedException {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread thread = Thread.ofVirtual().start(() -> {
            try {
                call.run();
                failure.complete(null);
            } catch (Throwable e) {
                failure.complete(e);
            }
        });
        awaitCondition(() -> thread.getState() == Thread.State.WAITING);
        return new Blocked(thread, failure);
    }

    /** Runs {@code once} 201 times and checks that no fd stays open from the 200 after the first. */
    static void leavesNoDescriptorBehind(Call once) throws Exception {
        once.run();                                     // the shared runtime's rings open once, for good
        OpenFds before = OpenFds.snapshot();
        for (int i = 0; i < 200; i++) {
            once.run();
        }
        before.awaitNoneOpenedSince();
    }
}
