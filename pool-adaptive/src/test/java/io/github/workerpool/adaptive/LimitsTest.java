package io.github.workerpool.adaptive;

import java.util.concurrent.TimeUnit;

import com.netflix.concurrency.limits.Limit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The algorithms as {@link Limits} makes them, fed whole windows on a clock the test drives. */
class LimitsTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private long now = TimeUnit.HOURS.toNanos(1);

    /** One window: 10 samples of {@code rttMillis}, 120 ms apart (past the longest window, 1 s). */
    private void window(Limit limit, long rttMillis, int inflight, boolean drop) {
        for (int i = 0; i < 10; i++) {
            this.now += 120 * MS;
            limit.onSample(this.now - rttMillis * MS, rttMillis * MS, inflight, drop);
        }
    }

    @Test
    void aimdWithoutARunTimeout_doesNotBackOffOnLongTasks() {
        // Found by a review: the library's AIMDLimit times out at 5 s when given no timeout, so
        // tasks of 6 s counted as drops every window and held the pool at its minimum.
        Limit limit = Limits.create(Algorithm.AIMD, 8, 1, 64, null, false);
        for (int i = 0; i < 5; i++) {
            window(limit, 6_000, 8, false);
            assertThat(limit.getLimit()).as("after %d windows of 6 s tasks", i + 1).isGreaterThanOrEqualTo(8);
        }
        int before = limit.getLimit();
        window(limit, 6_000, before, true);
        assertThat(limit.getLimit()).as("a drop-on failure still backs off").isLessThan(before);
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void aLongBackOff_neverTakesTheEstimateBelowTheMinimum(Algorithm algorithm) {
        // Found by a review: Vegas' back-off is floored at 1 by the library, so 15 windows of drops
        // took its estimate from 20 to 5 while the pool sat clamped at 20.
        Limit limit = Limits.create(algorithm, 20, 20, 200, null, true);
        window(limit, 10, 20, false);
        for (int i = 0; i < 15; i++) {
            window(limit, 10, 20, true);
            assertThat(limit.getLimit()).as("%s after %d windows of drops", algorithm, i + 1).isGreaterThanOrEqualTo(20);
        }
        window(limit, 10, 20, false);
        assertThat(limit.getLimit()).isGreaterThanOrEqualTo(20);
    }

    @ParameterizedTest
    @EnumSource(value = Algorithm.class, names = { "VEGAS", "AIMD" })
    void aWindowOfFastDrops_backsOff_andDoesNotReadAsTheBackendsUnloadedRunTime(Algorithm algorithm) {
        // Review helper-131: a backend shedding load with quick 429s (drop-on failures) gave Vegas a
        // window faster than any before it; the library's VegasLimit takes such a window for the
        // new unloaded run time and ignores its drop, and the healthy 50 ms windows after it then
        // read as a queue of 90% of the limit: down to the minimum over the next windows.
        Limit limit = Limits.create(algorithm, 40, 4, 200, null, false);
        for (int i = 0; i < 20; i++) {
            window(limit, 50, limit.getLimit(), false);
        }
        int before = limit.getLimit();
        window(limit, 5, before, true);
        int after = limit.getLimit();
        assertThat(after).as("%s after a window of fast drops", algorithm).isLessThan(before);
        for (int i = 0; i < 50; i++) {
            window(limit, 50, limit.getLimit(), false);
            assertThat(limit.getLimit()).as("%s after %d healthy windows", algorithm, i + 1)
                .isGreaterThanOrEqualTo(after);
        }
    }

    @Test
    void vegasStartedWhileTheBackendShedsLoad_doesNotTakeItsFastDropsForTheUnloadedRunTime() {
        // Review helper-136: before any window without a drop there was nothing to hold a drop
        // window's run time to, and Vegas took the first window of fast 429s (startup, or adaptive
        // sizing switched on mid-incident) for the unloaded run time: the limit then sank a step
        // a window once the backend answered normally again.
        Limit limit = Limits.create(Algorithm.VEGAS, 40, 4, 200, null, true);
        for (int i = 0; i < 3; i++) {
            window(limit, 5, 40, true);
        }
        int after = limit.getLimit();
        for (int i = 0; i < 30; i++) {
            window(limit, 50, limit.getLimit(), false);
            assertThat(limit.getLimit()).as("after %d healthy windows", i + 1).isGreaterThanOrEqualTo(after);
        }
    }

    /**
     * A pool kept full against a backend with room for any load, whose tasks run 500 ms on average
     * with a coefficient of variation of 1 whatever the load: the mean limit over the last third of
     * 300 simulated seconds.
     */
    private static double meanLimitAgainstNoisySlowTasks(Algorithm algorithm) {
        Limit limit = Limits.create(algorithm, 32, 1, 200, null, true);
        java.util.Random random = new java.util.Random(42);
        double sigma = Math.sqrt(Math.log(2)); // lognormal with CV 1
        double mu = Math.log(500 * MS) - sigma * sigma / 2;
        java.util.PriorityQueue<long[]> running = new java.util.PriorityQueue<>((a, b) -> Long.compare(a[1], b[1]));
        long now = TimeUnit.HOURS.toNanos(1);
        long end = now + TimeUnit.SECONDS.toNanos(300);
        double sum = 0;
        long counted = 0;
        while (now < end) {
            while (running.size() < limit.getLimit()) {
                long rtt = (long) Math.exp(mu + sigma * random.nextGaussian());
                running.add(new long[] { now, now + rtt });
            }
            long[] task = running.poll();
            now = task[1];
            limit.onSample(task[0], task[1] - task[0], running.size() + 1, false);
            if (now > end - TimeUnit.SECONDS.toNanos(100)) {
                sum += limit.getLimit();
                counted++;
            }
        }
        return sum / counted;
    }

    @Test
    void slowTasksWhoseRunTimeVariesButNotWithLoad_doNotHoldGradient2Down() {
        // Review helper-90: a window lasted twice its shortest run time, so windows of such tasks
        // held the 10-task minimum, and their averages' noise read as queueing: Gradient2 settled
        // at a mean of 43 here against a backend with room for 200. A window lasts twice its
        // average run time now (at most 1 s), about twice the limit's tasks: 92. (Vegas, which
        // takes the fastest window for the unloaded run time, stays near 11 either way: README.)
        assertThat(meanLimitAgainstNoisySlowTasks(Algorithm.GRADIENT2)).isGreaterThanOrEqualTo(80);
    }

}
