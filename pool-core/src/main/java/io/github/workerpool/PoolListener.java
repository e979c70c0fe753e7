package io.github.workerpool;

import java.util.concurrent.RejectedExecutionException;

/**
 * Observes the tasks of a {@link Pool}: the one way meters, timers and alerts watch a pool, as
 * {@link java.util.concurrent.ThreadPoolExecutor}'s {@code beforeExecute}/{@code afterExecute}
 * do for that class. Added with {@link Pool#addListener}; every method has an empty default.
 *
 * <p>Calls come from the thread involved: {@link #taskStarted}, {@link #queueTimedOut},
 * {@link #runTimedOut} and {@link #taskEnded} from the worker that runs the task (in that order:
 * started, queue timeout if late, run timeout if long, ended), {@link #taskRejected} from the
 * submitting thread. They must be quick and thread-safe: a worker calls them between tasks. No
 * call is made under the pool's lock, so a listener may read this or another pool. A call on
 * the worker sees what the task did before it ({@code taskEnded} sees all of it), as any code
 * the same thread runs after it does.
 *
 * <p>A pool with no listener reads no clock per task (unless {@code queueTimeout} or
 * {@code runTimeout} is set). A listener that throws is logged and otherwise ignored: the worker
 * carries on, the task is run and counted as usual.
 *
 * <p>A task cancelled before it started, or returned by {@code shutdownNow}, is neither started
 * nor ended; one the pool runs inside another's wrapper ({@code ExecutorCompletionService}'s, so
 * {@code invokeAny}'s) is seen only once it runs: started, then ended with a
 * {@link java.util.concurrent.CancellationException}, as is one cancelled while it ran. Times are
 * in nanoseconds from {@link System#nanoTime()}.
 */
public interface PoolListener {

    /**
     * A worker is about to run a task.
     * @param pool        the pool
     * @param queuedNanos time from the call of {@code execute}/{@code submit} to now; 0 if the task was
     *                    submitted before a listener or queue timeout needed its submit time
     */
    default void taskStarted(Pool pool, long queuedNanos) {
    }

    /**
     * A task ended.
     * @param pool     the pool
     * @param runNanos how long it ran
     * @param failure  what it threw (for a {@code submit}ted task, what its future holds), or null
     *                 if it ended normally
     */
    default void taskEnded(Pool pool, long runNanos, Throwable failure) {
    }

    /**
     * A task was refused; the exception is thrown to the submitting caller after this call
     * (unless the pool is a {@link MultiPool}'s sub-pool shut down on its own, told to its own
     * listeners: the multi-pool then sends the caller on to another sub-pool).
     * @param pool      the pool
     * @param rejection what the caller gets: a {@link PoolOverloadException} or {@link PoolClosedException}
     */
    default void taskRejected(Pool pool, RejectedExecutionException rejection) {
    }

    /**
     * A task started later than the pool's {@code queueTimeout} after it was submitted; it runs anyway.
     * @param pool        the pool
     * @param queuedNanos time from submit to start
     */
    default void queueTimedOut(Pool pool, long queuedNanos) {
    }

    /**
     * A task ran longer than the pool's {@code runTimeout}; it was not interrupted.
     * @param pool     the pool
     * @param runNanos how long it ran
     */
    default void runTimedOut(Pool pool, long runNanos) {
    }
}
