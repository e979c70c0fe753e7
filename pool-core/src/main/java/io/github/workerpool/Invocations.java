package io.github.workerpool;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code invokeAll} and {@code invokeAny} for pools whose {@code execute} may block (a full pool
 * makes its caller wait): {@code AbstractExecutorService}'s versions look at their timeout only
 * between two {@code execute} calls, so a caller blocked in one waited past the timeout (for ever,
 * behind tasks that never end), and an interrupt there came out as a rejection instead of the
 * {@link InterruptedException} the methods promise.
 *
 * <p>While a timed call runs, its deadline is the calling thread's {@link #deadline()}: a caller
 * that waits for a worker gives up there ({@link Waiters.Waiter}), and the call ends as its
 * timeout says (the unfinished tasks are cancelled; {@code invokeAny} throws
 * {@link TimeoutException}).
 */
final class Invocations {

    /**
     * The timed invokeAll or invokeAny running on the calling thread: its executor and deadline.
     * Only that executor's waits use it (a MultiPool's: its sub-pools'); a wait on another pool,
     * by a listener say, is that pool's own.
     */
    private static final ThreadLocal<Deadline> DEADLINE = new ThreadLocal<>();

    /**
     * A wait's end for the calls on one thread: a timed call's deadline, or a task group's submit,
     * which the group ends early ({@link #stopNow}) when it is cancelled or fails fast.
     */
    static final class Deadline {
        /** The executor, through any ForwardingPools: resolved here, not under a pool's lock where waits begin. */
        private final Object executor;
        private final Thread thread = Thread.currentThread();
        private final String what; // for the rejection: "the timeout of the caller's invokeAll or invokeAny"
        /** Whether the caller withdraws (a group that stopped: no refusal of the pool's) or is refused (a timed call). */
        private final boolean withdraws;
        private volatile long nanos;
        /**
         * Set by {@link #stopNow()}, which only a task group calls: a wait it ends is withdrawn,
         * also when the group took a timed call's deadline (its cancel is no overload either).
         */
        private volatile boolean stopped;

        private Deadline(Executor executor, long nanos, String what) {
            this(executor, nanos, what, false);
        }

        private Deadline(Executor executor, long nanos, String what, boolean withdraws) {
            this.withdraws = withdraws;
            Object e = executor;
            for (int hops = 0; e instanceof ForwardingPool forwarding && hops < 16; hops++) {
                e = forwarding.delegate(); // a Spring pool: its pool
            }
            this.executor = e;
            this.nanos = nanos;
            this.what = what;
        }

        /** The end (System.nanoTime) of the waits. */
        long nanos() {
            return nanos;
        }

        /** What ends the waits, for the message: the group's end for a wait withdrawn (see {@link #withdraws()}). */
        String what(boolean withdrawn) {
            return withdrawn ? GROUP_STOPPED : what;
        }

        /**
         * Whether a caller giving up here withdraws its task rather than being refused: the pool
         * neither counts a rejection nor tells its listeners (a group's cancel is no overload).
         */
        boolean withdraws() {
            return withdraws || stopped;
        }

        /** Ends the thread's wait now: it gives up at its next look (woken if another thread calls this). */
        void stopNow() {
            stopped = true; // before the end moves: a waiter that sees the end sees why
            nanos = System.nanoTime();
            if (thread != Thread.currentThread()) {
                LockSupport.unpark(thread);
            }
        }

        /** Whether the waits of {@code pool} are this deadline's (its executor, its MultiPool, or a ForwardingPool over either). */
        boolean covers(WorkerPool pool) {
            return executor == pool || (executor instanceof MultiPool multi && multi.owns(pool));
        }
    }

    private static final String GROUP_STOPPED = "the task group stopped (its deadline, cancel or fail-fast)";

    /** Timed calls running on any thread: while none runs, a waiting caller skips the thread local. */
    private static final AtomicInteger RUNNING = new AtomicInteger();

    private Invocations() {
    }

    /**
     * The deadline of the timed invokeAll or invokeAny of {@code pool} (or of its MultiPool, or
     * a task group's submit to it) that the calling thread is in; null if none.
     */
    static Deadline deadline(WorkerPool pool) {
        if (RUNNING.get() == 0) {
            return null;
        }
        Deadline d = DEADLINE.get();
        return d != null && d.covers(pool) ? d : null;
    }

    /**
     * A task group's end for a submit to {@code executor} on the calling thread: a caller blocked
     * in a full pool gives up at {@code nanos}, or when the group ends the wait early
     * ({@link Deadline#stopNow()}: a cancel or a fail-fast). Not yet in force: see
     * {@link #within}. A timed call this submit runs in, on the same executor, ends it no later.
     */
    static Deadline forGroup(Executor executor, long nanos) {
        Deadline d = new Deadline(executor, nanos, GROUP_STOPPED, true);
        Deadline outer = DEADLINE.get();
        if (outer != null && (outer.executor == d.executor || d.executor instanceof WorkerPool pool && outer.covers(pool))
                && outer.nanos - nanos < 0) {
            // A rejection listener's group submit inside a timed invokeAll (of this pool or of its
            // MultiPool), say: that call's deadline comes first, and giving up there is its refusal.
            // The reverse (a group over the MultiPool in a call on one sub-pool) keeps the group's
            // end: one deadline cannot hold for one sub-pool's waits and not the others'.
            d = new Deadline(executor, outer.nanos, outer.what, false);
        }
        return d;
    }

    /** Runs {@code body} with {@code d} (of the calling thread) in force for its waits. */
    static <T> T within(Deadline d, Supplier<T> body) {
        Deadline outer = DEADLINE.get();
        DEADLINE.set(d);
        RUNNING.incrementAndGet();
        try {
            return body.get();
        } finally {
            leave(outer);
        }
    }

    /** Whether a submit to {@code executor} may wait in one of our pools (the waits a Deadline reaches). */
    static boolean mayWaitInAPool(Executor executor) {
        return executor instanceof WorkerPool || executor instanceof MultiPool || executor instanceof ForwardingPool;
    }

    /**
     * A timed invokeAll: as {@code AbstractExecutorService}'s, and a caller blocked in
     * {@code execute} stops waiting at the deadline, which then times the call out.
     */
    static <T> List<Future<T>> invokeAll(Executor pool, Function<Callable<T>, RunnableFuture<T>> taskFor,
            Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        // No earlier than now: now + a timeout of minus ages overflows into a deadline ages away.
        long deadline = System.nanoTime() + Math.max(0L, unit.toNanos(timeout));
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> task : tasks) {
            futures.add(taskFor.apply(Objects.requireNonNull(task, "task")));
        }
        Deadline outer = enter(pool, deadline);
        int done = 0;
        try {
            boolean timedOut = false;
            for (Future<T> f : futures) {
                if (deadline - System.nanoTime() <= 0L) {
                    timedOut = true;
                    break;
                }
                try {
                    pool.execute((Runnable) f);
                } catch (RejectedExecutionException e) {
                    interrupted(e);
                    if (!gaveUpAtTheDeadline(e, deadline)) {
                        throw e;
                    }
                    timedOut = true;
                    break;
                }
            }
            for (; !timedOut && done < futures.size(); done++) {
                Future<T> f = futures.get(done);
                if (!f.isDone()) {
                    try {
                        f.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                    } catch (CancellationException | ExecutionException ignored) {
                        // its outcome is in its future
                    } catch (TimeoutException e) {
                        timedOut = true;
                        break; // this one and the rest are cancelled
                    }
                }
            }
            if (timedOut) {
                cancel(futures, done);
            }
            return futures;
        } catch (Throwable t) {
            cancel(futures, 0);
            throw t;
        } finally {
            leave(outer);
        }
    }

    /**
     * Runs an untimed invokeAll ({@code AbstractExecutorService}'s, which cancels the tasks when
     * one throws): a rejection because the caller was interrupted while it waited for a worker
     * becomes the {@link InterruptedException} it promises.
     */
    static <R> R untimed(Call<R> call) throws InterruptedException {
        try {
            return call.call();
        } catch (RejectedExecutionException e) {
            interrupted(e);
            throw e;
        }
    }

    /** An untimed invokeAny's end for its submits: none a caller can reach, only a success's. */
    private static final long NEVER = Long.MAX_VALUE >> 2;

    private static final String INVOKE_TIMEOUT = "the timeout of the caller's invokeAll or invokeAny";

    /**
     * invokeAny, timed or not. As {@code AbstractExecutorService}'s, it submits the next task only
     * while none has ended; unlike it, a caller waiting in a full pool to submit one stops waiting
     * as soon as a task succeeds (its wait withdrawn: no rejection) and returns that result, and a
     * task the pool refuses while others run ends the submits, not the call (it throws the
     * refusal only if none of those succeeds). The caller's waits end at the call's deadline, which
     * then throws {@link TimeoutException}; an interrupt there {@link InterruptedException}.
     */
    static <T> T invokeAny(Executor pool, Function<Callable<T>, RunnableFuture<T>> taskFor,
            Collection<? extends Callable<T>> tasks, boolean timed, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        // No earlier than now: now + a timeout of minus ages overflows into a deadline ages away.
        long deadline = System.nanoTime() + (timed ? Math.max(0L, unit.toNanos(timeout)) : NEVER);
        List<RunnableFuture<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> task : tasks) {
            futures.add(taskFor.apply(Objects.requireNonNull(task, "task")));
        }
        if (futures.isEmpty()) {
            throw new IllegalArgumentException("invokeAny needs at least one task");
        }
        Completions<T> completions = new Completions<>();
        int next = 0;
        int active = 0;
        ExecutionException failed = null;
        RejectedExecutionException refused = null;
        try {
            for (;;) {
                Future<T> f = completions.queue.poll();
                if (f == null && next < futures.size() && refused == null) {
                    if (deadline - System.nanoTime() <= 0L) {
                        throw new TimeoutException("invokeAny timed out before its tasks ended");
                    }
                    Deadline d = new Deadline(pool, deadline, INVOKE_TIMEOUT);
                    completions.submitting = d;
                    try {
                        if (completions.succeeded) {
                            continue; // a success the wait would not see (see Completions.done)
                        }
                        Runnable queued = completions.queueing(futures.get(next));
                        within(d, () -> {
                            pool.execute(queued);
                            return null;
                        });
                        next++;
                        active++;
                    } catch (RejectedExecutionException e) {
                        interrupted(e);
                        if (d.stopped) {
                            continue; // withdrawn for a task that succeeded: take its result
                        }
                        if (gaveUpAtTheDeadline(e, deadline)) {
                            throw timedOut(e);
                        }
                        if (active == 0) {
                            throw e;
                        }
                        refused = e; // no more submits; those running may still succeed
                    } finally {
                        completions.submitting = null;
                    }
                    continue;
                }
                if (f == null) {
                    if (active == 0) {
                        break;
                    }
                    f = completions.queue.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                    if (f == null) {
                        throw new TimeoutException("invokeAny timed out before its tasks ended");
                    }
                }
                active--;
                try {
                    return f.get();
                } catch (ExecutionException e) {
                    failed = e;
                } catch (RuntimeException e) { // a cancelled one, among them
                    failed = new ExecutionException(e);
                }
            }
            if (refused != null) {
                if (failed != null) {
                    refused.addSuppressed(failed);
                }
                throw refused;
            }
            throw (failed != null) ? failed : new ExecutionException(new IllegalStateException("no task ended"));
        } finally {
            cancel(futures, 0);
        }
    }

    /**
     * An invokeAny's ended tasks, in the order they ended (as ExecutorCompletionService's queue,
     * whose wrapper the pool runs them in), and the wait of its caller's submit that a success ends.
     */
    private static final class Completions<T> {
        final LinkedBlockingQueue<Future<T>> queue = new LinkedBlockingQueue<>();
        /** The caller's submit in progress. Written before it reads succeeded, read after that is written: one sees the other. */
        volatile Deadline submitting;
        volatile boolean succeeded;

        Runnable queueing(RunnableFuture<T> task) {
            return new Queueing<>(task, this);
        }

        private static boolean succeededNormally(Future<?> task) {
            if (!task.isDone() || task.isCancelled()) {
                return false;
            }
            try {
                task.get();
                return true;
            } catch (ExecutionException | InterruptedException | RuntimeException e) {
                return false;
            }
        }
    }

    /**
     * The wrapper an invokeAny task runs in: when it ends, its task goes on the call's queue (as
     * ExecutorCompletionService's wrapper does), and a success ends the caller's wait to submit.
     */
    static final class Queueing<T> extends FutureTask<Void> {

        private final RunnableFuture<T> task;

        private final Completions<T> completions;

        /**
         * Claimed once: by the run, about to run the task, or by a cancel or failUnrun that finds
         * the task unrun (the task then does nothing, and ends with them).
         */
        private final AtomicBoolean started;

        private Queueing(RunnableFuture<T> task, Completions<T> completions) {
            this(task, completions, new AtomicBoolean());
        }

        private Queueing(RunnableFuture<T> task, Completions<T> completions, AtomicBoolean started) {
            super(() -> {
                if (started.compareAndSet(false, true)) {
                    task.run();
                }
            }, null);
            this.task = task;
            this.completions = completions;
            this.started = started;
        }

        /**
         * A decorator's wrapper threw before it ran this (WorkerPool.runTaskFully): the task ends
         * with that failure and the call tries the next one or fails, instead of waiting for it
         * for ever (helper-170). Nothing if it has run, or is running.
         */
        void failUnrun(Throwable failure) {
            if (!this.started.compareAndSet(false, true)) {
                return;
            }
            if (this.task instanceof WorkerPool.PoolFuture<?> future) {
                future.failUnrun(failure);
            } else {
                this.task.cancel(false);
            }
            setException(failure);
        }

        @Override
        protected void done() {
            if (isCancelled() && this.started.compareAndSet(false, true)) {
                // The wrapper was cancelled unrun (a future shutdownNow() returned, which
                // SpringPool's forced stop cancels): the caller would take the task and wait
                // in its get() for ever. Ended with it, the call tries the next or fails. A
                // wrapper cancelled while its task runs leaves the task to end as it ends.
                this.task.cancel(false);
            }
            this.completions.queue.add(this.task);
            if (Completions.succeededNormally(this.task)) {
                this.completions.succeeded = true;
                Deadline d = this.completions.submitting;
                if (d != null) {
                    d.stopNow(); // a failure keeps the submit waiting: the call needs the next task then
                }
            }
        }
    }

    private static TimeoutException timedOut(RejectedExecutionException e) {
        TimeoutException timedOut = new TimeoutException(e.getMessage());
        timedOut.initCause(e);
        return timedOut;
    }

    /** An untimed invokeAll of AbstractExecutorService. */
    @FunctionalInterface
    interface Call<R> {
        R call() throws InterruptedException;
    }

    /** Sets the thread's deadline for the pool's waits; returns the one to restore (a call this one runs in). */
    private static Deadline enter(Executor pool, long deadline) {
        Deadline outer = DEADLINE.get();
        DEADLINE.set(new Deadline(pool, deadline, INVOKE_TIMEOUT));
        RUNNING.incrementAndGet();
        return outer;
    }

    private static void leave(Deadline outer) {
        RUNNING.decrementAndGet();
        if (outer == null) {
            DEADLINE.remove();
        } else {
            DEADLINE.set(outer);
        }
    }

    /** Whether the rejection is a waiting caller giving up at the call's deadline (Waiters.Waiter). */
    private static boolean gaveUpAtTheDeadline(RejectedExecutionException e, long deadline) {
        return e instanceof PoolOverloadException && deadline - System.nanoTime() <= 0L;
    }

    /** Throws InterruptedException (clearing the status, as it says) if the rejection was for an interrupt. */
    private static void interrupted(RejectedExecutionException e) throws InterruptedException {
        // A caller interrupted while it waited is rejected with its interrupt status kept; a refusal
        // met with the status already set (a full nonblocking pool) stays a refusal, the status kept,
        // as AbstractExecutorService does.
        if (Waiters.interruptedWait(e) && Thread.interrupted()) {
            InterruptedException interrupted = new InterruptedException(e.getMessage());
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    private static void cancel(List<? extends Future<?>> futures, int from) {
        for (int i = from; i < futures.size(); i++) {
            futures.get(i).cancel(true);
        }
    }
}
