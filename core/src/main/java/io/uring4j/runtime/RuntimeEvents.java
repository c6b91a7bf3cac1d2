package io.uring4j.runtime;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * JFR events for the rare things worth a trace: a full SQ, a CQ overflow backlog, a close with work in flight;
 * and, sampled periodically, the native memory in use.
 *
 * <p>Nothing here touches JFR until JFR itself starts (a recording, {@code -XX:StartFlightRecording}, {@code jcmd
 * JFR.start}): the first use of an event class, or registering a periodic event, loads JFR's metadata, a fifth of a
 * second of a process's start that a program which never records would pay with the first runtime. A listener
 * learns of JFR's start instead; until then the emitters return at a volatile read, and after it each checks
 * {@code shouldCommit()} first, so with no recording asking the event object never escapes and costs nothing.
 */
final class RuntimeEvents {
    private static final AtomicBoolean LISTENING = new AtomicBoolean();
    /** JFR has started: the event classes may be used. */
    private static volatile boolean jfrStarted;

    private RuntimeEvents() {
    }

    /**
     * Once per JVM: when JFR starts (or now, if it has), the periodic events are registered — a recording samples
     * them at the period it asks for — and the others may be emitted.
     */
    static void listen() {
        if (LISTENING.compareAndSet(false, true)) {
            FlightRecorder.addListener(new FlightRecorderListener() {
                @Override
                public void recorderInitialized(FlightRecorder recorder) {
                    FlightRecorder.addPeriodicEvent(NativeMemoryInUse.class, () -> {
                        NativeMemoryInUse e = new NativeMemoryInUse();
                        e.bytes = NativeMemory.inUse();
                        e.limit = NativeMemory.limit();
                        e.commit();
                    });
                    jfrStarted = true;
                }
            });
        }
    }

    static void sqFull(int loop) {
        if (jfrStarted) {
            Emit.sqFull(loop);
        }
    }

    static void cqOverflow(int loop, int inFlight) {
        if (jfrStarted) {
            Emit.cqOverflow(loop, inFlight);
        }
    }

    static void closeWithWork(int loop, int inFlight) {
        if (jfrStarted) {
            Emit.closeWithWork(loop, inFlight);
        }
    }

    /** The emitters proper, in a class of their own so that nothing loads the event classes before JFR starts. */
    private static final class Emit {
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
