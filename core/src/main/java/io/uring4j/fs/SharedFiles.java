package io.uring4j.fs;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.util.Iterator;

/**
 * The file-system provider's way to the shared runtime ({@link UringFiles#shared()}), which may not be up yet. Kept
 * apart from {@link UringFiles} so that asking loads none of the runtime's classes: a short program's streams are
 * the platform's while the runtime starts on a thread of its own, and the program may well end before it is up.
 */
final class SharedFiles {
    private static volatile UringFiles up;
    /** The shared runtime is starting on a thread of its own (guarded by the class). */
    private static boolean starting;
    /** That start failed: the next caller then calls {@link UringFiles#shared()}, which says why. */
    private static volatile boolean startFailed;
    private static final StackWalker STACK = StackWalker.getInstance();
    private static final String PACKAGE = SharedFiles.class.getPackageName() + ".";

    private SharedFiles() {
    }

    /** {@link UringFiles#shared()} has made {@code files}. */
    static void up(UringFiles files) {
        up = files;
    }

    /**
     * For tests: the provider's files from now on are {@code files}, on a runtime the test built (over a faulty
     * engine, say); returns those it used before, to be put back. Null puts the provider back to where it was before
     * the shared runtime came up, so a test puts back what this returned, not null.
     */
    static UringFiles use(UringFiles files) {
        UringFiles was = up;
        up = files;
        return was;
    }

    /**
     * For a channel an application holds ({@code FileChannel.open}, {@code AsynchronousFileChannel.open}): the
     * shared files, started and waited for if need be — unless the caller is loading a class, or is
     * {@code Files.lines}, whose channel lives as long as its stream. Then (until the runtime is up) null, once the
     * start has been handed to a thread of its own, and the caller serves itself some other way meanwhile: the
     * runtime's threads load classes as they start, and a caller holding a class-loading lock — a JVM verifying a
     * signed jar reads {@code java.security} through the default file system — would wait for them for ever.
     */
    static UringFiles orStart() throws IOException {
        UringFiles files = up;
        if (files != null) {
            return files;
        }
        if (startFailed || !servedMeanwhile()) {
            return UringFiles.shared();             // starts it (or says why it cannot) and waits for it
        }
        startBehind();
        return null;
    }

    /**
     * For a stream's channel ({@code Files.newInputStream}, {@code newOutputStream}, {@code newByteChannel} and so
     * {@code readAllBytes}, {@code readString}, {@code write}, {@code newBufferedReader}): the shared files if up, else
     * null once their start has been handed to a thread of its own. Starting them takes a few hundred milliseconds
     * (the first native call's link, the rings, the loops), most of a short program's life; such streams are read
     * and closed at once, so until then the caller serves itself the platform's.
     */
    static UringFiles ifUp() throws IOException {
        UringFiles files = up;
        if (files != null) {
            return files;
        }
        if (startFailed) {
            return UringFiles.shared();
        }
        startBehind();
        return null;
    }

    /** A lock, not an atomic: a short program's first VarHandle costs it a generated class. */
    private static synchronized void startBehind() {
        if (!starting) {
            starting = true;
            Thread starter = new Thread(new Starter(), "uring4j-start");
            starter.setDaemon(true);
            starter.start();
        }
    }

    /** A class rather than a lambda: a short program's first lambda costs it the lambda machinery's start. */
    private static final class Starter implements Runnable {
        @Override
        public void run() {
            try {
                UringFiles.shared();
            } catch (IOException | RuntimeException e) {
                startFailed = true;
            }
        }
    }

    /**
     * Whether the caller is inside class loading (a class loader, or a jar being opened or verified), or is
     * {@code Files.lines}: the first frame above this package's and {@code FileChannel.open}'s is {@code Files}.
     */
    private static boolean servedMeanwhile() {
        return STACK.walk(frames -> {
            boolean aboveUs = false;
            for (Iterator<StackWalker.StackFrame> it = frames.iterator(); it.hasNext(); ) {
                String c = it.next().getClassName();
                if (c.equals("java.lang.ClassLoader") || c.startsWith("jdk.internal.loader.")
                        || c.startsWith("java.util.jar.")) {
                    return true;
                }
                if (!aboveUs && !c.startsWith(PACKAGE) && !c.equals(FileChannel.class.getName())) {
                    aboveUs = true;
                    if (c.equals(Files.class.getName())) {
                        return true;
                    }
                }
            }
            return false;
        });
    }
}
