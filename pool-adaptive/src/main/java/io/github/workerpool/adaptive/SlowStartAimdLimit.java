package io.github.workerpool.adaptive;

import com.netflix.concurrency.limits.limit.AbstractLimit;

/**
 * AIMD with TCP's slow start: the library's {@code AIMDLimit} (0.5.4) grows by 1 a window and has
 * no setting for its increase, so from a quarter of the knee it needed 10-20 s to get there
 * (measured, BENCHMARKS.md). This one doubles the limit a window until its first drop, then
 * behaves as {@code AIMDLimit}: +1 a window, times {@code backoffRatio} on a drop (a sample whose
 * run time exceeds {@code timeoutNanos}, or one that failed with an overload). Like
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
        int next;
        if (didDrop || rtt > this.timeoutNanos) {
            this.slowStart = false;
            next = (int) (current * this.backoffRatio);
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
