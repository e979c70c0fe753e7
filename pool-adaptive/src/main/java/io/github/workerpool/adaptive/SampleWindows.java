package io.github.workerpool.adaptive;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.window.AverageSampleWindowFactory;
import com.netflix.concurrency.limits.limit.window.SampleWindow;
import com.netflix.concurrency.limits.limit.window.SampleWindowFactory;

/**
 * Groups a pool's samples into windows and gives the algorithm one sample a window, as the
 * library's {@code WindowedLimit} does (with its {@link SampleWindow}s), except that a window ends
 * only once it holds {@code minSamples}. {@code WindowedLimit} ends a window on time and throws it
 * away if it holds fewer: a pool of 4 tasks of 250 ms ends 8 in a 500 ms window, so its
 * algorithm never got a sample and its limit never moved, up or back up after a cut. A sample
 * that comes more than {@code staleNanos} (or twice its own run time, if longer) after the one
 * before starts a new window: after a quiet hour, 9 old samples and 1 new one are not this hour's
 * window.
 *
 * <p>A window with a drop never reads as faster than the last window without one: a backend
 * shedding load answers fast (a 429 in a millisecond), and Vegas takes a window faster than any
 * before it for the backend's new unloaded run time, ignoring its drop; the healthy windows after
 * it then read as a deep queue and took the limit to its minimum (review helper-131). For Vegas a
 * window with a drop and none without before it is not passed on at all (review helper-136): the
 * limit holds until the backend has once answered normally. (Gradient2 is handed no drops:
 * AdaptiveCapacity counts a drop-on failure under it as any other failure.)
 */
final class SampleWindows implements Limit {

    private static final SampleWindowFactory WINDOWS = AverageSampleWindowFactory.create();

    private final Limit delegate;

    private final long minWindowNanos;

    private final long maxWindowNanos;

    private final int minSamples;

    private final long minRttNanos;

    private final long staleNanos;

    /**
     * Whether the algorithm judges a window's run time against earlier windows' (Gradient2,
     * Vegas), else against a fixed timeout (AIMD): a window lasts twice its average run time
     * (else twice its shortest, as WindowedLimit's), and a window with a drop needs one without
     * before it to be judged against.
     */
    private final boolean judgesAgainstPast;

    private final AtomicReference<SampleWindow> window = new AtomicReference<>(WINDOWS.newInstance());

    private final ReentrantLock lock = new ReentrantLock(); // not a monitor: see AdaptiveCapacity.lock

    /** The average run time of the last window without a drop (0: none yet); under lock. */
    private long lastHealthyRtt;

    /** When the current window may end; written under lock. */
    private volatile long windowEnd;

    /** When the last sample ended (0: none yet); written by every sample, racily: a gap is long or not. */
    private volatile long lastEnd;

    /**
     * @param minWindowNanos a window lasts at least this, or twice its average (or shortest) run time
     * @param maxWindowNanos but no longer than this once it holds minSamples
     * @param minSamples     the samples a window holds at least, however long that takes
     * @param minRttNanos    shorter samples are ignored (noise)
     * @param staleNanos     a sample this long after the one before starts a new window
     * @param judgesAgainstPast the algorithm judges run time against its past (see the field)
     */
    SampleWindows(Limit delegate, long minWindowNanos, long maxWindowNanos, int minSamples, long minRttNanos,
            long staleNanos, boolean judgesAgainstPast) {
        this.delegate = delegate;
        this.minWindowNanos = minWindowNanos;
        this.maxWindowNanos = maxWindowNanos;
        this.minSamples = minSamples;
        this.minRttNanos = minRttNanos;
        this.staleNanos = staleNanos;
        this.judgesAgainstPast = judgesAgainstPast;
    }

    @Override
    public void onSample(long startTime, long rtt, int inflight, boolean didDrop) {
        if (rtt < this.minRttNanos) {
            return;
        }
        long endTime = startTime + rtt;
        long previous = this.lastEnd;
        this.lastEnd = endTime;
        // Stale after staleNanos, or after twice this task's run time if longer: tasks of five
        // minutes at a capacity of 4 end 75 s apart, and each would start a window anew (helper-141).
        if (previous == 0 || endTime - previous > Math.max(this.staleNanos, 2 * rtt)) {
            this.lock.lock(); // the first sample, or the first after a quiet spell
            try {
                SampleWindow fresh = WINDOWS.newInstance();
                this.window.set(fresh.addSample(rtt, inflight, didDrop));
                this.windowEnd = endTime; // this window ends with its minSamples-th task
            } finally {
                this.lock.unlock();
            }
            return;
        }
        SampleWindow now = this.window.updateAndGet((w) -> w.addSample(rtt, inflight, didDrop));
        if (endTime - this.windowEnd > 0 && now.getSampleCount() >= this.minSamples) {
            this.lock.lock();
            try {
                // Windows are replaced only under the lock, so the count read now can only have grown.
                if (endTime - this.windowEnd > 0 && this.window.get().getSampleCount() >= this.minSamples) {
                    SampleWindow full = this.window.getAndSet(WINDOWS.newInstance());
                    // Twice the window's average run time for the algorithms that judge run time
                    // against its past (the library's WindowedLimit takes the shortest: tasks whose
                    // run time varies widely made windows of the 10-task minimum, whose averages'
                    // noise read as queueing, found by a review's simulation); twice the shortest
                    // for AIMD, which judges it against a fixed run-timeout and backs off once every
                    // other window: longer windows slowed its back-off.
                    long basis = this.judgesAgainstPast ? full.getTrackedRttNanos() : full.getCandidateRttNanos();
                    long length = Math.min(Math.max(basis * 2, this.minWindowNanos), this.maxWindowNanos);
                    this.windowEnd = endTime + length;
                    long windowRtt = full.getTrackedRttNanos();
                    if (!full.didDrop()) {
                        this.lastHealthyRtt = windowRtt;
                    }
                    else if (this.lastHealthyRtt == 0 && this.judgesAgainstPast) {
                        // Nothing to hold it to yet (started while the backend sheds load): Vegas
                        // would take its fast run time for the unloaded one, Gradient2 ignores
                        // drops. The limit holds until a window without a drop.
                        return;
                    }
                    else {
                        windowRtt = Math.max(windowRtt, this.lastHealthyRtt);
                    }
                    this.delegate.onSample(startTime, windowRtt, full.getMaxInFlight(), full.didDrop());
                }
            } finally {
                this.lock.unlock();
            }
        }
    }

    @Override
    public int getLimit() {
        return this.delegate.getLimit();
    }

    @Override
    public void notifyOnChange(Consumer<Integer> consumer) {
        this.delegate.notifyOnChange(consumer);
    }
}
