package io.uring4j.fs;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The JDK's O_DIRECT checks for channels, with its messages ({@code sun.nio.ch.Util}): channel positions,
 * remaining lengths and direct-buffer addresses must be multiples of the file system block size. A channel that
 * is not direct has alignment 0 and skips them.
 */
final class DirectAlignment {
    private DirectAlignment() {
    }

    static void checkPosition(long position, int alignment) throws IOException {
        if (alignment > 0 && position % alignment != 0) {
            throw new IOException("Channel position (" + position + ") is not a multiple of the block size ("
                    + alignment + ")");
        }
    }

    static void checkRemaining(int remaining, int alignment) throws IOException {
        if (alignment > 0 && remaining % alignment != 0) {
            throw new IOException("Number of remaining bytes (" + remaining + ") is not a multiple of the block size ("
                    + alignment + ")");
        }
    }

    /** A direct buffer's address at its position, and its remaining length. */
    static void checkBuffer(ByteBuffer buffer, int alignment) throws IOException {
        if (alignment <= 0) {
            return;
        }
        if (buffer.isDirect()) {
            int offset = buffer.alignmentOffset(buffer.position(), alignment);
            if (offset != 0) {
                throw new IOException("Current position of the bytebuffer (" + buffer.position()
                        + ") is not a multiple of the block size (" + alignment + "): alignment offset = " + offset);
            }
        }
        checkRemaining(buffer.remaining(), alignment);
    }
}
