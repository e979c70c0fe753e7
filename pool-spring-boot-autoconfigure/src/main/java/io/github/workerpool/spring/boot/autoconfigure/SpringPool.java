package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;
import io.github.workerpool.PoolListener;
import io.github.workerpool.PoolStats;
import io.github.workerpool.WorkerPool;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.AsyncTaskExecutor;

/**
 * A pool made from {@code pools.instances.<name>}: one object that is a {@link Pool}, an
 * {@link ExecutorService} and a Spring {@link AsyncTaskExecutor}, so that {@code @Async("mail")}
 * and {@code @Qualifier("mail")} injection of any of these types find the same bean. It runs
 * everything on a {@link WorkerPool}, {@link #workerPool()}.
 */
final class SpringPool implements Pool, ExecutorService, AsyncTaskExecutor, DisposableBean {

    /*
     * Context close (destroy): shutdown() stops intake (callers blocked in submit get
     * PoolClosedException) and lets queued and running tasks finish; after the await period
     * shutdownNow() interrupts running tasks and returns those that never started. Those are
     * counted by the pool (stats().cancelled()), cancelled if they are futures (so nobody waits on
     * them forever), and reported in one log line with the pool's name.
     */

    private static final Log logger = LogFactory.getLog(SpringPool.class);

    private final WorkerPool pool;

    private final Duration awaitTerminationPeriod;

    private final Map<PoolListener, PoolListener> listeners = new ConcurrentHashMap<>();

    SpringPool(WorkerPool pool, Duration awaitTerminationPeriod) {
        this.pool = pool;
        this.awaitTerminationPeriod = awaitTerminationPeriod;
    }

    /** The pool that runs the tasks. */
    WorkerPool workerPool() {
        return this.pool;
    }

    Duration awaitTerminationPeriod() {
        return this.awaitTerminationPeriod;
    }

    @Override
    public void destroy() {
        this.pool.shutdown();
        boolean interrupted = false;
        boolean terminated;
        try {
            terminated = this.pool.awaitTermination(this.awaitTerminationPeriod);
        }
        catch (InterruptedException ex) {
            interrupted = true;
            terminated = false;
        }
        if (!terminated) {
            int running = this.pool.running();
            List<Runnable> neverRan = this.pool.shutdownNow();
            for (Runnable task : neverRan) {
                if (task instanceof Future<?> future) {
                    future.cancel(false);
                }
            }
            logger.warn("Pool '" + name() + "' did not finish within " + this.awaitTerminationPeriod
                    + " of context close: interrupted " + running + " running task(s); " + neverRan.size()
                    + " queued task(s) never ran and were cancelled");
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- Executor, ExecutorService

    @Override
    public void execute(Runnable task) {
        this.pool.execute(task);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return this.pool.submit(task);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return this.pool.submit(task, result);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return this.pool.submit(task);
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        return this.pool.invokeAll(tasks);
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        return this.pool.invokeAll(tasks, timeout, unit);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return this.pool.invokeAny(tasks);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return this.pool.invokeAny(tasks, timeout, unit);
    }

    @Override
    public void shutdown() {
        this.pool.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
        return this.pool.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return this.pool.isShutdown();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return this.pool.awaitTermination(timeout, unit);
    }

    // ---------------------------------------------------------------- Pool

    @Override
    public String name() {
        return this.pool.name();
    }

    @Override
    public int capacity() {
        return this.pool.capacity();
    }

    @Override
    public int running() {
        return this.pool.running();
    }

    @Override
    public int idle() {
        return this.pool.idle();
    }

    @Override
    public int free() {
        return this.pool.free();
    }

    @Override
    public int waiting() {
        return this.pool.waiting();
    }

    @Override
    public int queued() {
        return this.pool.queued();
    }

    @Override
    public PoolStats stats() {
        return this.pool.stats();
    }

    @Override
    public PoolConfig config() {
        return this.pool.config();
    }

    @Override
    public void tune(int capacity) {
        this.pool.tune(capacity);
    }

    @Override
    public PoolConfig reconfigure(UnaryOperator<PoolConfig> change) {
        return this.pool.reconfigure(change);
    }

    @Override
    public int purge() {
        return this.pool.purge();
    }

    /** Adds a listener; it is told of this bean, not of the {@link WorkerPool} inside it. */
    @Override
    public void addListener(PoolListener listener) {
        PoolListener forwarding = new Forwarding(listener, this);
        if (this.listeners.putIfAbsent(listener, forwarding) == null) {
            this.pool.addListener(forwarding);
        }
    }

    @Override
    public void removeListener(PoolListener listener) {
        PoolListener forwarding = this.listeners.remove(listener);
        if (forwarding != null) {
            this.pool.removeListener(forwarding);
        }
    }

    @Override
    public void release() {
        this.pool.release();
    }

    @Override
    public List<Runnable> releaseNow() {
        return this.pool.releaseNow();
    }

    @Override
    public boolean releaseTimeout(Duration timeout) throws InterruptedException {
        return this.pool.releaseTimeout(timeout);
    }

    @Override
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return this.pool.awaitTermination(timeout);
    }

    @Override
    public void reboot() {
        this.pool.reboot();
    }

    @Override
    public boolean isClosed() {
        return this.pool.isClosed();
    }

    @Override
    public boolean isTerminated() {
        return this.pool.isTerminated();
    }

    @Override
    public void close() {
        this.pool.close();
    }

    @Override
    public String toString() {
        return this.pool.toString();
    }

    /** A listener told of the bean instead of the pool inside it. */
    private record Forwarding(PoolListener listener, Pool bean) implements PoolListener {

        @Override
        public void taskStarted(Pool pool, long queuedNanos) {
            this.listener.taskStarted(this.bean, queuedNanos);
        }

        @Override
        public void taskEnded(Pool pool, long runNanos, Throwable failure) {
            this.listener.taskEnded(this.bean, runNanos, failure);
        }

        @Override
        public void taskRejected(Pool pool, RejectedExecutionException rejection) {
            this.listener.taskRejected(this.bean, rejection);
        }

        @Override
        public void queueTimedOut(Pool pool, long queuedNanos) {
            this.listener.queueTimedOut(this.bean, queuedNanos);
        }

        @Override
        public void runTimedOut(Pool pool, long runNanos) {
            this.listener.runTimedOut(this.bean, runNanos);
        }

    }

}
