package io.github.workerpool;

import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link WorkerPool}'s totals: what {@link PoolStats} reports besides the levels.
 */
final class Counters {

    /*
     * Where each total is kept, so that the per-task path touches as little shared state as it can:
     *   - submitted: a LongAdder bumped on the submitting path, except for tasks that enter a
     *     queue, which the queue engine counts itself (an unbounded queue in a cell per
     *     submitting thread, OfferCounts; a bounded one in its `admitted` slots;
     *     Engine.submittedTotal puts them together).
     *   - rejected, cancelled tasks returned by shutdownNow (`returned`) and tasks whose caller
     *     withdrew them while it waited (`withdrawn`): LongAdders, bumped off the hot path.
     *   - completed, failed, cancelled-before-start: fields of each Worker, written only by its
     *     thread (release stores), read by stats() under the pool's lock, and folded into the
     *     retired* sums here when the worker exits (retireLocked), so no count is lost or
     *     counted twice.
     *   - queueTimeouts, runTimeouts: LongAdders, bumped only for a late or slow task.
     * Once the pool is quiet, submitted == completed + failed + rejected + cancelled (+ running
     * + queued, both 0 then).
     */

    final LongAdder submitted = new LongAdder();
    final LongAdder rejected = new LongAdder();
    /**
     * Refusals of a MultiPool's caller by this sub-pool, shut down on its own, that the MultiPool
     * sends on to another (WorkerPool.submitWorkRouted): part of this pool's rejected total, not
     * of the MultiPool's. Apart from `rejected`, so that the MultiPool's rejected total is a sum
     * of counters that only grow (the MultiPool took its reroutes back from the sum, which read
     * one high while a caller was on its way, then went down: a reset, to Prometheus). Its
     * submitted total still takes them back: it may read one low (or, read across a caller's
     * move, one high) while a caller moves, exact once quiet; no meter exports it.
     */
    final LongAdder routedRefused = new LongAdder();
    final LongAdder returned = new LongAdder();
    /** Callers that gave up waiting for a worker because their task group stopped: cancelled, not refused. */
    final LongAdder withdrawn = new LongAdder();
    final LongAdder queueTimeouts = new LongAdder();
    final LongAdder runTimeouts = new LongAdder();
    private long retiredCompleted;                                   // guarded by the pool's lock
    private long retiredFailed;                                      // guarded by the pool's lock
    private long retiredCancelled;                                   // guarded by the pool's lock

    /** Folds an exiting worker's totals in; under the pool's lock. */
    void retireLocked(Worker w) {
        retiredCompleted += w.completed();
        retiredFailed += w.failed();
        retiredCancelled += w.cancelled();
    }

    /** Tasks that ended, over exited workers and {@code live} ones; under the pool's lock. */
    Finished finishedLocked(Iterable<Worker> live, long retiredPolled) {
        long completed = retiredCompleted;
        long failed = retiredFailed;
        long cancelled = retiredCancelled + returned.sum() + withdrawn.sum();
        long polled = retiredPolled;
        for (Worker w : live) {
            completed += w.completed();
            failed += w.failed();
            cancelled += w.cancelled();
            polled += w.polled();
        }
        return new Finished(completed, failed, cancelled, polled);
    }

    /**
     * Totals of tasks that ended, and tasks workers took from an unbounded queue.
     * @param cancelled returned by shutdownNow or cancelled before they started
     */
    record Finished(long completed, long failed, long cancelled, long polled) {
    }
}
