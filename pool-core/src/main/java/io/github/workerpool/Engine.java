package io.github.workerpool;

import java.util.List;

/**
 * How a {@link WorkerPool} moves work to its workers: {@link HandOffEngine} (no queue: each task
 * goes straight to a worker, as in ants) or {@link QueueEngine} (a queue that workers poll). The
 * pool keeps what both share: the lock, the state machine, the workers and their idle structure,
 * the waiting callers, capacity, tune and purge, and the worker loop; it asks its engine only the
 * questions below, so no code of the pool looks at which engine it has.
 *
 * <p>Each engine has its own notes block on how it dispatches and how its workers wait idle.
 */
abstract class Engine {

    final WorkerPool pool;

    Engine(WorkerPool pool) {
        this.pool = pool;
    }

    /**
     * Hands the work to a worker, or queues it, if the pool has room now; false if it is full
     * (the caller then waits or is rejected). May throw {@link PoolClosedException}.
     * @param mayAwaitSpinner whether the caller may spin briefly for a busy worker to free up
     */
    abstract boolean dispatch(Object work, boolean mayAwaitSpinner);

    /**
     * {@link #dispatch} without spinning for a busy worker, for WorkerPool.tryExecute. An engine
     * that counts submissions itself counts the task only once it is in: if the pool shuts down
     * meanwhile it throws {@link PoolClosedException}, counted neither as submitted nor as
     * rejected, and told to nobody (the caller tries elsewhere).
     */
    boolean tryDispatch(Object work) {
        return dispatch(work, false);
    }

    /**
     * Whether a task would fit in the queue now, after the callers already waiting (the full path
     * queues instead of waiting); under the pool's lock.
     */
    abstract boolean hasRoom();

    /**
     * Queues a task of the full path (one the pool has counted as submitted already, if it does
     * not count on submit) if there is room; false if not. May throw {@link PoolClosedException}.
     */
    abstract boolean offer(Object task);

    /** The worker's next queued task, or null; counts the task as taken. */
    abstract Object poll(Worker w);

    /** The worker's idle path once nothing is queued: returns work, {@link Worker#POLL} or {@link Worker#STOP}. */
    abstract Object awaitWork(Worker w);

    /** Whether nothing is queued. */
    abstract boolean isEmpty();

    /** Tasks queued now. */
    abstract int queued();

    /**
     * Tasks queued now, given the tasks workers have taken from an unbounded queue so far
     * ({@code polled}, read under the lock before this call); constant time.
     */
    abstract int queuedGivenPolled(long polled);

    /** Tasks queued now, counted only as far as {@code limit} (for callers that hold the lock). */
    abstract int queuedAtMost(int limit);

    /** Moves every queued task to {@code out}, unwrapped by the caller; under the pool's lock. Returns how many. */
    abstract int drainTo(List<Object> out);

    /** Idle workers that are not on the idle structure (a spinner, searchers). */
    abstract int idleOutsideStructure();

    /** Takes the worker that spins for a hand-off, if any, so that it can be sent elsewhere. */
    abstract Worker takeSpinner();

    /** The stripe a waiting caller's task goes to when a worker queues it for the caller. */
    abstract int callerStripe();

    /** How long a caller that waits for room spins before it parks. */
    abstract long waiterSpinNanos();

    /**
     * How long the first waiting caller parks at most before it first looks for room itself; the
     * gap doubles after every look, up to Waiters.MAX_RECHECK_NANOS (0: no such looks, it is woken).
     * For an engine whose workers may miss a caller that registers just as they free room
     * (QueueEngine counts a take without a full fence).
     */
    abstract long waiterRecheckNanos();

    /** Queues waiting callers' tasks while the queue has room; under the pool's lock. */
    abstract void admitWaitersLocked();

    /**
     * Takes the first queued task out for an idle worker that a caller popped (the worker gets it
     * instead of the caller's task), letting waiting callers into the room it frees; null if the
     * queue is empty. Under the lock.
     */
    abstract Object takeFirstLocked();

    /** A worker was created; under the pool's lock. */
    abstract void workerAdded(Worker w);

    /** A worker's thread left the pool; under the pool's lock. */
    abstract void workerRemoved(Worker w);

    /** Counts a new worker, not yet started, as one looking for queued work; under the pool's lock. */
    abstract void startsSearching(Worker w);

    /** The worker took a waiting caller's task instead of a queued one. */
    abstract void tookWaiterTask(Worker w);

    /** The worker stops running tasks (it exits): gives up whatever the engine counted it for. */
    abstract void workerStopping(Worker w);

    /** Tasks that exited workers took from an unbounded queue; under the pool's lock. */
    abstract long retiredPolledLocked();

    /**
     * The pool's submitted total from the counter the pool keeps: an engine may count some tasks
     * elsewhere than the counter (QueueEngine counts what enters its queue itself: a bounded
     * queue's admitted slots, an unbounded queue's offers per thread).
     */
    abstract long submittedTotal(long submittedCounter);

    /** Takes a waiting caller's task into the engine's queue, on the caller's stripe. */
    interface TaskSink {
        void put(Object task, int stripe);
    }

    /** Whether the pool counts a task as submitted on the submitting path (else the engine counts it). */
    abstract boolean countsOnSubmit();

    /** A note for rejection messages on what is full besides the workers ("" if nothing). */
    abstract String fullNote();

    /** What is wrong with the engine's state once the pool is quiet (for tests); adds to {@code problems}. */
    abstract void quietProblems(List<String> problems);
}
