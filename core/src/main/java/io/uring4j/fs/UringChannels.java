package io.uring4j.fs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;

/**
 * The channels and streams {@link UringFileSystemProvider} makes once the shared runtime is up, with the JDK's
 * option checks and its interruptibility. Apart from the provider, whose verification would otherwise load every
 * channel class before its first call — also in a short program that never gets one.
 */
final class UringChannels {
    private static final String PACKAGE = UringChannels.class.getPackageName();
    /** Classes only: a frame's method is looked up per frame walked, which made the walk half an open's cost. */
    private static final StackWalker CALLERS = StackWalker.getInstance(
            Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE, StackWalker.Option.DROP_METHOD_INFO));

    private UringChannels() {
    }

    static FileChannel fileChannel(UringFiles files, Path path, Set<? extends OpenOption> options,
                                   FileAttribute<?>... attrs) throws IOException {
        return UringFileChannel.open(files, path, options, attrs);
    }

    static SeekableByteChannel byteChannel(UringFiles files, Path path, Set<? extends OpenOption> options,
                                           FileAttribute<?>... attrs) throws IOException {
        UringFileChannel channel = UringFileChannel.open(files, path, options, attrs);
        if (options.isEmpty()) {
            channel.uninterruptibleIf(UringChannels::calledByReadAllBytes);
        }
        return channel;
    }

    static AsynchronousFileChannel asynchronous(UringFiles files, Path path, Set<? extends OpenOption> options,
                                                ExecutorService executor, FileAttribute<?>... attrs)
            throws IOException {
        return UringAsynchronousFileChannel.open(files, path, options, executor, attrs);
    }

    /**
     * Whether {@code Files.readAllBytes} (or {@code readString}) is using the channel, asked on the thread of one of
     * its operations: the JDK makes readAllBytes's channel uninterruptible itself, which it cannot do to ours, while
     * {@code Files.newByteChannel}'s stays interruptible. Both are opened here the same way, with no options. Above
     * this package's frames, readAllBytes's calls show {@code Files} itself ({@code size}), or the stream it reads
     * through ({@code Channels.newInputStream}'s) and then {@code Files}; an application's show its own class there.
     */
    private static boolean calledByReadAllBytes() {
        return CALLERS.walk(frames -> frames
                .dropWhile(f -> f.getDeclaringClass().getPackageName().equals(PACKAGE))
                .dropWhile(f -> InputStream.class.isAssignableFrom(f.getDeclaringClass())
                        && f.getDeclaringClass().getModule() == InputStream.class.getModule())
                .findFirst()
                .filter(f -> f.getDeclaringClass() == Files.class)
                .isPresent());
    }

    /** As the JDK's: a stream on an uninterruptible channel (JDK-8205612), with the JDK's option checks. */
    static InputStream inputStream(UringFiles files, Path path, OpenOption... options) throws IOException {
        for (OpenOption option : options) {
            if (option == StandardOpenOption.APPEND || option == StandardOpenOption.WRITE) {
                throw new UnsupportedOperationException("'" + option + "' not allowed");
            }
        }
        UringFileChannel channel = UringFileChannel.open(files, path, UringFileChannel.toSet(options));
        channel.setUninterruptible();
        return Channels.newInputStream(channel.isOther() ? readableOnly(channel) : channel);
    }

    /**
     * {@code channel} as a ReadableByteChannel only, for the stream of a FIFO, socket or device: Channels'
     * stream asks a SeekableByteChannel for its size and position in {@code available}, {@code readAllBytes} and
     * {@code skip}, which such a file refuses (ESPIPE). The JDK's stream knows its own channel's file is "other"
     * and then reads to the end, skips by reading, and counts nothing available — as it does with this.
     */
    private static ReadableByteChannel readableOnly(UringFileChannel channel) {
        return new ReadableByteChannel() {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                return channel.read(dst);
            }

            @Override
            public boolean isOpen() {
                return channel.isOpen();
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }

    /** As the JDK's: a stream on an uninterruptible channel, CREATE, TRUNCATE_EXISTING and WRITE by default. */
    static OutputStream outputStream(UringFiles files, Path path, OpenOption... options) throws IOException {
        Set<OpenOption> set = new HashSet<>();
        if (options.length == 0) {
            Collections.addAll(set, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        }
        for (OpenOption option : options) {
            if (option == StandardOpenOption.READ) {
                throw new IllegalArgumentException("READ not allowed");
            }
            set.add(option);
        }
        set.add(StandardOpenOption.WRITE);
        UringFileChannel channel = UringFileChannel.open(files, path, set);
        channel.setUninterruptible();
        return Channels.newOutputStream(channel);
    }
}
