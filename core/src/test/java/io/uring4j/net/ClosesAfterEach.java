package io.uring4j.net;

import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;

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
}
