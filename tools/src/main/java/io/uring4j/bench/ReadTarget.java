package io.uring4j.bench;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** A file or block device to read, with its size (FileChannel asks the block layer for devices). */
record ReadTarget(Path path, long size) {
    static ReadTarget of(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            return new ReadTarget(path, channel.size());
        }
    }
}
