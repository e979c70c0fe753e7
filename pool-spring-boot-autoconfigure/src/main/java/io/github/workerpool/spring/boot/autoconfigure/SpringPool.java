package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.workerpool.ForwardingPool;
import io.github.workerpool.PoolClosedException;
import io.github.workerpool.Pool;
import io.github.workerpool.WorkerPool;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskRejectedException;

/**
 * A pool made from {@code pools.instances.<name>}: one object that is a {@link Pool}, an
 * {@link ExecutorService} and a Spring {@link AsyncTaskExecutor}, so that {@code @Async("mail")}
 * and {@code @Qualifier("mail")} injection of any of these types find the same bean. It runs
 * everything on a {@link WorkerPool}, {@link #workerPool()}.
 *
 * <p>It is a {@link SmartLifecycle} in phase {@value #PHASE}: when the application context closes,
 * every such pool stops taking tasks and drains at the same time, each for at most its
 * {@code shutdown.await-termination-period}, and the context waits for them together for at most
 * {@code spring.lifecycle.timeout-per-shutdown-phase}. So a pool waits for the shorter of the two
 * periods, and N draining pools take as long as the slowest one, not the sum. What still runs
 * when its period ends is interrupted; tasks that never started are cancelled and counted, and one
 * WARN line with the pool's name says how many of each.
 */
final class SpringPool extends ForwardingPool
        implements ExecutorService, AsyncTaskExecutor, SmartLifecycle, DisposableBean {

    /*
     * Lifecycle. The pool works from the moment it is made; start() only marks it running (and
     * reopens it if a lifecycle stop released it: context.stop() then start(), or a checkpoint and
     * restore). Its states, as the lifecycle processor sees them:
     *
     * RUNNING -> STOPPING: stop(callback), at context close (or context.stop()), for every pool of
     *   the phase in turn; each call returns at once. shutdown() stops intake (callers blocked in
     *   submit get PoolClosedException) and lets queued and running tasks finish; a thread of the
     *   pool's own ("<name>-stop") waits for that up to the await period, forces the pool if it
     *   has to, and runs the callback. The lifecycle processor waits for all the callbacks of the
     *   phase together, for at most spring.lifecycle.timeout-per-shutdown-phase.
     * STOPPING -> STOPPED: the pool terminated, or its await period ended and it was forced.
     * STOPPING -> forced in the last phase: the context closes (or failed to start) while the
     *   pool still drains (its phase timed out first, or a context.stop() came before the close);
     *   SpringPoolFactory, a lifecycle bean of phase Integer.MIN_VALUE, forces the pool and waits
     *   for its interrupted tasks before any bean is destroyed (the beans that use the pool are
     *   destroyed first); it waits likewise for a pool its await period forced whose tasks still
     *   finish. Or in destroy(), at once, if that phase timed out too. After context.stop() alone
     *   nothing forces the pool before its await period ends: start() reopens it unforced.
     * Never stopped (its bean is destroyed alone, or the context never started): destroy() does the
     *   whole stop on the calling thread. When the context failed to start, no pool was started:
     *   the first one destroyed stops every pool of its factory that never started, so that they
     *   drain together and each later destroy() waits only what is left of its own period (one
     *   after the other, a failed startup took the sum of the periods to be reported).
     *
     * Forcing: shutdownNow() interrupts running tasks and returns those that never started. Those
     * are counted by the pool (stats().cancelled()), cancelled if they are futures (so nobody waits
     * on them forever), and reported in one WARN line with the pool's name and the period that
     * ended. It happens at most once per stop, whoever gets there first (the stop thread, the last
     * phase or destroy()), and never for a stop that start() has since ended; the monitor guards
     * the lifecycle fields.
     *
     * submitCompletable's futures are not the pool's, so every path that drops tasks unrun (a
     * forced stop, shutdownNow(), releaseNow(), an interrupted close()) cancels them through
     * `completables`.
     */

    /**
     * The lifecycle phase of the pools: they stop after every bean of phase 0 or above (plain
     * {@code Lifecycle} beans, message listener containers, schedulers, the web server's graceful
     * shutdown), so those can still hand them work while they stop, and before any bean is
     * destroyed, so their tasks still find what they use.
     */
    static final int PHASE = -1024;

    private static final Log logger = LogFactory.getLog(SpringPool.class);

    private final WorkerPool pool;

    private final Duration awaitTerminationPeriod;

    /** The pools of its factory (this one too), stopped together if the context never started them. */
    private final Siblings siblings;

    /**
     * submitCompletable's futures whose task has not started. The task, its caller's cancel and
     * the paths that drop tasks unrun each remove the future before acting, so exactly one of
     * them acts: the task runs, or the future is cancelled.
     */
    private final Set<CompletableFuture<?>> completables = ConcurrentHashMap.newKeySet();

    private final Object monitor = new Object();

    private boolean running;

    /** The current stop (the lifecycle's, or destroy()'s), or null if nothing stopped the pool since it started. */
    private Stop stop;

    /** Its adaptive sizing; null without pool-adaptive, or for a pre-alloc pool. */
    private volatile AdaptiveSupport.Control adaptive;

    /**
     * Held by a change of its options from outside, a refresh or the endpoint's tune, from the
     * first value read to the last one applied: a refresh replaces the adaptive control, and a
     * tune that read the old one would apply half its change to a closed control.
     */
    private final Object changes = new Object();

    SpringPool(WorkerPool pool, Duration awaitTerminationPeriod, Siblings siblings) {
        this.pool = pool;
        this.awaitTerminationPeriod = awaitTerminationPeriod;
        this.siblings = siblings;
        siblings.pools.add(this);
    }

    /** The pools one factory made and not yet destroyed, and whether the lifecycle started any. */
    static final class Siblings {

        final List<SpringPool> pools = new java.util.concurrent.CopyOnWriteArrayList<>();

        /** Set by the first start(): from then on the context is no failed startup, and a pool destroyed alone stops no other. */
        volatile boolean started;

    }

    /** Its adaptive sizing, or null if it has none (see {@link AdaptiveSupport}). */
    AdaptiveSupport.Control adaptive() {
        return this.adaptive;
    }

    void adaptive(AdaptiveSupport.Control adaptive) {
        this.adaptive = adaptive;
    }

    /** The lock of {@link #changes}. */
    Object changes() {
        return this.changes;
    }

    /** The pool that runs the tasks. */
    WorkerPool workerPool() {
        return this.pool;
    }

    Duration awaitTerminationPeriod() {
        return this.awaitTerminationPeriod;
    }

    // ---------------------------------------------------------------- SmartLifecycle, DisposableBean

    @Override
    public void start() {
        this.siblings.started = true;
        synchronized (this.monitor) {
            if (this.stop != null) {
                this.pool.reboot();
                this.stop = null;
            }
            this.running = true;
        }
    }

    /**
     * Reopens the pool as {@link #start()} does, lifecycle and all: a reboot while a lifecycle
     * stop still waits ends that stop (it does not force the reopened pool), and a pool rebooted
     * after {@code context.stop()} is running again, so {@code context.close()} drains it.
     */
    @Override
    public void reboot() {
        this.siblings.started = true;
        synchronized (this.monitor) {
            this.pool.reboot();
            this.stop = null;
            this.running = true;
        }
    }

    @Override
    public boolean isRunning() {
        synchronized (this.monitor) {
            return this.running;
        }
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * Not stopped by the context's {@code pause()} (Spring 7, and the TestContext framework at
     * every switch between cached contexts): stopping is a shutdown, which cancels queued tasks
     * once the await period is up and interrupts running ones, while the beans a pause leaves
     * running (the web server, plain Lifecycle beans) still submit to it.
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    /** Stops intake and drains the pool on a thread of its own; the callback runs once it is done. */
    @Override
    public void stop(Runnable callback) {
        Stop stop = beginStop();
        Thread waiter = new Thread(() -> {
            try {
                finish(stop);
            }
            finally {
                callback.run();
            }
        }, name() + "-stop");
        waiter.setDaemon(true);
        waiter.start();
    }

    /** Stops intake and drains the pool, waiting on the calling thread. */
    @Override
    public void stop() {
        finish(beginStop());
    }

    /**
     * Forces a pool whose lifecycle stop is still waiting (the shutdown phase ended first), or
     * stops a pool that the lifecycle did not stop, waiting for its await period here.
     */
    @Override
    public void destroy() {
        try {
            Stop stop;
            boolean started;
            synchronized (this.monitor) {
                stop = this.stop;
                started = this.running;
            }
            if (stop == null) {
                if (!started && !this.siblings.started) { // the context started none: a failed startup, whose pools all go
                    for (SpringPool sibling : this.siblings.pools) {
                        try {
                            sibling.beginStopIfNeverStarted();
                        }
                        catch (RuntimeException ex) {
                            logger.warn("Pool '" + sibling.name() + "' could not begin to stop", ex);
                        }
                    }
                }
                synchronized (this.monitor) {
                    stop = this.stop;
                }
                finish((stop != null) ? stop : beginStop(true)); // destroyed alone: its own stop
            }
            else if (stop.byDestroy) {
                finish(stop); // begun with its siblings': what is left of its period
            }
            else if (!this.pool.isTerminated()) {
                force(stop, false);
            }
        }
        finally {
            this.siblings.pools.remove(this);
        }
    }

    /**
     * destroy() of a sibling the context never started: begins this pool's stop if the lifecycle
     * never started nor stopped it either (checked and begun in one step against start()).
     */
    private void beginStopIfNeverStarted() {
        synchronized (this.monitor) {
            if (!this.running && this.stop == null) {
                beginStop(true);
            }
        }
    }

    private Stop beginStop() {
        return beginStop(false);
    }

    /** Stops intake: the stop and the shutdown in one step against start(), which reboots what it shut down. */
    private Stop beginStop(boolean byDestroy) {
        Stop stop = new Stop(System.nanoTime(), byDestroy);
        synchronized (this.monitor) {
            this.running = false;
            this.stop = stop;
            this.pool.shutdown();
        }
        return stop;
    }

    private void finish(Stop stop) {
        boolean interrupted = false;
        boolean terminated;
        try {
            // What is left of its period since the stop began (all of it, but for a stop begun by
            // a sibling's destroy()).
            terminated = this.pool.awaitTermination(leftOfPeriod(stop.startNanos));
        }
        catch (InterruptedException ex) {
            interrupted = true;
            terminated = false;
        }
        if (!terminated) {
            force(stop, true);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Interrupts what runs, cancels what never started, and says so.
     * @param awaitPeriodEnded whether the pool's await period ended, else its shutdown phase did
     */
    private void force(Stop stop, boolean awaitPeriodEnded) {
        int running;
        List<Runnable> neverRan;
        List<CompletableFuture<?>> neverStarted;
        synchronized (this.monitor) {
            // A stop that start() has since ended (context.stop() whose phase timed out, then
            // context.start()) must not force the reopened pool when its wait runs out. So the
            // check, the shutdown and the list of futures to cancel are one step against start():
            // a start() after it reopens a pool that is shut down, and its tasks are not cancelled.
            if (stop.forced || this.stop != stop) {
                return;
            }
            stop.forced = true;
            running = this.pool.running();
            neverRan = this.pool.shutdownNow();
            neverStarted = new ArrayList<>(this.completables);
        }
        // Cancelled outside the monitor: a future's dependents run here, and may be anything.
        for (Runnable task : neverRan) {
            if (task instanceof Future<?> future) {
                future.cancel(false);
            }
        }
        cancel(neverStarted);
        if (running > 0 || !neverRan.isEmpty()) {
            Duration waited = Duration.ofNanos(System.nanoTime() - stop.startNanos).truncatedTo(ChronoUnit.MILLIS);
            String limit = awaitPeriodEnded
                    ? "its shutdown.await-termination-period (" + this.awaitTerminationPeriod + ")"
                    : "its shutdown phase (spring.lifecycle.timeout-per-shutdown-phase), or before the context "
                            + "finished closing or failing to start (" + waited + " after the pool began to stop)";
            logger.warn("Pool '" + name() + "' did not finish within " + limit + ": interrupted " + running
                    + " running task(s); " + neverRan.size() + " queued task(s) never ran and were cancelled");
        }
    }

    /** Whether a lifecycle stop has not yet seen the pool terminate (its phase, or its await period, ended first). */
    boolean isDraining() {
        synchronized (this.monitor) {
            return this.stop != null && !this.stop.byDestroy && !this.pool.isTerminated();
        }
    }

    /**
     * Forces the pool, as destroy() would but before any bean is destroyed, if a lifecycle stop
     * still waits for it; nothing if it was forced already (its await period ended).
     */
    void forceIfDraining() {
        Stop stop;
        synchronized (this.monitor) {
            stop = this.stop;
        }
        if (stop != null && !stop.byDestroy) {
            force(stop, false);
        }
    }

    /** Waits for a forced pool's interrupted tasks to end, until its await period counted from {@code fromNanos}. */
    void awaitForcedEnd(long fromNanos) {
        try {
            this.pool.awaitTermination(leftOfPeriod(fromNanos));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** What is left of the await period counted from {@code fromNanos} (System.nanoTime), at least zero. */
    private Duration leftOfPeriod(long fromNanos) {
        Duration left = this.awaitTerminationPeriod.minusNanos(System.nanoTime() - fromNanos);
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** One stop, the lifecycle's or destroy()'s: when it began, and whether the pool was forced. */
    private static final class Stop {

        final long startNanos;

        /** Begun by destroy() (its own or a sibling's), not by the lifecycle. */
        final boolean byDestroy;

        boolean forced;

        Stop(long startNanos, boolean byDestroy) {
            this.startNanos = startNanos;
            this.byDestroy = byDestroy;
        }

    }

    // ---------------------------------------------------------------- Executor, ExecutorService

    /*
     * Rejections. Spring's executors refuse a task with a TaskRejectedException (TaskExecutor's
     * and AsyncTaskExecutor's contract), and code written for them catches that: the pool's own
     * PoolOverloadException or PoolClosedException, with its message, is its cause. Both are
     * RejectedExecutionExceptions, so ExecutorService's contract holds too.
     */

    /**
     * The failure of a {@code void @Async} method that Spring gave to the uncaught-exception
     * handler (which logged it) while the task running it on this thread was open: a scope per
     * {@link #submit(Callable)} task, closed when it ends, so that nothing outlives its task.
     */
    private static final ThreadLocal<AsyncScope> ASYNC_SCOPE = ThreadLocal.withInitial(AsyncScope::new);

    /**
     * A thread's open {@link #submit(Callable)} task, reused from task to task (a new one-slot
     * scope and thread-local entry per task cost about 70 bytes a task): whether one is open, and
     * what the {@code @Async} handler was given while it was.
     */
    private static final class AsyncScope {

        boolean open;

        @Nullable Throwable failure;

    }

    /**
     * Called by the {@code @Async} uncaught-exception handler: the task of {@link #submit(Callable)}
     * running on this thread, if any, fails with {@code failure} once Spring's callable returns,
     * so that the pool counts it failed. Spring submits a {@code void} method's callable through
     * {@link #submit(Callable)}, catches what the method throws and hands it to the handler. (A
     * void method that an inline executor runs inside such a task counts as that task's failure.)
     */
    static void asyncSwallowed(Throwable failure) {
        AsyncScope scope = ASYNC_SCOPE.get();
        if (scope.open && scope.failure == null) {
            scope.failure = failure;
        }
    }

    /** The task, failing with what the {@code @Async} handler was given while it ran, if anything. */
    private static <T> Callable<T> failingWhatAsyncSwallowed(Callable<T> task) {
        return () -> {
            AsyncScope scope = ASYNC_SCOPE.get();
            boolean outerOpen = scope.open; // a task run inline inside another: the outer one's, restored after
            Throwable outerFailure = scope.failure;
            scope.open = true;
            scope.failure = null;
            T result;
            Throwable swallowed;
            try {
                result = task.call();
            }
            finally {
                swallowed = scope.failure;
                scope.open = outerOpen;
                scope.failure = outerFailure;
            }
            if (swallowed != null && result == null) { // a void method's callable returns null
                throw SpringPool.<RuntimeException>as(swallowed);
            }
            return result;
        };
    }

    /** The method's own exception as the task's failure, checked or not. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E as(Throwable failure) throws E {
        throw (E) failure;
    }

    /**
     * The pool's refusal as Spring's. A pool its context stopped says so: the pool's own message
     * ("call reboot()") is for code that shut it down itself, and reopening a pool the context is
     * closing would run tasks after the beans they use are gone.
     */
    private TaskRejectedException rejected(RejectedExecutionException ex) {
        String message = ex.getMessage();
        if (ex instanceof PoolClosedException) {
            Stop stop;
            synchronized (this.monitor) {
                stop = this.stop;
            }
            if (stop != null && this.pool.isShutdown()) {
                message = "pool '" + name() + "' is stopped and accepts no tasks: "
                        + (stop.byDestroy ? "its bean was destroyed (the application context is closing)"
                                : "the application context stopped it (context stop or close); it reopens when the context starts again");
            }
        }
        return new TaskRejectedException(message, ex);
    }

    @Override
    public void execute(Runnable task) {
        try {
            this.pool.execute(task);
        }
        catch (RejectedExecutionException ex) {
            throw rejected(ex);
        }
    }

    @Override
    public Future<?> submit(Runnable task) {
        try {
            return this.pool.submit(task);
        }
        catch (RejectedExecutionException ex) {
            throw rejected(ex);
        }
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        try {
            return this.pool.submit(task, result);
        }
        catch (RejectedExecutionException ex) {
            throw rejected(ex);
        }
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        try {
            return this.pool.submit(failingWhatAsyncSwallowed(task));
        }
        catch (RejectedExecutionException ex) {
            throw rejected(ex);
        }
    }

    /**
     * Runs the task as {@link #submit(Callable)} does, so that its failure is the pool's to see:
     * {@code pool.tasks.failed}, the pool's listeners and {@code adaptive.drop-on} count it.
     * (Spring's default goes through {@code CompletableFuture}'s own async wrapper, which catches
     * the failure before the pool sees it; {@code @Async} methods that return a
     * {@code CompletableFuture} come here.) The future completes as the task does. Cancelling it
     * cancels the task if it has not started; one that runs is not interrupted, as with any
     * {@code CompletableFuture}. A forced stop, {@link #shutdownNow()}, {@link #releaseNow()} and
     * an interrupted {@link #close()} cancel it if its task never started.
     */
    @Override
    public <T> CompletableFuture<T> submitCompletable(Callable<T> task) {
        Objects.requireNonNull(task, "task");
        CompletableFuture<T> result = new CompletableFuture<>();
        this.completables.add(result);
        Future<T> future;
        // A decorator's wrapper that throws without running the task ends the future with that
        // failure (only the task completes it otherwise); the task, once started, owns it.
        PoolTaskDecorator.SUBMITTING.set(new PoolTaskDecorator.Submitting(name(), (failure) -> {
            if (this.completables.remove(result)) {
                result.completeExceptionally(new CompletionException(describe(failure), failure));
            }
        }));
        try {
            future = this.pool.submit(() -> {
                if (!this.completables.remove(result)) {
                    return null; // cancelled before it started: by its caller, or a path that drops tasks unrun
                }
                try {
                    T value = task.call();
                    result.complete(value);
                    return value;
                }
                catch (Throwable ex) {
                    // Wrapped as Spring's default and CompletableFuture's own async methods do, so
                    // handlers see the same exception type; get() unwraps it.
                    result.completeExceptionally((ex instanceof CompletionException) ? ex
                            : new CompletionException(describe(ex), ex));
                    throw ex; // the pool's to count
                }
            });
        }
        catch (RejectedExecutionException ex) {
            this.completables.remove(result);
            throw rejected(ex);
        }
        catch (RuntimeException | Error ex) {
            this.completables.remove(result);
            throw ex;
        }
        finally {
            PoolTaskDecorator.SUBMITTING.remove(); // a pool with no decorator of ours never read it
        }
        result.whenComplete((value, failure) -> {
            if (result.isCancelled() && this.completables.remove(result)) {
                future.cancel(false); // not started: the pool skips it and counts it cancelled
            }
        });
        return result;
    }

    /**
     * Cancels submitCompletable's futures whose task never started: after a shutdownNow (the
     * pool's, a forced stop's, or one inside close()), nothing will run them.
     */
    private void cancelCompletablesNeverStarted() {
        cancel(this.completables);
    }

    /** Cancels those of the futures whose task never started (the paths that act on one remove it first). */
    private void cancel(Collection<CompletableFuture<?>> futures) {
        for (CompletableFuture<?> completable : futures) {
            if (this.completables.remove(completable)) {
                completable.cancel(false);
            }
        }
    }

    /** As {@link #submitCompletable(Callable)}. */
    @Override
    public CompletableFuture<Void> submitCompletable(Runnable task) {
        return submitCompletable(() -> {
            task.run();
            return null;
        });
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        try {
            return this.pool.invokeAll(tasks);
        }
        catch (RejectedExecutionException ex) {
            throw rejected(ex);
        }
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        try {
            return this.pool.invokeAll(tasks, timeout, unit);
        }
        catch (RejectedExecutionException ex) {
            throw rejected(ex);
        }
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        try {
            return this.pool.invokeAny(tasks);
        }
        catch (RejectedExecutionException ex) {
            throw rejected(ex);
        }
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return this.pool.invokeAny(tasks, timeout, unit);
        }
        catch (RejectedExecutionException ex) {
            throw rejected(ex);
        }
    }

    @Override
    public void shutdown() {
        this.pool.shutdown();
    }

    /**
     * As {@link WorkerPool#shutdownNow()}; the futures of {@link #submitCompletable} whose task
     * never started are cancelled (their tasks, in the list, no longer run them).
     */
    @Override
    public List<Runnable> shutdownNow() {
        List<Runnable> neverRan = this.pool.shutdownNow();
        cancelCompletablesNeverStarted();
        return neverRan;
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
    protected Pool delegate() {
        return this.pool;
    }

    /** As {@link WorkerPool#releaseNow()}; cancels as {@link #shutdownNow()} does. */
    @Override
    public List<Runnable> releaseNow() {
        List<Runnable> neverRan = this.pool.releaseNow();
        cancelCompletablesNeverStarted();
        return neverRan;
    }

    /** As {@link WorkerPool#close()}; cancels as {@link #shutdownNow()} does what it dropped. */
    @Override
    public void close() {
        // Those of before the close only: after a reboot by another thread, new ones may come.
        List<CompletableFuture<?>> before = new ArrayList<>(this.completables);
        try {
            this.pool.close();
        }
        finally {
            // Terminated, or forced (interrupted: the interrupt status is restored): what never
            // started was dropped. Not when it returned because another thread reopened the pool:
            // the tasks still queued will run (helper-162: their futures were cancelled).
            if (this.pool.isTerminated() || Thread.currentThread().isInterrupted()) {
                cancel(before);
            }
        }
    }

    /**
     * An exception as text, or its class if its own toString() throws: a task's exception whose
     * getMessage() fails must still complete its future (its caller would wait for ever).
     */
    private static String describe(Throwable ex) {
        try {
            return String.valueOf(ex);
        }
        catch (Throwable unreadable) {
            return ex.getClass().getName() + " (whose message could not be read: " + unreadable.getClass().getName() + ")";
        }
    }

}
