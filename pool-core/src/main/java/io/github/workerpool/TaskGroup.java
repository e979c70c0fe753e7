package io.github.workerpool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Many tasks submitted to a pool as one unit of work, in the manner of go-playground/pool's
 * {@code Batch}, pond's task groups and Go's {@code errgroup}.
 *
 * <p>Each {@link #submit} returns a {@link Task} handle (go-playground's {@code WorkUnit}): its
 * value or error, {@code cancel}, {@code await}, or a {@link CompletableFuture}. The group reads
 * results in completion order ({@link #completions()}) or in submission order ({@link #awaitAll()}),
 * cancels everything unfinished ({@link #cancel()}), can fail fast (the first failure cancels
 * the rest) and can have a deadline for the whole group.
 *
 * <pre>{@code
 * TaskGroup<Receipt> mails = TaskGroup.builder(pool).deadline(Duration.ofSeconds(10)).build();
 * for (Address to : addresses) {
 *     mails.submit(() -> send(to));
 * }
 * mails.completions().forEach(t -> log(t.index(), t.value(), t.error()));  // as they finish
 * List<Receipt> receipts = mails.awaitAll();                             // submission order
 * }</pre>
 *
 * <p>A task's exception, {@code Error}s included (Go's "panic"), becomes its {@linkplain Task#error()
 * error}, with its own stack trace; it is also what the pool sees, so the pool counts the task as
 * failed. Nothing is swallowed: {@link #awaitAll()} throws the first failure and carries the
 * others as suppressed exceptions.
 *
 * <p>The completion stream cannot hang the way go-playground's {@code Results()} does when
 * {@code QueueComplete()} is forgotten: it ends as soon as every task submitted so far has been
 * delivered, with no "no more tasks" call. A reader running alongside a submitter may therefore
 * see the end before the submitter is done; submit first, or use {@link #awaitAll()} once the
 * submitter has finished.
 *
 * <p>Every task ends, whatever happens to its pool: a task the pool refuses, or that the pool
 * stops before it starts ({@code shutdownNow}), fails with a {@link RejectedExecutionException};
 * running a future that {@code shutdownNow} returned does nothing then. One whose pool's task
 * decorator wraps it in code that throws before it runs fails with that failure. An executor other than
 * this library's pools cannot tell the group: a task it drops unrun (a
 * {@code ThreadPoolExecutor}'s {@code shutdownNow} or discard policy) stays pending until the
 * group is {@linkplain #cancel() cancelled}.
 *
 * <p>Memory consistency effects: actions in a thread before it submits a task happen-before the
 * task runs, and the task's actions happen-before its result is read ({@code get()},
 * {@code awaitAll()}, {@code completions()}).
 *
 * <p>This class is thread-safe; tasks may be submitted from any thread.
 *
 * @param <R> the tasks' result type
 */
public final class TaskGroup<R> {

    /*
     * Implementation notes.
     *
     * One lock guards the group: the task lists, the counts and every Task's terminal state.
     * A Task moves PENDING -> SUCCEEDED | FAILED | CANCELLED exactly once, in finish(), under the
     * lock; whoever gets there first wins (the worker finishing the call, cancel(), fail-fast,
     * the deadline), the others see a terminal state and do nothing. finish() appends the task to
     * the completion list and signals; the task's CompletableFuture is completed after unlocking
     * so that its dependents never run under our lock.
     *
     * The pool runs Task::runOnWorker through submit(), so a task that throws is a failed
     * PoolFuture to the pool (its counts stay right) and a task cancelled before it starts is
     * counted as cancelled by the pool when a worker dequeues it (unless the worker gets to it in
     * the moment between the pool's submit() returning and its future being stored here: then the
     * pool counts it completed, while the group counts it cancelled). Cancelling a running task
     * interrupts it, unless the task cancels itself (it is not interrupted by its own call).
     */

    private static final int PENDING = 0;
    private static final int SUCCEEDED = 1;
    private static final int FAILED = 2;
    private static final int CANCELLED = 3;

    /** The task the current thread runs, if it runs one: a wait for its own group or itself would never end. */
    private static final ThreadLocal<Task<?>> RUNNING = new ThreadLocal<>();

    private final ExecutorService executor;
    private final boolean failFast;
    private final Duration deadline;
    private final long deadlineAt; // System.nanoTime() value; meaningful only if deadline != null

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayList<Task<R>> tasks = new ArrayList<>();        // submission order
    private final ArrayList<Task<R>> completed = new ArrayList<>();    // completion order
    private int pending;
    private int succeeded;
    private int failed;
    private int cancelled;
    private boolean stopped;   // cancel(), fail-fast or the deadline: new tasks are cancelled
    private boolean timedOut;  // the deadline cancelled a task
    private boolean stoppedByDeadline; // the deadline stopped the group (not cancel() or fail-fast before it)
    private Task<R> firstFailure;
    /**
     * The deadline's timer (Deadlines), armed while a task is pending: a group with nothing pending
     * leaves no entry on the timer (a group per request would leave one per request until its
     * deadline). A task submitted later arms it again; a submit or a wait past the deadline
     * expires the group itself.
     */
    private ScheduledFuture<?> deadlineTimer;
    /** The submits in progress: stop() ends their waits for a worker. */
    private final List<Invocations.Deadline> waiting = new ArrayList<>(2);
    private volatile boolean expired; // the deadline has stopped the group (or found it stopped)

    /** Longest deadline honoured: beyond it (about 73 years) the nanosecond clock would overflow. */
    private static final long MAX_DEADLINE_NANOS = Long.MAX_VALUE / 4;

    /** A task's error as text, or its class if its own toString() throws (user code; the error must still reach the caller). */
    static String describe(Throwable error) {
        try {
            return String.valueOf(error);
        } catch (Throwable e) { // whatever its getMessage() throws, StackOverflowError included
            return error.getClass().getName() + " (whose message could not be read: " + e.getClass().getName() + ")";
        }
    }

    private TaskGroup(Builder b) {
        this.executor = b.executor;
        this.failFast = b.failFast;
        this.deadline = b.deadline;
        this.deadlineAt = deadline == null ? 0L
                : System.nanoTime() + Math.min(PoolConfig.saturatedNanos(deadline), MAX_DEADLINE_NANOS);
    }

    /**
     * Returns a group that submits to {@code executor} (a {@link WorkerPool}, a
     * {@link MultiPool} or any executor service), without fail-fast and without deadline.
     * @param executor where the tasks run
     * @param <R> the tasks' result type
     * @return a new, empty group
     */
    public static <R> TaskGroup<R> of(ExecutorService executor) {
        return builder(executor).build();
    }

    /**
     * Returns a builder for a group that submits to {@code executor}.
     * @param executor where the tasks run
     * @return a builder with fail-fast off and no deadline
     */
    public static Builder builder(ExecutorService executor) {
        return new Builder(Objects.requireNonNull(executor, "executor"));
    }

    // ---------------------------------------------------------------- submission

    /**
     * Submits a task. Same as {@link #submit(Work)} for a task that does not need its own handle.
     * @param task what to run
     * @return the task's handle
     * @throws RejectedExecutionException if the pool refuses the task (the handle, recorded in the
     *         group, fails with the same exception)
     */
    public Task<R> submit(Callable<? extends R> task) {
        Objects.requireNonNull(task, "task");
        return submit(self -> task.call());
    }

    /**
     * Submits a task that gets its own handle, so that it can {@linkplain Task#cancel() cancel
     * itself} or check {@link Task#isCancelled()} (go-playground's {@code WorkFunc}). If the group
     * was cancelled, failed fast or passed its deadline, the task is not run and the handle
     * comes back cancelled. A call waiting for a worker in a full pool that makes callers wait
     * gives up when the group stops (and the handle comes back cancelled), if the executor is a
     * {@link WorkerPool}, a {@link MultiPool} or a {@link ForwardingPool} over one.
     *
     * @param work what to run; given the task's handle
     * @return the task's handle
     * @throws RejectedExecutionException if the pool refuses the task (the handle, recorded in the
     *         group, fails with the same exception), unless the group stopped meanwhile (the handle
     *         is then cancelled); if the calling thread is interrupted while it waits for a worker
     *         (its interrupt status kept), the handle is cancelled, which stops no fail-fast group
     * @throws Error what the pool threw (out of memory), even if the task ended meanwhile, ran or
     *         cancelled; if it was still pending, its handle fails with it too
     */
    public Task<R> submit(Work<R> work) {
        Objects.requireNonNull(work, "work");
        expireIfDue();
        Task<R> t;
        boolean cancelNow;
        // A submit that may wait for a worker in one of our pools: the group can end that wait.
        Invocations.Deadline wait = !Invocations.mayWaitInAPool(executor) ? null
                : Invocations.forGroup(executor, deadline != null ? deadlineAt : System.nanoTime() + MAX_DEADLINE_NANOS);
        lock.lock();
        try {
            t = new Task<>(this, tasks.size(), work);
            tasks.add(t);
            pending++;
            cancelNow = stopped;
            if (wait != null && !stopped) {
                waiting.add(wait);
                t.wait = wait;
            }
            if (!stopped && deadline != null && deadlineTimer == null) {
                deadlineTimer = Deadlines.schedule(this, Math.max(0L, deadlineAt - System.nanoTime()));
            }
        } finally {
            lock.unlock();
        }
        if (cancelNow) {
            t.cancel(false);
            return t;
        }
        if (t.isCancelled()) {
            stopWaiting(wait);
            return t; // the group stopped since (cancel, fail-fast, deadline): not handed to the pool at all
        }
        Future<?> f;
        try {
            f = (wait == null) ? executor.submit(t::runOnWorker)
                    : Invocations.within(wait, () -> executor.submit(t::runOnWorker));
        } catch (RuntimeException | Error e) {
            // A wait for a worker given up at the deadline may come before the timer's stop (or
            // while it runs: expireIfDue() would skip it): stop the group here, which cancels
            // this task, so that it reads as the deadline's cancel.
            stopWaiting(wait);
            if (deadline != null && System.nanoTime() - deadlineAt >= 0) {
                expire();
            }
            if (wait != null && Waiters.interruptedWait(e)) {
                // Its submitter was interrupted while it waited for a worker: withdrawn, as a
                // cancel, not a failure that stops a fail-fast group (helper-142). The submit
                // still throws, so that the interrupted caller knows the task was not taken.
                if (!t.cancel(false)) {
                    return t; // the group stopped meanwhile and cancelled it
                }
                throw e;
            }
            // A rejection, or anything else the executor throws (a task decorator's bug): the
            // task is in the group, so it must end, or awaitAll() would wait for it forever.
            if (!finish(t, FAILED, null, e) && !(e instanceof Error)) {
                // Ended meanwhile (cancelled; or run, if the pool threw after taking it): the
                // refusal does not matter to it. An Error (out of memory) is thrown still.
                return t;
            }
            throw e;
        }
        stopWaiting(wait);
        t.poolFuture = f;
        if (f instanceof WorkerPool.PoolFuture) {
            WorkerPool.PoolFuture<?> pf = (WorkerPool.PoolFuture<?>) f;
            pf.whenDropped(() -> finish(t, FAILED, null, new RejectedExecutionException(
                    "the pool was stopped (shutdownNow) before task " + t.index + " of the group started")));
            // A task decorator's wrapper that threw before the task ran: the task fails with it.
            pf.whenFailedUnrun((failure) -> finish(t, FAILED, null, failure));
        }
        if (wait != null) {
            // Let in at its last look for a worker past the deadline (the timer not run yet): the
            // deadline's cancel, now, rather than the task starting late.
            expireIfDue();
        }
        if (t.isCancelled()) {
            // Cancelled before we could pass the pool's future on: as that cancel asked (no
            // interrupt for a task cancelling itself, nor for cancel(false)).
            t.cancelPoolFuture();
        }
        return t;
    }

    /**
     * A task cancelled while its submit waits for a worker: the submit gives up, as for the
     * group's stop() (helper-142: it stayed parked in a full pool until a worker was free).
     */
    private void stopWaitOf(Task<R> t) {
        lock.lock();
        try {
            if (t.wait != null && waiting.contains(t.wait)) {
                t.wait.stopNow();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The submit's wait for a worker is over: stop() need not end it. */
    private void stopWaiting(Invocations.Deadline wait) {
        if (wait != null) {
            lock.lock();
            try {
                waiting.remove(wait);
            } finally {
                lock.unlock();
            }
        }
    }

    // ---------------------------------------------------------------- results

    /**
     * Returns the tasks in completion order, blocking for the next while one is unfinished; the
     * stream ends once every task submitted so far has been delivered. Cancelled tasks are
     * delivered too. Each call returns a new stream that starts from the first completed task.
     * If the reading thread is interrupted while it waits, the stream throws
     * {@link CancellationException} and the interrupt status is kept. Read from a task of this
     * group, it throws {@link IllegalStateException} (it would wait for that task itself).
     */
    public Stream<Task<R>> completions() {
        Iterator<Task<R>> it = new Iterator<>() {
            int cursor;

            @Override
            public boolean hasNext() {
                notFromOwnTask("completions()");
                for (;;) {
                    lock.lock();
                    try {
                        while (cursor >= completed.size()) {
                            if (pending == 0) {
                                return false;
                            }
                            try {
                                if (!awaitChangeLocked()) {
                                    break; // past the deadline: expire below, then look again
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                throw new CancellationException("interrupted while waiting for the next task of the group");
                            }
                        }
                        if (cursor < completed.size()) {
                            return true;
                        }
                    } finally {
                        lock.unlock();
                    }
                    expire();
                }
            }

            @Override
            public Task<R> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                lock.lock();
                try {
                    return completed.get(cursor++);
                } finally {
                    lock.unlock();
                }
            }
        };
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(it,
                Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    private void notFromOwnTask(String call) {
        Task<?> own = RUNNING.get();
        if (own != null && own.group == this) {
            throw new IllegalStateException(call + " called from task " + own.index + " of the same group would "
                    + "wait for that task itself; wait from outside the group, or give the subtasks a group of their own");
        }
    }

    /**
     * Waits until every submitted task is done and returns their values in submission order;
     * a cancelled task contributes {@code null} (see {@link #tasks()} to tell them apart). A
     * cancelled task is done at once, as with any {@link Future}, though its code may still be
     * running until it sees the interrupt: unlike Go's {@code errgroup.Wait}, this does not wait
     * for that code to return.
     *
     * @return the values, in submission order
     * @throws ExecutionException if a task failed: its cause is the failure that stopped the
     *         group (fail-fast) or else the first failure in submission order; every other
     *         failure is attached as a suppressed exception
     * @throws TimeoutException if no task failed but the group's deadline cancelled some
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if called from a task of this group (it would wait for itself)
     */
    public List<R> awaitAll() throws InterruptedException, ExecutionException, TimeoutException {
        notFromOwnTask("awaitAll()");
        List<Task<R>> all = null;
        Task<R> first = null;
        boolean late = false;
        while (all == null) {
            lock.lock();
            try {
                while (pending > 0 && awaitChangeLocked()) {
                    // woken by a task's end, or timed out at the deadline
                }
                if (pending == 0) {
                    all = new ArrayList<>(tasks);
                    first = firstFailure;
                    late = timedOut;
                }
            } finally {
                lock.unlock();
            }
            if (all == null) {
                expire(); // past the deadline with tasks pending: the timer is late; do its work here
            }
        }
        if (first != null) {
            if (!failFast) {
                for (Task<R> t : all) {
                    if (t.state == FAILED) {
                        first = t;
                        break;
                    }
                }
            }
            ExecutionException e = new ExecutionException("task " + first.index + " of the group failed: "
                    + describe(first.error), first.error);
            for (Task<R> t : all) {
                if (t.state == FAILED && t != first) {
                    e.addSuppressed(t.error);
                }
            }
            throw e;
        }
        if (late) {
            throw new TimeoutException("the task group's deadline of " + deadline + " passed; "
                    + "the tasks unfinished then were cancelled");
        }
        List<R> values = new ArrayList<>(all.size());
        for (Task<R> t : all) {
            values.add(t.value);
        }
        return values;
    }

    /**
     * Waits at most {@code timeout} until every task submitted so far is done, cancelling nothing
     * (unlike the group's deadline); then {@link #awaitAll()} returns at once. As with
     * {@code awaitAll()}, a cancelled task is done at once, and a group past its deadline has its
     * unfinished tasks cancelled here.
     *
     * @param timeout the longest wait; zero or negative: no wait
     * @return true if every task is done, false if the time ran out first
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if called from a task of this group (it would wait for itself)
     */
    public boolean await(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        notFromOwnTask("await(Duration)");
        long nanos = Math.max(0L, PoolConfig.saturatedNanos(timeout)); // minus ages: no wait, not one of ages
        long start = System.nanoTime();
        while (true) {
            boolean due = false;
            lock.lock();
            try {
                while (pending > 0) {
                    if (deadline != null && System.nanoTime() - deadlineAt >= 0) {
                        due = true; // past the deadline, the timer late: its cancels first, even with no wait
                        break;
                    }
                    long left = nanos - (System.nanoTime() - start);
                    if (left <= 0) {
                        return false;
                    }
                    if (!awaitChangeLocked(left)) {
                        due = true; // past the deadline: expire below, then look again
                        break;
                    }
                }
                if (!due) {
                    return true;
                }
            } finally {
                lock.unlock();
            }
            expire(); // past the deadline with tasks pending: the timer is late; do its work here
        }
    }

    /** Returns the handles of every task submitted so far, in submission order. */
    public List<Task<R>> tasks() {
        lock.lock();
        try {
            return List.copyOf(tasks);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Cancels every unfinished task (running ones are interrupted) and every task submitted
     * from now on.
     * @return how many tasks this call cancelled
     */
    public int cancel() {
        return stop(false);
    }

    /** Whether the group was cancelled, failed fast or passed its deadline, so that new tasks are cancelled. */
    public boolean isStopped() {
        expireIfDue();
        lock.lock();
        try {
            return stopped;
        } finally {
            lock.unlock();
        }
    }

    /** Returns a snapshot of the group's counts. */
    public Counts counts() {
        lock.lock();
        try {
            return new Counts(tasks.size(), pending, succeeded, failed, cancelled);
        } finally {
            lock.unlock();
        }
    }

    /** Whether the deadline's timer is armed (tests). */
    boolean deadlineArmed() {
        lock.lock();
        try {
            return deadlineTimer != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        Counts c = counts();
        return "TaskGroup[submitted=" + c.submitted() + ", pending=" + c.pending() + ", succeeded="
                + c.succeeded() + ", failed=" + c.failed() + ", cancelled=" + c.cancelled()
                + (failFast ? ", failFast" : "") + (deadline != null ? ", deadline=" + deadline : "") + "]";
    }

    // ---------------------------------------------------------------- internals

    private void expireIfDue() {
        if (deadline != null && !expired && System.nanoTime() - deadlineAt >= 0) {
            expire();
        }
    }

    /** Stops the group for its deadline (Deadlines' timer, or a submit or wait that finds it past). */
    void expire() {
        expired = true;
        stop(true);
    }

    /**
     * Waits for a task to end, under the lock, no later than the deadline: a wait bounded only by
     * the timer would last as long as the timer is late. False once the deadline has passed (the
     * caller unlocks and expires the group: its cancels must not run under the lock).
     */
    private boolean awaitChangeLocked() throws InterruptedException {
        return awaitChangeLocked(Long.MAX_VALUE);
    }

    /** awaitChangeLocked(), waiting at most {@code nanos} (Long.MAX_VALUE: no limit). */
    private boolean awaitChangeLocked(long nanos) throws InterruptedException {
        long left = (deadline == null) ? Long.MAX_VALUE : deadlineAt - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        left = Math.min(left, nanos);
        if (left == Long.MAX_VALUE) {
            changed.await();
        } else {
            changed.awaitNanos(left);
        }
        return true;
    }

    /**
     * Waits until {@code t} has ended, by its state: its CompletableFuture completes after the
     * state changes, outside the lock, and stop() completes the futures one by one, running their
     * callbacks, so a wait on it lasted as long as another task's callback.
     * @param nanos longest to wait, or -1 for no limit
     * @throws TimeoutException if it has not ended in time
     */
    private void awaitEnd(Task<R> t, long nanos) throws InterruptedException, TimeoutException {
        long until = System.nanoTime() + nanos;
        while (t.state == PENDING) {
            boolean due = false;
            lock.lockInterruptibly();
            try {
                while (t.state == PENDING && !due) {
                    long left = (nanos < 0) ? Long.MAX_VALUE : until - System.nanoTime();
                    if (left <= 0) {
                        throw new TimeoutException();
                    }
                    due = !awaitChangeLocked(left);
                }
            } finally {
                lock.unlock();
            }
            if (due) {
                expire(); // past the deadline with the task pending: the timer is late; do its work here
            }
        }
    }

    private int stop(boolean byDeadline) {
        List<Task<R>> cancelledNow = stopBeforeCallbacks(byDeadline);
        completeCancelled(cancelledNow);
        return cancelledNow.size();
    }

    /** The cancelled tasks' own futures, whose callbacks run here: last, after every interrupt. */
    private static <R> void completeCancelled(List<Task<R>> cancelledNow) {
        for (Task<R> t : cancelledNow) {
            t.done.cancel(false);
        }
    }

    /**
     * stop() but for completing the cancelled tasks' futures (completeCancelled): marks the group
     * stopped and every unfinished task cancelled, ends the submits' waits, cancels the pool's
     * futures; returns the tasks it cancelled.
     */
    private List<Task<R>> stopBeforeCallbacks(boolean byDeadline) {
        // Every unfinished task is marked cancelled under the lock first, and only then are the
        // pool's futures cancelled: cancelling one by one let a worker freed by an interrupt run
        // the next queued task before that one was marked.
        List<Task<R>> cancelledNow = new ArrayList<>();
        lock.lock();
        try {
            if (byDeadline && !stopped && pending > 0) {
                timedOut = true; // not for a group the user or fail-fast stopped first
            }
            if (byDeadline && !stopped) {
                stoppedByDeadline = true; // so a task submitted later, and cancelled, counts as timed out
            }
            stopped = true;
            for (Task<R> t : tasks) {
                if (t.state == PENDING && finishLocked(t, CANCELLED, null, null, true)) {
                    cancelledNow.add(t);
                }
            }
            for (Invocations.Deadline wait : waiting) {
                wait.stopNow(); // a submit waiting for a worker gives up: its task is cancelled
            }
        } finally {
            lock.unlock();
        }
        // Queued tasks' futures first, running ones after: interrupting a running task first would
        // free its worker to pick up (and the pool to count as run) a future not yet cancelled.
        // The tasks' own futures last: their callbacks run here, and one that blocked held up
        // the interrupts (get() and await() read the state, so they are not held up).
        List<Task<R>> running = new ArrayList<>();
        for (Task<R> t : cancelledNow) {
            if (t.runner == null) {
                t.cancelPoolFuture();
            } else {
                running.add(t);
            }
        }
        for (Task<R> t : running) {
            t.cancelPoolFuture();
        }
        return cancelledNow;
    }

    /** Moves the task to its terminal state, once; false if it already had one. */
    private boolean finish(Task<R> t, int state, R value, Throwable error) {
        List<Task<R>> cancelledNow = end(t, state, value, error, true);
        if (cancelledNow == null) {
            return false;
        }
        // The task's own future first, then those of the tasks its failure cancelled: a callback
        // that waits for it, or takes the first of them to end (anyOf), sees the failure, not a
        // sibling's cancel (helper-173).
        t.completeFromState(t.done);
        completeCancelled(cancelledNow);
        return true;
    }

    /**
     * finish() but for completing futures, which its caller does once it has cancelled what it
     * must: the callbacks run there, and one of the failed task's that waits for the group (or
     * blocks) must find it stopped and the others cancelled and interrupted (helper-167: fail-fast
     * stopped the group only after them). {@code interrupt}: for a cancel, whether a running task
     * may be interrupted.
     * @return the tasks a fail-fast failure cancelled, whose futures the caller completes after
     *         the task's own; null if the task had ended already
     */
    private List<Task<R>> end(Task<R> t, int state, R value, Throwable error, boolean interrupt) {
        boolean failFastNow;
        lock.lock();
        try {
            if (!finishLocked(t, state, value, error, interrupt)) {
                return null;
            }
            failFastNow = state == FAILED && firstFailure == t && failFast && !stopped;
        } finally {
            lock.unlock();
        }
        return failFastNow ? stopBeforeCallbacks(false) : List.of();
    }

    /**
     * The state change and counts of finish(), under the lock; false if the task had already ended.
     * {@code interrupt}: for a cancel, whether a running task may be interrupted, kept (before the
     * state, which publishes it) for whoever cancels the pool's future: this caller, or submit()
     * if it gets that future only after the cancel. Never the task that cancels itself or its group.
     */
    private boolean finishLocked(Task<R> t, int state, R value, Throwable error, boolean interrupt) {
        if (t.state != PENDING) {
            return false;
        }
        t.interruptOnCancel = interrupt && t.runner != Thread.currentThread();
        t.value = value;
        t.error = error;
        t.work = null; // its closure may hold the task's data, and the group keeps the handle
        t.state = state;
        pending--;
        if (pending == 0 && deadlineTimer != null) {
            deadlineTimer.cancel(false);
            deadlineTimer = null;
        }
        completed.add(t);
        switch (state) {
            case SUCCEEDED -> succeeded++;
            case FAILED -> {
                failed++;
                if (firstFailure == null) {
                    firstFailure = t;
                }
            }
            default -> {
                cancelled++;
                if (stoppedByDeadline) {
                    timedOut = true;
                }
            }
        }
        changed.signalAll();
        return true;
    }

    /**
     * A task that receives its own handle (go-playground's {@code WorkFunc}).
     * @param <R> the result type
     */
    @FunctionalInterface
    public interface Work<R> {
        /**
         * Runs the task.
         * @param self the task's own handle, to cancel itself or check whether it was cancelled
         * @return the result
         * @throws Exception if the task fails; it becomes the task's error
         */
        R call(Task<R> self) throws Exception;
    }

    /**
     * The counts of a group at one moment; {@code submitted == pending + succeeded + failed + cancelled}.
     * @param submitted every task submitted
     * @param pending   tasks not finished yet (queued or running)
     * @param succeeded tasks that returned a value
     * @param failed    tasks that threw, or that the pool refused
     * @param cancelled tasks cancelled before they finished
     */
    public record Counts(int submitted, int pending, int succeeded, int failed, int cancelled) {
    }

    /**
     * The handle of one task of a {@link TaskGroup} (go-playground's {@code WorkUnit}).
     *
     * <p>A task ends exactly once: it succeeds (it has a {@link #value()}), fails (it has an
     * {@link #error()}) or is cancelled. {@link #get()} follows the {@link Future} contract.
     *
     * @param <R> the result type
     */
    public static final class Task<R> implements Future<R> {
        private final TaskGroup<R> group;
        private final int index;
        private Work<R> work; // cleared when the task ends (under the group's lock, before state)
        private final CompletableFuture<R> done = new CompletableFuture<>();
        private volatile Future<?> poolFuture;
        /** Its submit's wait for a worker, while the submit may still wait (guarded by the group's lock). */
        private Invocations.Deadline wait;
        private volatile Thread runner;
        /** Whether cancelling the pool's future may interrupt the task (set by the cancel, see finishLocked). */
        private volatile boolean interruptOnCancel;
        private volatile int state;   // written under the group's lock, after value and error
        private R value;
        private Throwable error;

        Task(TaskGroup<R> group, int index, Work<R> work) {
            this.group = group;
            this.index = index;
            this.work = work;
        }

        R runOnWorker() throws Exception {
            if (state != PENDING) {
                return notRun();
            }
            Work<R> w = work; // read before state, which the end writes after clearing it
            runner = Thread.currentThread();
            try {
                if (state != PENDING || w == null) {
                    return notRun();
                }
                R v = call(w);
                group.finish(this, SUCCEEDED, v, null);
                return v;
            } catch (Throwable t) {
                group.finish(this, FAILED, null, t);
                throw t;
            } finally {
                runner = null;
            }
        }

        /**
         * A task that ended before a worker got to it (cancelled between the group's state change
         * and the cancel of the pool's future): the worker counts it as cancelled, not completed
         * (if submit() has handed over the pool's future by then).
         */
        private R notRun() {
            Future<?> f = poolFuture;
            if (state == CANCELLED && f instanceof WorkerPool.PoolFuture) {
                // This run is that future's (it wraps runOnWorker): cancelled now, PoolFuture.run
                // tells the worker running it. Not Worker.CURRENT directly: a task run inline in
                // another pool's task (CallerRunsPolicy) would mark that one.
                f.cancel(false);
            }
            return null;
        }

        /**
         * Runs the work marked as this thread's task, and only the work: finishing completes the
         * task's futures, whose callbacks run here and may wait for the task, now done.
         */
        private R call(Work<R> w) throws Exception {
            Task<?> outer = RUNNING.get();
            RUNNING.set(this);
            try {
                return w.call(this);
            } finally {
                if (outer == null) {
                    RUNNING.remove();
                } else {
                    RUNNING.set(outer);
                }
            }
        }

        /** Refuses a wait for this task from its own body: it would wait for itself. */
        private void notFromItself(String call) {
            if (RUNNING.get() == this) {
                throw new IllegalStateException(call + " of task " + index + " called from the task itself would wait "
                        + "for itself");
            }
        }

        /** Returns the task's position in submission order, from 0. */
        public int index() {
            return index;
        }

        /** Returns the task's result if it succeeded, else null; does not wait. */
        public R value() {
            return state == SUCCEEDED ? value : null;
        }

        /**
         * Returns what the task threw (with its stack trace), or the rejection if the pool refused
         * it, if it failed; else null. Does not wait.
         */
        public Throwable error() {
            return state == FAILED ? error : null;
        }

        /** Whether the task failed. */
        public boolean isFailed() {
            return state == FAILED;
        }

        /** Whether the task succeeded. */
        public boolean isSucceeded() {
            return state == SUCCEEDED;
        }

        /**
         * Cancels the task if it has not finished; a running task is interrupted unless it is
         * the caller (a task cancelling itself).
         * @return true if this call cancelled it
         */
        public boolean cancel() {
            return cancel(true);
        }

        /**
         * Cancels the task if it has not finished.
         * @param mayInterruptIfRunning whether to interrupt the task if it is running (never
         *        when a task cancels itself)
         * @return true if this call cancelled it
         */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (group.end(this, CANCELLED, null, null, mayInterruptIfRunning) == null) {
                return false; // a cancel stops no group: nothing else to complete
            }
            group.stopWaitOf(this);
            cancelPoolFuture();
            completeFromState(done); // last: a callback that waits for the task's body to exit
            return true;
        }

        /** Cancels the pool's future, interrupting the task as the cancel asked (interruptOnCancel). */
        void cancelPoolFuture() {
            Future<?> f = poolFuture;
            if (f != null) {
                f.cancel(interruptOnCancel);
            }
        }

        @Override
        public boolean isCancelled() {
            return state == CANCELLED;
        }

        @Override
        public boolean isDone() {
            return state != PENDING;
        }

        /**
         * Waits until the task is done (go-playground's {@code Wait}).
         * @return this handle
         * @throws InterruptedException if interrupted while waiting
         * @throws IllegalStateException if called from the task itself: it would wait for ever
         */
        public Task<R> await() throws InterruptedException {
            notFromItself("await()");
            awaitDone();
            return this;
        }

        /**
         * Waits at most {@code timeout} for the task to be done.
         * @param timeout longest to wait
         * @return whether it is done
         * @throws InterruptedException if interrupted while waiting
         * @throws IllegalStateException if called from the task itself: it would wait until the timeout
         */
        public boolean await(Duration timeout) throws InterruptedException {
            notFromItself("await(Duration)");
            try {
                awaitDone(Math.max(0L, PoolConfig.saturatedNanos(timeout)));
            } catch (TimeoutException e) {
                return false;
            }
            return true;
        }

        /**
         * {@inheritDoc}
         * @throws IllegalStateException if called from the task itself: it would wait for ever
         */
        @Override
        public R get() throws InterruptedException, ExecutionException {
            notFromItself("get()");
            awaitDone();
            return outcome();
        }

        /**
         * {@inheritDoc}
         * @throws IllegalStateException if called from the task itself: it would wait until the timeout
         */
        @Override
        public R get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            notFromItself("get(timeout)");
            awaitDone(Math.max(0L, unit.toNanos(timeout)));
            return outcome();
        }

        /** awaitDone(-1): with no time limit. */
        private void awaitDone() throws InterruptedException {
            try {
                awaitDone(-1L);
            } catch (TimeoutException e) {
                throw new AssertionError(e); // no time limit
            }
        }

        /**
         * Waits until the task is done, however it ended (its outcome is read from its state).
         * @param nanos longest to wait, or -1 for no limit
         * @throws TimeoutException if it is not done in time
         */
        private void awaitDone(long nanos) throws InterruptedException, TimeoutException {
            group.awaitEnd(this, nanos);
        }

        /** The Future contract from the task's state: its value, its error in an ExecutionException, or a cancel. */
        private R outcome() throws ExecutionException {
            switch (state) {
                case SUCCEEDED:
                    return value;
                case FAILED:
                    throw new ExecutionException(describe(error), error);
                default:
                    throw new CancellationException("task " + index + " of the group was cancelled");
            }
        }

        /**
         * Returns a {@link CompletableFuture} that completes with the task: normally with its value,
         * exceptionally with its error (a {@link CancellationException} or {@link CompletionException}
         * the task threw comes wrapped in a {@code CompletionException}, so that it reads as a
         * failure), or cancelled. Completing or cancelling the returned future does not affect the
         * task; cancel through this handle. Its callbacks run on the thread that ends the task: the
         * worker, the canceller, or, for the deadline, a thread of this library's own (or the
         * thread that finds the deadline passed first: a submit, awaitAll(), completions(),
         * isStopped()).
         */
        public CompletableFuture<R> toCompletableFuture() {
            // From the state, not done.copy(): the copy of a cancelled future is not cancelled, and
            // `done` completes just after the state changes (outside the lock), so a task that
            // isDone() read as incomplete for a moment.
            CompletableFuture<R> f = new CompletableFuture<>();
            if (state != PENDING) {
                completeFromState(f);
            } else {
                done.whenComplete((v, e) -> completeFromState(f));
            }
            return f;
        }

        /** Completes {@code f} as the task ended (its state is set). */
        private void completeFromState(CompletableFuture<R> f) {
            switch (state) {
                case SUCCEEDED -> f.complete(value);
                // A CancellationException or CompletionException the task threw would otherwise read
                // as a cancel, or be unwrapped, by the CompletableFuture: wrapped, get() and join()
                // report it as the task's failure, as for any other exception.
                case FAILED -> f.completeExceptionally(
                        (error instanceof CancellationException || error instanceof CompletionException)
                                ? new CompletionException(describe(error), error) : error);
                default -> f.cancel(false);
            }
        }

        @Override
        public String toString() {
            String s = switch (state) {
                case PENDING -> "PENDING";
                case SUCCEEDED -> "SUCCEEDED";
                case FAILED -> "FAILED: " + describe(error);
                default -> "CANCELLED";
            };
            return "Task[" + index + ", " + s + "]";
        }
    }

    /** Builds a {@link TaskGroup}. */
    public static final class Builder {
        private final ExecutorService executor;
        private boolean failFast;
        private Duration deadline;

        Builder(ExecutorService executor) {
            this.executor = executor;
        }

        /**
         * Whether the first failure cancels every other unfinished task and every later
         * submission, and is the failure {@link TaskGroup#awaitAll()} reports; default false.
         */
        public Builder failFast(boolean failFast) {
            this.failFast = failFast;
            return this;
        }

        /**
         * Longest the group may take, counted from {@link #build()}: then every unfinished task is
         * cancelled, later submissions are cancelled, and {@link TaskGroup#awaitAll()} throws
         * {@link TimeoutException}. A timer thread of this library hands each expiry to a thread
         * of its own, so neither a busy pool nor a busy common pool holds the deadline up, and the
         * callbacks the cancels run (those of {@link Task#toCompletableFuture()}) hold up no other
         * group's deadline; {@code awaitAll()} and {@code completions()} wait no longer than the
         * deadline either way. Default: none.
         * @throws IllegalArgumentException if {@code deadline} is null, zero or negative
         */
        public Builder deadline(Duration deadline) {
            if (deadline == null || deadline.isNegative() || deadline.isZero()) {
                throw new IllegalArgumentException("deadline must be a positive duration, but was " + deadline);
            }
            this.deadline = deadline;
            return this;
        }

        /**
         * Builds the group; the deadline, if any, starts now.
         * @param <R> the tasks' result type
         * @return a new, empty group
         */
        public <R> TaskGroup<R> build() {
            return new TaskGroup<>(this);
        }
    }
}
