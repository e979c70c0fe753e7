package io.github.workerpool.adaptive;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import com.netflix.concurrency.limits.Limit;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The windows the algorithm is given one sample of each, on a clock the test drives. */
class SampleWindowsTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** What the algorithm got: one {@code {rtt, maxInFlight}} per window. */
    private final List<long[]> windows = new ArrayList<>();

    private final Limit algorithm = new Limit() {

        @Override
        public int getLimit() {
            return 1;
        }

        @Override
        public void notifyOnChange(Consumer<Integer> consumer) {
        }

        @Override
        public void onSample(long startTime, long rtt, int inflight, boolean didDrop) {
            SampleWindowsTest.this.windows.add(new long[] { rtt, inflight });
        }

    };

    /** 100 ms at least, 1 s at most, 10 samples, samples of 100 us or more, a minute's gap starts anew. */
    private final SampleWindows limit = new SampleWindows(this.algorithm, 100 * MS, 1000 * MS, 10,
            TimeUnit.MICROSECONDS.toNanos(100), TimeUnit.MINUTES.toNanos(1), false);

    private long now = TimeUnit.HOURS.toNanos(1);

    private void sample(long rttMillis, int inflight) {
        this.now += MS;
        this.limit.onSample(this.now - rttMillis * MS, rttMillis * MS, inflight, false);
    }

    @Test
    void aWindowPastItsTime_waitsForItsTenthSample() {
        for (int i = 0; i < 9; i++) {
            sample(250, 4);
            this.now += 250 * MS; // 4 tasks of 250 ms: 8 samples in a 500 ms window
        }
        assertThat(this.windows).as("9 samples over 2.25 s").isEmpty();
        sample(250, 4);
        assertThat(this.windows).hasSize(1);
        assertThat(this.windows.get(0)).containsExactly(250 * MS, 4);
    }

    @Test
    void aWindowOfTenSamples_lastsTwiceItsShortestRunTime_atLeast100ms() {
        for (int i = 0; i < 10; i++) {
            sample(20, 8);
        }
        assertThat(this.windows).as("the first window ends with its tenth sample").hasSize(1);
        for (int i = 0; i < 30; i++) { // 30 samples within 100 ms: one window
            sample(20, 8);
        }
        assertThat(this.windows).hasSize(1);
        this.now += 100 * MS;
        sample(20, 8);
        assertThat(this.windows).hasSize(2);
    }

    @Test
    void slowTasksEndingMoreThanAMinuteApart_stillMakeWindows() {
        // Review helper-141: tasks of 5 minutes at a capacity of 4 end 75 s apart, and each
        // started a window anew: the algorithm never got one, and the capacity never moved.
        for (int i = 0; i < 40; i++) {
            this.now += TimeUnit.SECONDS.toNanos(75);
            this.limit.onSample(this.now - TimeUnit.MINUTES.toNanos(5), TimeUnit.MINUTES.toNanos(5), 4, false);
        }
        assertThat(this.windows).hasSizeGreaterThanOrEqualTo(3);
    }

    @Test
    void aSampleAfterAQuietSpell_startsANewWindow() {
        // Found by a review: a window now waits for its samples, so 9 of an hour ago made the
        // next window with 1 new one, old tasks in flight and all.
        for (int i = 0; i < 9; i++) {
            sample(20, 50);
        }
        this.now += TimeUnit.HOURS.toNanos(1);
        for (int i = 0; i < 9; i++) {
            sample(20, 5);
        }
        assertThat(this.windows).as("9 new samples: not a window yet").isEmpty();
        sample(20, 5);
        assertThat(this.windows).hasSize(1);
        assertThat(this.windows.get(0)[1]).as("most in flight: this hour's").isEqualTo(5);
    }

    @Test
    void samplesShorterThan100us_areNoise() {
        for (int i = 0; i < 20; i++) {
            this.now += MS;
            this.limit.onSample(this.now - 50_000, 50_000, 3, false);
        }
        assertThat(this.windows).isEmpty();
    }

}
