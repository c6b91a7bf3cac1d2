package io.uring4j.runtime;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * JFR events for the rare things worth a trace: a full SQ, a CQ overflow backlog, a close with work in flight;
 * and, sampled periodically, the native memory in use.
 * Each emitter checks {@code shouldCommit()} first; with JFR off the event object never escapes and costs nothing.
 */
final class RuntimeEvents {
    private static final AtomicBoolean PERIODIC = new AtomicBoolean();

    private RuntimeEvents() {
    }

    /** Registers the periodic events (once per JVM; a recording samples them at the period it asks for). */
    static void registerPeriodic() {
        if (PERIODIC.compareAndSet(false, true)) {
            FlightRecorder.addPeriodicEvent(NativeMemoryInUse.class, () -> {
                NativeMemoryInUse e = new NativeMemoryInUse();
                e.bytes = NativeMemory.inUse();
                e.limit = NativeMemory.limit();
                e.commit();
            });
        }
    }

    static void sqFull(int loop) {
        SqFull e = new SqFull();
        if (e.shouldCommit()) {
            e.loop = loop;
            e.commit();
        }
    }

    static void cqOverflow(int loop, int inFlight) {
        CqOverflow e = new CqOverflow();
        if (e.shouldCommit()) {
            e.loop = loop;
            e.inFlight = inFlight;
            e.commit();
        }
    }

    static void closeWithWork(int loop, int inFlight) {
        CloseWithWork e = new CloseWithWork();
        if (e.shouldCommit()) {
            e.loop = loop;
            e.inFlight = inFlight;
            e.commit();
        }
    }

    @Name("io.uring4j.SqFull")
    @Label("SQ Full")
    @Category("uring4j")
    @Description("The submission queue filled up mid-iteration and was flushed to the kernel early")
    static final class SqFull extends Event {
        @Label("Loop")
        int loop;
    }

    @Name("io.uring4j.CqOverflow")
    @Label("CQ Overflow")
    @Category("uring4j")
    @Description("Completions did not fit the CQ and waited in the kernel's overflow list")
    static final class CqOverflow extends Event {
        @Label("Loop")
        int loop;
        @Label("In Flight")
        int inFlight;
    }

    @Name("io.uring4j.NativeMemory")
    @Label("Native Memory")
    @Category("uring4j")
    @Description("Native bytes uring4j holds for its buffers, and the limit (-During4j.maxNativeMemory)")
    @Period("1 s")
    static final class NativeMemoryInUse extends Event {
        @Label("In Use")
        @DataAmount
        long bytes;
        @Label("Limit")
        @DataAmount
        long limit;
    }

    @Name("io.uring4j.CloseWithWork")
    @Label("Close With Work In Flight")
    @Category("uring4j")
    @Description("The runtime was closed while requests were in flight; they are cancelled and awaited")
    static final class CloseWithWork extends Event {
        @Label("Loop")
        int loop;
        @Label("In Flight")
        int inFlight;
    }
}
