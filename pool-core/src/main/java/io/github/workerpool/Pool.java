package io.github.workerpool;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A pool of worker threads that can be watched, tuned and reconfigured while it runs: what
 * {@link WorkerPool}, {@link FunctionPool} and {@link MultiPool} have in common, and all that an
 * operator (a dashboard, an endpoint, a config refresh) needs to know about one.
 *
 * <p>Levels ({@link #capacity()} to {@link #queued()}) describe the moment they are read;
 * {@link #stats()} adds totals. {@link #reconfigure} changes any live option, several at once;
 * {@link #tune(int)} is the shortcut for the capacity (ants {@code Tune}).
 *
 * <p>Lifecycle, in ants' names: {@link #release()} stops intake and lets accepted work finish,
 * {@link #releaseNow()} also interrupts running work and returns what never started,
 * {@link #reboot()} reopens a released pool, {@link #close()} releases and waits.
 *
 * <p>Implementations are thread-safe.
 */
public interface Pool extends AutoCloseable {

    /** Returns the pool's name. */
    String name();

    /** Most tasks that may run at once; -1 when unbounded (ants {@code Cap}). */
    int capacity();

    /** Tasks executing right now (busy workers). */
    int running();

    /** Live workers waiting for work. */
    int idle();

    /** {@code capacity() - running()}, never below 0; -1 when unbounded (ants {@code Free}). */
    int free();

    /** Callers blocked in a submitting call, waiting for a worker (ants {@code Waiting}). */
    int waiting();

    /** Tasks accepted into the queue and not yet started. */
    int queued();

    /**
     * Most tasks the queue holds, to compare with {@link #queued()}: 0 in hand-off mode,
     * {@link Integer#MAX_VALUE} when unbounded. The default is {@code config().queueCapacity()};
     * a {@link MultiPool}'s is the sum of its pools' (its {@code config()} is one pool's).
     */
    default int queueCapacity() {
        return config().queueCapacity();
    }

    /** Returns a snapshot of the pool's levels and totals. */
    PoolStats stats();

    /** Returns the pool's current options. */
    PoolConfig config();

    /**
     * Changes the capacity now (ants {@code Tune}): the same as
     * {@code reconfigure(c -> c.withCapacity(capacity))}, except on a pool built with
     * {@code preAlloc(true)}, where this throws even for the capacity it has.
     * @param capacity the new capacity, at least 1, or -1 for unbounded
     * @throws IllegalArgumentException if capacity is 0 or below -1; nothing changes
     * @throws IllegalStateException if the pool was built with {@code preAlloc(true)}
     */
    void tune(int capacity);

    /**
     * Changes live options, several at once: {@code change} gets the current options and returns
     * the new ones, made with {@link PoolConfig}'s {@code with...} methods. The new options are
     * checked as a whole before any takes effect; if one is invalid nothing changes. What each
     * change does to waiting callers, queued and running tasks is described in the project's README
     * ("Every option live"); in short, nothing accepted is ever dropped or interrupted.
     *
     * @param change from the current options to the new ones
     * @return the options now in effect
     * @throws IllegalArgumentException if a new value is invalid, or changes an option fixed at build
     *         (name, preAlloc, virtualThreads, the thread factory, the kind of queue); nothing changes
     * @throws IllegalStateException if the capacity of a {@code preAlloc} pool would change; nothing changes
     */
    PoolConfig reconfigure(UnaryOperator<PoolConfig> change);

    /**
     * Stops every idle worker now; running tasks are not touched. Workers start again on demand.
     * A worker that finished its task just before and is still looking for the next one stops as
     * soon as it finds none, without being counted in the result.
     * @return how many idle workers were stopped
     */
    int purge();

    /**
     * Adds a listener for this pool's tasks, from the next task on.
     * @param listener the listener; not null
     */
    void addListener(PoolListener listener);

    /**
     * Removes a listener added with {@link #addListener}; does nothing if it was not added.
     * @param listener the listener
     */
    void removeListener(PoolListener listener);

    /**
     * ants' {@code Release}: stops intake; queued and running work finishes. Callers waiting for a
     * worker get a {@link PoolClosedException}. Does not wait.
     */
    void release();

    /**
     * Stops intake, interrupts running work, and returns every work item that was accepted but
     * never started; nothing is dropped silently.
     * @return the work that never started
     */
    List<?> releaseNow();

    /**
     * ants' {@code ReleaseTimeout}: releases and waits for every worker to exit.
     * @param timeout longest to wait
     * @return true if the pool terminated in time
     * @throws InterruptedException if interrupted while waiting
     */
    boolean releaseTimeout(Duration timeout) throws InterruptedException;

    /**
     * Waits until the pool has terminated after a release, or the timeout passes.
     * @param timeout longest to wait
     * @return true if it terminated, false if the timeout passed first (or it was rebooted)
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitTermination(Duration timeout) throws InterruptedException;

    /** Reopens a released pool (ants {@code Reboot}); does nothing if it is running. */
    void reboot();

    /** ants' {@code IsClosed}: whether the pool was released (and not rebooted). */
    boolean isClosed();

    /** Whether the pool was released and every worker has exited. */
    boolean isTerminated();

    /**
     * Releases the pool and waits until all accepted work has finished; if interrupted while
     * waiting, stops as {@link #releaseNow()} does, keeps waiting for running work, and restores
     * the interrupt status. The tasks that never started are then discarded, as
     * {@code ExecutorService.close()} does: counted as cancelled, their futures never complete,
     * except a {@link TaskGroup}'s, which end with a {@code RejectedExecutionException} (so its
     * {@code awaitAll()} returns).
     */
    @Override
    void close();
}
