package io.github.workerpool.adaptive;

import com.netflix.concurrency.limits.limit.AbstractLimit;

/**
 * AIMD with TCP's slow start: the library's {@code AIMDLimit} (0.5.4) grows by 1 a window and has
 * no setting for its increase, so from a quarter of the knee it needed 10-20 s to get there
 * (measured, BENCHMARKS.md). This one doubles the limit a window until its first drop, then
 * behaves as {@code AIMDLimit}: +1 a window, times {@code backoffRatio} on a drop (a sample whose
 * run time exceeds {@code timeoutNanos}, or one that failed with an overload).
 *
 * <p>The first drop ends slow start at the knee it implies rather than at 90% of the limit: a
 * window's run time is that of tasks started a window or two before, so by the time doubling
 * shows as a drop the limit has doubled once or twice more (K = 32 from 8: 128, measured), and
 * 10% a window took 3-5 s to come back. By Little's law the backend serves
 * {@code inflight / rtt} tasks a second, which at its unloaded run time (the least window
 * average seen) is {@code inflight x leastRtt / rtt} tasks in flight: the limit drops to that,
 * if it is lower than the usual back-off.
 *
 * <p>One cut per round trip, as TCP makes: the window after a cut holds the limit, drop or not,
 * since its tasks started before the cut and their run time says nothing about the new limit.
 * Cutting again on them took the limit from 37 to 26 where 33 was enough (measured). Like
 * {@code AIMDLimit} it does not grow while less than half the limit is in use (app-limited), so
 * below the knee doubling stops at about twice the tasks in flight.
 */
final class SlowStartAimdLimit extends AbstractLimit {

    private final int minLimit;

    private final int maxLimit;

    private final double backoffRatio;

    private final long timeoutNanos;

    /** Until the first drop; read and written under AbstractLimit's lock (onSample is synchronized). */
    private boolean slowStart;

    /** Whether the last window cut the limit: this one is the cut's echo and holds it. */
    private boolean justCut;

    /** The least window run time seen, the backend's unloaded run time as far as it knows. */
    private long leastRtt = Long.MAX_VALUE;

    /**
     * @param slowStart false for a limit rebuilt from a running one (AIMD's timeout changed): it
     *                  already found the knee once and grows +1 a window from the start
     */
    SlowStartAimdLimit(int initial, int minLimit, int maxLimit, double backoffRatio, long timeoutNanos,
            boolean slowStart) {
        super(initial);
        this.minLimit = minLimit;
        this.maxLimit = maxLimit;
        this.backoffRatio = backoffRatio;
        this.timeoutNanos = timeoutNanos;
        this.slowStart = slowStart;
    }

    @Override
    protected int _update(long startTime, long rtt, int inflight, boolean didDrop) {
        int current = getLimit();
        this.leastRtt = Math.min(this.leastRtt, Math.max(1, rtt));
        int next;
        if (this.justCut) {
            this.justCut = false;
            next = current;
        }
        else if (didDrop || rtt > this.timeoutNanos) {
            this.justCut = true;
            next = (int) (current * this.backoffRatio);
            if (this.slowStart) {
                this.slowStart = false;
                next = (int) Math.min(next, (double) inflight * this.leastRtt / Math.max(1, rtt));
            }
        }
        else if (inflight * 2 >= current) {
            next = this.slowStart ? current * 2 : current + 1;
        }
        else {
            next = current;
        }
        return Math.min(this.maxLimit, Math.max(this.minLimit, next));
    }

    /** Whether it is still doubling; for tests. */
    synchronized boolean inSlowStart() {
        return this.slowStart;
    }

    @Override
    public String toString() {
        return "SlowStartAimdLimit [limit=" + getLimit() + ", slowStart=" + this.slowStart + "]";
    }
}
