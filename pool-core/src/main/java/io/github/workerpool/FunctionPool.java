package io.github.workerpool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A worker pool bound to one function, which it applies to each argument handed to
 * {@link #invoke(Object)}: ants' {@code PoolWithFunc} / {@code PoolWithFuncGeneric}.
 *
 * <p>It behaves exactly like a {@link WorkerPool} built from the same {@link WorkerPool.Builder}
 * (capacity, queue, blocking or nonblocking, expiry and purge, {@code tune} and
 * {@code reconfigure}, listeners, counts and lifecycle), but the unit of work is the argument itself: {@code invoke} allocates no task
 * object while the pool has no listener and no {@code queueTimeout} (with either, each argument
 * is wrapped with its submit time), which matters when one function is applied to millions of small inputs.
 *
 * <pre>{@code
 * try (FunctionPool<Url> crawler = FunctionPool.of(
 *         WorkerPool.builder().name("crawler").capacity(50), url -> fetch(url))) {
 *     for (Url url : urls) {
 *         crawler.invoke(url);                 // blocks while all 50 workers are busy
 *     }
 * }                                            // close(): every accepted url is fetched
 * }</pre>
 *
 * <p>What the function throws goes to the pool's {@code panicHandler} (by default it is logged)
 * and counts as {@code failed}; the worker carries on. The builder's {@code taskDecorator} does
 * not apply, since there is no task to decorate.
 *
 * <p>Memory consistency effects: actions in a thread before it calls {@code invoke(arg)}
 * happen-before the function runs on {@code arg}.
 *
 * <p>This class is thread-safe.
 *
 * @param <T> the type of the function's argument
 */
public final class FunctionPool<T> implements Pool {

    private final WorkerPool pool;

    private FunctionPool(WorkerPool.Settings settings, Consumer<Object> function) {
        this.pool = new WorkerPool(settings, function, this); // listeners hear of this FunctionPool
    }

    /**
     * Creates a pool that applies {@code function} to every argument given to {@link #invoke}.
     *
     * @param builder  the pool's options; {@code capacity} is required. The builder may be reused.
     * @param function what each worker does with an argument
     * @param <T>      the argument type
     * @return the new pool; its workers start on demand
     * @throws IllegalStateException    if the builder has no capacity, or asks for virtual threads on Java 17
     * @throws IllegalArgumentException if the builder's options contradict each other
     */
    @SuppressWarnings("unchecked")
    public static <T> FunctionPool<T> of(WorkerPool.Builder builder, Consumer<? super T> function) {
        Objects.requireNonNull(builder, "builder");
        Objects.requireNonNull(function, "function");
        return new FunctionPool<>(builder.settings(), (Consumer<Object>) function);
    }

    /**
     * Applies the pool's function to {@code arg} on a worker, starting one if needed and allowed;
     * if every worker is busy, queues the argument, or waits for a free worker, as configured
     * (ants {@code Invoke}).
     *
     * @param arg the argument; not null
     * @throws PoolOverloadException if the pool is full and the caller may not wait, or waited
     *         {@code blockingTimeout} in vain, or was interrupted while waiting (the interrupt
     *         status is kept)
     * @throws PoolClosedException if the pool is shut down, or was shut down while the caller waited
     * @throws NullPointerException if arg is null
     */
    public void invoke(T arg) {
        Objects.requireNonNull(arg, "arg");
        pool.submitWork(arg);
    }

    /** Returns the pool's name. */
    @Override
    public String name() {
        return pool.name();
    }

    /** Most invocations that may run at once; -1 when unbounded (ants {@code Cap}). */
    @Override
    public int capacity() {
        return pool.capacity();
    }

    /** Invocations executing right now (busy workers). */
    @Override
    public int running() {
        return pool.running();
    }

    /** Live workers waiting for work. */
    @Override
    public int idle() {
        return pool.idle();
    }

    /** {@code capacity() - running()}, never below 0; -1 when unbounded (ants {@code Free}). */
    @Override
    public int free() {
        return pool.free();
    }

    /** Callers blocked inside {@link #invoke} waiting for a worker (ants {@code Waiting}). */
    @Override
    public int waiting() {
        return pool.waiting();
    }

    /** Arguments accepted into the queue and not yet started. */
    @Override
    public int queued() {
        return pool.queued();
    }

    /**
     * Returns a snapshot of the pool's levels and totals; {@code submitted} counts every call of
     * {@link #invoke}, rejected ones too.
     */
    @Override
    public PoolStats stats() {
        return pool.stats();
    }

    @Override
    public PoolConfig config() {
        return pool.config();
    }

    /**
     * Changes the capacity now, as {@link WorkerPool#tune(int)} does (ants {@code Tune}).
     * @param capacity the new capacity, at least 1, or -1 for unbounded
     * @throws IllegalArgumentException if capacity is 0 or below -1
     * @throws IllegalStateException if the pool was built with {@code preAlloc(true)}
     */
    @Override
    public void tune(int capacity) {
        pool.tune(capacity);
    }

    /**
     * Changes live options as {@link WorkerPool#reconfigure} does.
     *
     * @param change from the current options to the new ones
     * @return the options now in effect
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     * @throws NullPointerException if {@code change} is null or returns null; nothing changes
     */
    @Override
    public PoolConfig reconfigure(UnaryOperator<PoolConfig> change) {
        return pool.reconfigure(change);
    }

    /** Adds a listener; it is told of this FunctionPool. */
    @Override
    public void addListener(PoolListener listener) {
        pool.addListener(listener);
    }

    @Override
    public void removeListener(PoolListener listener) {
        pool.removeListener(listener);
    }

    /**
     * Stops every idle worker now; running invocations are not touched.
     * @return how many idle workers were stopped
     */
    @Override
    public int purge() {
        return pool.purge();
    }

    /**
     * ants' {@code Release}: stops intake; queued and running invocations finish; callers waiting
     * in {@link #invoke} get a {@link PoolClosedException}. Does not wait.
     */
    @Override
    public void release() {
        pool.shutdown();
    }

    /**
     * ants' {@code ReleaseTimeout}: releases the pool and waits for every worker to exit.
     * @param timeout longest to wait
     * @return true if the pool terminated in time
     * @throws InterruptedException if interrupted while waiting
     */
    @Override
    public boolean releaseTimeout(Duration timeout) throws InterruptedException {
        return pool.releaseTimeout(timeout);
    }

    /** Reopens a released pool (ants {@code Reboot}); does nothing if it is running. */
    @Override
    public void reboot() {
        pool.reboot();
    }

    /** ants' {@code IsClosed}: whether the pool was released (and not rebooted). */
    @Override
    public boolean isClosed() {
        return pool.isClosed();
    }

    /**
     * Stops intake, interrupts running invocations, and returns every argument that was accepted
     * but never passed to the function (each submitting thread's in the order it submitted them);
     * nothing is dropped silently.
     */
    @SuppressWarnings("unchecked")
    @Override
    public List<T> releaseNow() {
        List<Object> never = pool.stopNow();
        List<T> args = new ArrayList<>(never.size());
        for (Object o : never) {
            args.add((T) o);
        }
        return args;
    }

    /** Whether the pool was released and every worker has exited. */
    @Override
    public boolean isTerminated() {
        return pool.isTerminated();
    }

    /**
     * Waits until the pool has terminated after a release, or the timeout passes.
     * @param timeout longest to wait
     * @return true if it terminated, false if the timeout passed first
     * @throws InterruptedException if interrupted while waiting
     */
    @Override
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        return pool.awaitTermination(PoolConfig.saturatedNanos(timeout), TimeUnit.NANOSECONDS);
    }

    /**
     * Releases the pool and waits until every accepted argument has been processed; if
     * interrupted while waiting, stops as {@link #releaseNow()} does, keeps waiting for running
     * invocations, and restores the interrupt status (the arguments never passed on are then
     * discarded, as {@code ExecutorService.close()} does).
     */
    @Override
    public void close() {
        pool.close();
    }

    /** The underlying pool, for tests. */
    WorkerPool pool() {
        return pool;
    }

    @Override
    public String toString() {
        return "Function" + pool;
    }
}
