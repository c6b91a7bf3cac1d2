package io.uring4j.fs;

import io.uring4j.testkit.BothEngines;

import java.nio.file.FileSystem;
import java.nio.file.FileSystems;

/** The Files contract on {@link UringFileSystemProvider}'s file system (built in this JVM, not installed). */
@BothEngines
class UringProviderFilesTest extends FilesContract {
    private static final FileSystem FS = new UringFileSystemProvider(FileSystems.getDefault().provider()).fileSystem();

    @Override
    FileSystem fileSystem() {
        return FS;
    }
}
