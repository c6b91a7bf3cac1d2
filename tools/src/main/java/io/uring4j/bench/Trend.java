package io.uring4j.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleUnaryOperator;
import java.util.function.ToDoubleFunction;

/**
 * Whether a soaked server's resources grow: of the samples after the warm-up, the median of the last third
 * against the median of the first third (medians, so one sample caught in a GC or a burst of connections does
 * not decide). RSS may move by {@link #RSS_TOLERANCE} of itself (the heap and the JIT settle slowly); descriptors
 * by the connections a sample may catch in passing; threads by {@link #THREAD_SLACK} (the JVM starts and ends
 * compiler and GC threads as it likes).
 */
final class Trend {
    static final double RSS_TOLERANCE = 0.10;
    static final int THREAD_SLACK = 4;

    /** One look at the server process; the load's counters are totals since the start. */
    record Sample(double seconds, long rssKib, int fds, int threads, long requests, long connects, long errors) {
    }

    /** One resource's first- and last-third medians, and whether it stayed within its limit. */
    record Change(String name, double first, double last, double limit, boolean flat) {
        String describe(String unit, double scale) {
            return String.format(Locale.ROOT, "%s %s -> %s%s (limit %s)", name, num(first / scale), num(last / scale),
                    unit, num(limit / scale) + unit);
        }

        private static String num(double v) {
            return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
        }
    }

    /** The verdict: the samples judged (after the warm-up) and each resource's change; null ones if too few. */
    record Verdict(int judged, Change rss, Change fds, Change threads) {
        boolean enoughSamples() {
            return rss != null;
        }

        boolean flat() {
            return enoughSamples() && rss.flat() && fds.flat() && threads.flat();
        }

        String describe() {
            if (!enoughSamples()) {
                return "too few samples after the warm-up to judge (" + judged + ", at least 3): run longer";
            }
            return rss.describe(" MiB", 1024) + ", " + fds.describe("", 1) + ", " + threads.describe("", 1)
                    + ": " + (flat() ? "flat" : "GROWS (" + String.join(", ", growing()) + ")");
        }

        private List<String> growing() {
            List<String> names = new ArrayList<>();
            for (Change c : List.of(rss, fds, threads)) {
                if (!c.flat()) {
                    names.add(c.name());
                }
            }
            return names;
        }
    }

    private Trend() {
    }

    /**
     * Judges the samples taken after {@code warmupSeconds}; {@code fdSlack}: descriptors a sample may find open
     * in passing (the connections being opened and closed at that moment).
     */
    static Verdict judge(List<Sample> samples, double warmupSeconds, int fdSlack) {
        List<Sample> judged = samples.stream().filter(s -> s.seconds() > warmupSeconds).toList();
        if (judged.size() < 3) {
            return new Verdict(judged.size(), null, null, null);
        }
        int third = judged.size() / 3;
        List<Sample> first = judged.subList(0, third);
        List<Sample> last = judged.subList(judged.size() - third, judged.size());
        return new Verdict(judged.size(),
                change("rss", first, last, Sample::rssKib, m -> m * (1 + RSS_TOLERANCE)),
                change("fds", first, last, Sample::fds, m -> m + fdSlack),
                change("threads", first, last, Sample::threads, m -> m + THREAD_SLACK));
    }

    private static Change change(String name, List<Sample> first, List<Sample> last, ToDoubleFunction<Sample> value,
                                 DoubleUnaryOperator limitOf) {
        double a = median(first, value);
        double b = median(last, value);
        double limit = limitOf.applyAsDouble(a);
        return new Change(name, a, b, limit, b <= limit);
    }

    private static double median(List<Sample> samples, ToDoubleFunction<Sample> value) {
        return CompareC.median(samples.stream().mapToDouble(value).toArray());
    }
}
