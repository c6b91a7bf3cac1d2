package io.uring4j.runtime;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.time.Duration;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The library-wide native memory count and its limit. */
class NativeMemoryTest {
    @Test
    void theLimitIsReadAsBytesOrWithASuffixAndDefaultsToTheMaximumHeapOrMore() {
        assertThat(NativeMemory.limitFrom("4096")).isEqualTo(4096);
        assertThat(NativeMemory.limitFrom("64k")).isEqualTo(64L << 10);
        assertThat(NativeMemory.limitFrom(" 512M ")).isEqualTo(512L << 20);
        assertThat(NativeMemory.limitFrom("2G")).isEqualTo(2L << 30);
        assertThat(NativeMemory.limitFrom(null))
                .isEqualTo(Math.max(Runtime.getRuntime().maxMemory(), NativeMemory.SMALLEST_DEFAULT));
        for (String bad : new String[] {"0", "-1", "ten", "12T", "G", "9999999999999G"}) {
            assertThatThrownBy(() -> NativeMemory.limitFrom(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-During4j.maxNativeMemory=" + bad);
        }
    }

    @Test
    void anAllocationPastTheLimitFailsNamingItAndCountsNothing() {
        long before = NativeMemory.inUse();
        assertThatThrownBy(() -> NativeMemory.reserve(1024, before + 1000))
                .isInstanceOf(OutOfMemoryError.class)
                .hasMessageContaining("1024 more bytes would pass the limit of " + (before + 1000))
                .hasMessageContaining("-During4j.maxNativeMemory");
        assertThat(NativeMemory.inUse()).isEqualTo(before);
        NativeMemory.reserve(1000, before + 1000);
        assertThat(NativeMemory.inUse()).isEqualTo(before + 1000);
        NativeMemory.unreserve(1000);
        assertThat(NativeMemory.inUse()).isEqualTo(before);
    }

    @Test
    void mappedPagesCountInFullButTakeRamOnlyOnceTouched() throws Throwable {
        long before = NativeMemory.inUse();
        long size = 64L << 20;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment pages = NativeMemory.mapPages(size - 1, arena);
            assertThat(pages.byteSize()).as("whole pages").isEqualTo(size);
            assertThat(pages.address() % 4096).isZero();
            assertThat(NativeMemory.inUse()).isEqualTo(before + size);
            assertThat(residentKib(pages)).as("nothing touched yet").isZero();
            pages.set(JAVA_BYTE, size / 2, (byte) 1);
            assertThat(residentKib(pages)).as("the page touched (or its huge page)").isBetween(4L, 2048L);
            assertThat(pages.get(JAVA_BYTE, 0)).as("zero-filled").isZero();
        }
        assertThat(NativeMemory.inUse()).as("unmapped and uncounted at close").isEqualTo(before);
    }

    /** The resident KiB of {@code pages}, page by page ({@code mincore}). */
    private static long residentKib(MemorySegment pages) throws Throwable {
        MethodHandle mincore = Linker.nativeLinker().downcallHandle(Linker.nativeLinker().defaultLookup()
                .findOrThrow("mincore"), FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS));
        long count = pages.byteSize() / 4096;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vector = arena.allocate(count);
            assertThat((int) mincore.invokeExact(pages.address(), pages.byteSize(), vector)).isZero();
            long resident = 0;
            for (long i = 0; i < count; i++) {
                resident += vector.get(JAVA_BYTE, i) & 1;
            }
            return resident * 4;
        }
    }

    @Test
    void trackedArenasCountWhatTheyHoldUntilClosedOnEveryLoopsStats() throws Exception {
        long before = NativeMemory.inUse();
        try (Arena confined = NativeMemory.confinedArena(); Arena shared = NativeMemory.sharedArena()) {
            confined.allocate(4096);
            shared.allocate(8192, 64);
            assertThat(NativeMemory.inUse() - before).isEqualTo(4096 + 8192);
        }
        assertThat(NativeMemory.inUse()).isEqualTo(before);
        try (Uring uring = Uring.builder().loops(1).build()) {
            assertThat(uring.loop().stats().nativeBytes()).isEqualTo(NativeMemory.inUse()).isGreaterThan(before);
        }
        assertThat(NativeMemory.inUse()).as("closing the runtime gives every byte back").isEqualTo(before);
    }

    @Test
    void jfrSamplesTheNativeMemoryInUse(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("native.jfr");
        try (Uring uring = Uring.builder().loops(1).build();
             Recording recording = new Recording()) {
            recording.enable("io.uring4j.NativeMemory").withPeriod(Duration.ofMillis(20));
            recording.start();
            Thread.sleep(200);
            recording.stop();
            recording.dump(file);
            assertThat(uring.loop().stats().nativeBytes()).isPositive();
        }
        var samples = RecordingFile.readAllEvents(file);
        assertThat(samples).isNotEmpty().allSatisfy(e -> {
            assertThat(e.getEventType().getName()).isEqualTo("io.uring4j.NativeMemory");
            assertThat(e.getLong("bytes")).isPositive();
            assertThat(e.getLong("limit")).isEqualTo(NativeMemory.limit());
        });
    }
}
