package io.github.workerpool.adaptive;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limit.functions.Log10RootIntFunction;

/** Builds the concurrency-limits {@link Limit} of an algorithm, with the settings the benchmark chose. */
final class Limits {

    /*
     * Why every algorithm is windowed: a pool feeds a sample per task, thousands a second, and
     * each algorithm changes its limit on every sample it gets. Unwindowed, Gradient2 grows by 0.8
     * a sample and reaches its maximum in a fraction of a second, and its long-term average (600
     * samples) follows any overload within one second; Vegas re-probes its no-load time every
     * 30 x limit samples, several times a second, each time taking an overloaded run time as the
     * baseline. One sample per window (the window's average run time and most tasks in flight)
     * makes the same numbers mean seconds and minutes, as they do for Netflix's request limiters.
     *
     * Window: max(MIN_WINDOW, 2 x the window's average run time; AIMD: its shortest), at most MAX_WINDOW, and in any
     * case until it holds MIN_WINDOW_SAMPLES tasks (SampleWindows). 100 ms is the least the
     * library's WindowedLimit allows; it lets AIMD (past its slow start) climb 10 a second. Tasks
     * shorter than MIN_RTT are ignored (their time is noise), as WindowedLimit does.
     */

    static final long MIN_WINDOW_MILLIS = 100;

    static final long MAX_WINDOW_MILLIS = 1000;

    static final int MIN_WINDOW_SAMPLES = 10;

    static final long MIN_RTT_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    /** A sample this long after the one before starts a new window (SampleWindows). */
    static final long STALE_WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);

    /*
     * Gradient2's smoothing: the share of a window's new estimate taken at once. The library's 0.2
     * grows the limit by 0.2 x queueSize (0.8) a window: from a quarter of the knee, 6 s to get
     * there at 200 ms windows, which cost 13-17% of a 20 s run's throughput (BENCHMARKS.md). 0.5
     * grows by 2 a window; where it settles (limit x (1 - gradient) = queueSize) does not depend on it.
     */
    static final double GRADIENT2_SMOOTHING = 0.5;

    private Limits() {
    }

    /** AIMD's back-off on a drop; the library's default. */
    static final double AIMD_BACKOFF = 0.9;

    /**
     * No runTimeout, no timeout: AIMD then backs off only on a drop-on failure, as documented. (The
     * library's AIMDLimit defaults to 5 s, which made every window of tasks that normally run
     * longer a drop, and held such a pool at its minimum.)
     */
    private static Limit aimd(int initial, int min, int max, Duration timeout, boolean slowStart) {
        long timeoutNanos = (timeout != null) ? Math.max(1, PoolTimeouts.nanos(timeout)) : Long.MAX_VALUE;
        return new SlowStartAimdLimit(initial, min, max, AIMD_BACKOFF, timeoutNanos, slowStart);
    }

    /**
     * Vegas with the library's back-off (limit - log10(limit), on a drop or a queue above beta)
     * floored at {@code min}: the library floors it at 1 only, so a long back-off took its estimate
     * far below min-capacity while the pool sat clamped there, and a recovered backend waited
     * windows before the capacity rose.
     */
    private static Limit vegas(int initial, int min, int max) {
        IntUnaryOperator log10 = Log10RootIntFunction.create(0);
        return VegasLimit.newBuilder()
            .initialLimit(initial)
            .maxConcurrency(max)
            // The library's alpha 3 and beta 6 (x log10 of the limit), less below a limit of 12
            // (helper-141): its queue estimate is at most the limit, so at 6 or less it never saw
            // a queue above beta, and each window without one added beta: a pool sat at 8
            // against a backend with room for 2.
            .alphaFunction((limit) -> Math.max(1, Math.min(3 * log10.applyAsInt(limit), limit / 4)))
            .betaFunction((limit) -> Math.max(2, Math.min(6 * log10.applyAsInt(limit), limit / 2)))
            .decreaseFunction((limit) -> Math.max(min, limit - log10.applyAsInt((int) limit)))
            .build();
    }

    /** Durations beyond long nanoseconds are no limit in practice. */
    private static final class PoolTimeouts {

        static long nanos(Duration d) {
            try {
                return d.toNanos();
            }
            catch (ArithmeticException ex) {
                return Long.MAX_VALUE;
            }
        }
    }

    /**
     * @param aimdTimeout for AIMD: a window whose average run time exceeds it is a drop; null for
     *                    none (only drop-on failures are drops)
     * @param aimdSlowStart for AIMD: whether it doubles a window until its first drop (false when
     *                      rebuilt from a running limit)
     */
    static Limit create(Algorithm algorithm, int initial, int min, int max, Duration aimdTimeout,
            boolean aimdSlowStart) {
        Limit limit = switch (algorithm) {
            case GRADIENT2 -> Gradient2Limit.newBuilder()
                .initialLimit(initial)
                .minLimit(min)
                .maxConcurrency(max)
                // The library's 4, less below a limit of 16 (helper-141): with the gradient
                // floored at 0.5, any limit below twice the allowance grew however slow the
                // tasks, so a fixed 4 kept a pool near 8 against a backend with room for 2.
                .queueSizeFunction((l) -> Math.max(1, Math.min(4, l / 4)))
                .rttTolerance(1.0)
                .smoothing(GRADIENT2_SMOOTHING)
                .longWindow(600)
                .build();
            case AIMD -> aimd(initial, min, max, aimdTimeout, aimdSlowStart);
            case VEGAS -> vegas(initial, min, max);
        };
        return new SampleWindows(limit, TimeUnit.MILLISECONDS.toNanos(MIN_WINDOW_MILLIS),
                TimeUnit.MILLISECONDS.toNanos(MAX_WINDOW_MILLIS), MIN_WINDOW_SAMPLES, MIN_RTT_NANOS,
                STALE_WINDOW_NANOS, algorithm != Algorithm.AIMD);
    }
}
