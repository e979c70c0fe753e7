package io.github.workerpool;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The hand-off engine (queueCapacity 0): each task goes straight to a worker, as in ants.
 */
final class HandOffEngine extends Engine {

    /*
     * Where a task goes (dispatch), in this order:
     *   1. the spinner: the one worker that just finished and spins (on its CPU, no yield) for
     *      the pool's spinnerNanos (Go's scheduler keeps a "spinning M" for the same reason).
     *      Claimed with one atomic swap; no lock, no unpark. This is the hot path. Spin-waits
     *      never yield: on a 2-core machine shared with other work, a yielding thread can stay
     *      off its CPU for a whole time slice (ms), holding back the very hand-off it waits for,
     *      while a parked thread is woken with priority. After the spin the worker parks idle.
     *   2. if some worker is busy, the caller leaves its task in a free `pending` slot and spins
     *      up to HANDOFF_SPIN_NANOS for a worker to take it (also when every worker is busy,
     *      before the pool's full path): a worker that finishes its task, with no Waiter ahead,
     *      takes a pending task before it would become the spinner, so it goes from one task to
     *      the next without waiting for a caller to see it (SynchronousQueue's data nodes do the
     *      same). For tiny tasks that takes well under a microsecond, where an unpark and wake-up
     *      costs about 30 us and a Waiter takes the lock on both sides. If a spinner appears
     *      meanwhile, the caller takes its task back and hands it to the spinner; if no worker
     *      took it in time, or the pool is no longer running, the caller takes it back and goes
     *      on. With every slot in use it spins for the spinner instead, as before slots.
     *   3. an idle worker popped from the pool's idle structure, under the lock; unparked.
     *   4. a new worker, if workerCount < capacity (under the lock).
     * Otherwise the pool's full path (WorkerPool.awaitWorker) makes the caller wait or rejects.
     *
     * Races that must not lose a task:
     *   - A pending task leaves its slot exactly once, by a compare-and-set from the task: to
     *     TAKEN by a worker (which runs it), or to null by its caller (which goes on with it).
     *     Only the caller empties a TAKEN slot, and callers only fill empty ones, so a slot is
     *     its caller's until it leaves: it never mistakes another caller's task for its own,
     *     even the same object (one Runnable submitted twice), and the worker's compare-and-set
     *     reads the caller's, so what the caller did before submitting happens-before the run.
     *   - A caller registers as a Waiter while a worker becomes the spinner: the caller
     *     re-checks the spinner after registering (takeSpinner in awaitWorker), the worker
     *     re-checks waitingCount after publishing itself (awaitWork). All volatile, so one of
     *     them sees the other (Dekker).
     *   - shutdown, purge and a shrinking tune write first and then take the spinner; the
     *     spinner re-checks state and capacity after publishing, so it sees them or is taken.
     *   - A task handed to a worker's slot always runs, even if shutdownNow() comes in between
     *     (with the interrupt flag set), because the producer already returned normally.
     */

    /**
     * How long a caller waits for a busy worker to take its pending task (or, with every slot in
     * use, to become the spinner) before unparking an idle one or waiting as the pool's full path says.
     */
    static final long HANDOFF_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(3);

    /** Pending slots in use at most: no more callers than CPUs can spin to any effect. */
    static final int PENDING_SLOTS = Math.min(8, Integer.highestOneBit(Runtime.getRuntime().availableProcessors()));

    /** Array elements between two pending slots, so that each sits on a cache line of its own. */
    private static final int STRIDE = 16;

    /** A slot's value once a worker has taken its task, until the caller sees it and empties the slot. */
    private static final Object TAKEN = new Object();

    private final AtomicReference<Worker> spinner = new AtomicReference<>();
    private final AtomicReferenceArray<Object> pending = new AtomicReferenceArray<>(PENDING_SLOTS * STRIDE);
    private int slots = PENDING_SLOTS; // fewer only through usePendingSlots, before the pool is used

    HandOffEngine(WorkerPool pool) {
        super(pool);
    }

    @Override
    boolean dispatch(Object work, boolean mayAwaitSpinner) {
        WorkerPool p = pool;
        Worker w;
        if (spinner.get() != null && (w = spinner.getAndSet(null)) != null) {
            w.handOff(work);
            return true;
        }
        int c = p.capacityNow();
        if (mayAwaitSpinner && p.spinNanos > 0 && (p.idleCount > 0 || (c >= 0 && p.workerCount >= c))
                && busyWorkers() > 0) {
            int slot = publish(work);
            if (slot >= 0) {
                if (awaitTaker(work, slot)) {
                    return true;
                }
            } else if ((w = awaitSpinner()) != null) {
                w.handOff(work);
                return true;
            }
        }
        if (p.idleCount > 0 && (w = p.popIdle()) != null) {
            w.handOff(work);
            return true;
        }
        // mayAwaitSpinner is false only for a try (tryDispatch), which counts no refusal.
        return (c < 0 || p.workerCount < c) && p.addWorker(work, mayAwaitSpinner);
    }

    /** Leaves the work in a free pending slot, starting at the caller's own; the slot's index, or -1 if all are in use. */
    private int publish(Object work) {
        AtomicReferenceArray<Object> a = pending;
        int n = slots;
        int start = TaskQueue.producerOfThisThread();
        for (int k = 0; k < n; k++) {
            int i = ((start + k) & (n - 1)) * STRIDE;
            if (a.get(i) == null && a.compareAndSet(i, null, work)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Spins up to HANDOFF_SPIN_NANOS for a worker to take the caller's pending work; true once
     * a worker has it (or a spinner that appeared was handed it), false once the caller has
     * taken it back (no taker in time, or the pool is no longer running).
     */
    private boolean awaitTaker(Object work, int slot) {
        AtomicReferenceArray<Object> a = pending;
        long deadline = 0L;
        for (int i = 1; ; i++) {
            if (a.get(slot) != work) {
                a.set(slot, null); // TAKEN: a worker has it; the slot is free again
                return true;
            }
            if (spinner.get() != null) {
                // A worker went spinning without seeing the task: take it back and hand it over.
                if (!takeBack(work, slot)) {
                    return true;
                }
                Worker w = spinner.getAndSet(null);
                if (w != null) {
                    w.handOff(work);
                    return true;
                }
                if (!a.compareAndSet(slot, null, work)) {
                    return false; // another caller has the slot now; the caller goes on with its work
                }
            }
            if ((i & 15) == 0) {
                long now = System.nanoTime();
                if (deadline == 0L) {
                    deadline = now + HANDOFF_SPIN_NANOS;
                } else if (now - deadline >= 0 || pool.state != WorkerPool.RUNNING) {
                    return !takeBack(work, slot);
                }
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Takes the caller's work back out of its slot: true if the caller has it again, false if a
     * worker took it first. Either way the slot is empty afterwards.
     */
    private boolean takeBack(Object work, int slot) {
        if (pending.compareAndSet(slot, work, null)) {
            return true;
        }
        pending.set(slot, null); // TAKEN: only its caller empties it
        return false;
    }

    /** Takes a pending task for the worker, looking at the slots from a different one each time; null if none. */
    private Object takePending(Worker w) {
        AtomicReferenceArray<Object> a = pending;
        int n = slots;
        int start = w.polls++; // a hand-off worker's own counter (the queue engine's poll count)
        for (int k = 0; k < n; k++) {
            int i = ((start + k) & (n - 1)) * STRIDE;
            Object o = a.get(i);
            if (o != null && o != TAKEN && a.compareAndSet(i, o, TAKEN)) {
                return o;
            }
        }
        return null;
    }

    /** Test seam: uses only the first {@code n} pending slots (a power of two, at most PENDING_SLOTS); before the pool is used. */
    void usePendingSlots(int n) {
        if (n < 1 || n > PENDING_SLOTS || Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("pending slots must be a power of two from 1 to " + PENDING_SLOTS + ", but was " + n);
        }
        slots = n;
    }

    /** Spins up to HANDOFF_SPIN_NANOS for a spinner to appear and claims it; null if none did. */
    private Worker awaitSpinner() {
        long deadline = 0L;
        for (int i = 1; ; i++) {
            if (spinner.get() != null) {
                Worker w = spinner.getAndSet(null);
                if (w != null) {
                    return w;
                }
            }
            if ((i & 15) == 0) {
                long now = System.nanoTime();
                if (deadline == 0L) {
                    deadline = now + HANDOFF_SPIN_NANOS;
                } else if (now - deadline >= 0) {
                    return null;
                }
            }
            Thread.onSpinWait();
        }
    }

    /** Workers that are neither idle nor the spinner, i.e. running a task. */
    private int busyWorkers() {
        return pool.workerCount - pool.idleCount - (spinner.get() != null ? 1 : 0);
    }

    @Override
    Object awaitWork(Worker w) {
        WorkerPool p = pool;
        int c = p.capacityNow();
        if (c >= 0 && p.workerCount > c) {
            return Worker.POLL; // a tune shrank the pool since the worker's check: it retires there, taking no caller's task
        }
        // The pool looked for Waiters (older callers) before this, without the lock: a caller
        // that registers just after that look may see a newcomer's pending task run first; it is
        // served at this worker's next look (helper-160: an order, not a loss).
        Object o = takePending(w);
        if (o != null) {
            return o;
        }
        if (p.spinNanos > 0 && spinner.get() == null && spinner.compareAndSet(null, w)) {
            // Re-checks after publishing (Dekker with callers, shutdown and a shrinking tune,
            // which each write first and then look at the spinner).
            if (p.needsALook() && spinner.compareAndSet(w, null)) {
                return Worker.POLL;
            }
            o = w.spinForSlot(p.spinnerNanos);
            if (o != null) {
                return o;
            }
            if (!spinner.compareAndSet(w, null)) {
                return w.awaitSlot(); // claimed just now: the hand-off is on its way
            }
        }
        return p.parkIdle(w);
    }

    @Override
    Worker takeSpinner() {
        return spinner.get() != null ? spinner.getAndSet(null) : null;
    }

    @Override
    int idleOutsideStructure() {
        return spinner.get() != null ? 1 : 0;
    }

    @Override
    boolean hasRoom() {
        return false;
    }

    @Override
    boolean offer(Object task) {
        return false;
    }

    @Override
    Object poll(Worker w) {
        return null;
    }

    @Override
    boolean isEmpty() {
        return true;
    }

    @Override
    Object takeFirstLocked() {
        return null; // no queue
    }

    @Override
    int queued() {
        return 0;
    }

    @Override
    int queuedGivenPolled(long polled) {
        return 0;
    }

    @Override
    int queuedAtMost(int limit) {
        return 0;
    }

    @Override
    int drainTo(List<Object> out) {
        return 0;
    }

    @Override
    int callerStripe() {
        return 0;
    }

    @Override
    void admitWaitersLocked() {
    }

    @Override
    void workerAdded(Worker w) {
    }

    @Override
    void workerRemoved(Worker w) {
    }

    @Override
    void startsSearching(Worker w) {
    }

    @Override
    void tookWaiterTask(Worker w) {
    }

    @Override
    void workerStopping(Worker w) {
    }

    @Override
    long retiredPolledLocked() {
        return 0;
    }

    @Override
    long submittedTotal(long submittedCounter) {
        return submittedCounter;
    }

    @Override
    long waiterRecheckNanos() {
        return 0L; // a worker that goes idle takes the first waiter under the lock: nothing to miss
    }

    @Override
    long waiterSpinNanos() {
        return pool.spinnerNanos; // a busy worker frees up, and takes the caller's task, within its task's time
    }

    @Override
    boolean countsOnSubmit() {
        return true;
    }

    @Override
    String fullNote() {
        return "";
    }

    @Override
    void quietProblems(List<String> problems) {
        if (pool.state == WorkerPool.TERMINATED && spinner.get() != null) {
            problems.add("terminated with a spinner " + spinner.get());
        }
        for (int k = 0; k < PENDING_SLOTS; k++) {
            Object o = pending.get(k * STRIDE);
            if (o != null) {
                problems.add("pending slot " + k + " not empty: " + (o == TAKEN ? "taken, not yet emptied by its caller" : o));
            }
        }
    }
}
