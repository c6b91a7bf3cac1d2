package io.uring4j.fs;

import java.nio.file.FileSystem;
import java.nio.file.FileSystems;

/** The Files contract on the JDK's own file system: the reference. */
class JdkProviderFilesTest extends FilesContract {
    @Override
    FileSystem fileSystem() {
        return FileSystems.getDefault();
    }
}
