package io.github.workerpool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker thread of a {@link WorkerPool} and its mailbox.
 *
 * <p>A worker is handed work through {@link #slot}: the hand-off writes the slot and unparks the
 * worker only if it announced that it parks ({@link #parked}). Both fields are volatile, so of
 * "hand-off writes slot, then reads parked" and "worker writes parked, then reads slot" at least
 * one side sees the other: a hand-off is never missed, and a worker that is still spinning is
 * never sent a (30 us) unpark.
 */
final class Worker implements Runnable {

    /** Slot value: leave the idle state and ask the pool what to do (poll the queue, retire...). */
    static final Object POLL = new Object();
    /** Slot value: this worker was retired (expiry, purge, tune down) and must exit. */
    static final Object STOP = new Object();

    private static final VarHandle COMPLETED;
    private static final VarHandle FAILED;
    private static final VarHandle CANCELLED;
    private static final VarHandle POLLED;
    private static final VarHandle START;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            COMPLETED = l.findVarHandle(Worker.class, "completed", long.class);
            FAILED = l.findVarHandle(Worker.class, "failed", long.class);
            CANCELLED = l.findVarHandle(Worker.class, "cancelled", long.class);
            POLLED = l.findVarHandle(Worker.class, "polled", long.class);
            START = l.findVarHandle(Worker.class, "start", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final WorkerPool pool;
    /** Volatile: a virtual worker's thread changes when it moves to a new one (WorkerPool.moveToNewThread). */
    volatile Thread thread;
    Object firstTask;

    /**
     * Nonzero while a thread is being started for this worker: FIRST_START from its construction,
     * then a number of its own before each move to a new thread; claimed once with a
     * compare-and-set, by that thread as it runs ({@link #run}) or by the starter whose
     * {@code Thread.start()} threw, which cannot tell whether the thread started after all. The
     * loser does nothing: a thread that started after all either is the worker, first task and
     * all, or returns at once (helper-170, 173: it ran the task a second time, or ran as a worker
     * the pool no longer counted). Numbered, so that a starter that reaches its catch late (the
     * worker ran and moved again meanwhile) cannot claim a later start (helper-175, 176).
     */
    private volatile int start = FIRST_START;

    /** {@link #start}: the first thread's start is pending. */
    static final int FIRST_START = 1;

    /** The last number given to a pending start; written by the thread that makes the next one. */
    private int starts = FIRST_START;

    /** Claims, for the thread that runs it, whichever start is pending; false if none is. */
    boolean claimStart() {
        int pending = this.start;
        return pending != 0 && START.compareAndSet(this, pending, 0);
    }

    /** Claims, for the starter whose Thread.start() threw, the start it made; false if its thread took it. */
    boolean claimStart(int pending) {
        return START.compareAndSet(this, pending, 0);
    }

    /**
     * A new thread is about to be started for this worker (a move); returns the number of its
     * start, never 0 nor one still pending.
     */
    int startPending() {
        int next = this.starts + 1;
        if (next == 0) {
            next = FIRST_START + 1;
        }
        this.starts = next;
        this.start = next;
        return next;
    }

    volatile Object slot;
    volatile boolean parked;

    /**
     * Queue mode: whether this worker counts in the pool's {@code searching} total (it spins on the
     * queue, or was woken to). Written by this worker, or by the waker that popped it from the idle
     * structure before handing it {@link #POLL} (the slot write publishes it).
     */
    boolean searching;

    /**
     * Queue mode: the stripe of the pool's queue this worker polls first, and its poll count;
     * hand-off mode counts its looks at the pending slots in `polls`. Written by this worker.
     */
    int home;
    int polls;
    /** Queue mode, bounded: this worker's cell for counting the tasks it takes; set under the pool's lock. */
    int cell;

    /** Tasks to run on this thread before moving to a new one (virtual workers; see WorkerPool.moveToNewThread). */
    int moveAfter = WorkerPool.NEVER_MOVE;

    /** The pool's purge count when this worker last looked for work (WorkerPool.nextTask). Written by this worker. */
    int purgesSeen;

    /** When the worker last went idle (pool clock); guarded by the pool's lock. */
    long idleSince;
    /** Whether this worker no longer counts toward the pool's worker count; guarded by the pool's lock. */
    boolean retired;

    // Written only by this worker's thread (release stores: no fence on the hot path), read by stats().
    private long completed;
    private long failed;
    private long cancelled;
    private long polled; // tasks taken from an unbounded queue (the pool derives its queue length)

    /**
     * The worker whose thread this is, for a PoolFuture to report its outcome to while it runs:
     * the pool may be running it inside a wrapper of someone else's (ExecutorCompletionService's,
     * and so invokeAny's), where the worker cannot see the future. Read only on the futures'
     * failure and cancelled paths.
     */
    static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

    // Written by a PoolFuture on this worker's thread while the worker runs a task (see CURRENT);
    // read and cleared by the worker after the task.
    Throwable futureFailed;
    boolean futureCancelled;

    Worker(WorkerPool pool, Object firstTask) {
        this.pool = pool;
        this.firstTask = firstTask;
    }

    @Override
    public void run() {
        if (thread == null) {
            // Started by a thread factory it was handed to, which then counted as failing (see
            // newWorkerLocked): no worker of the pool's. A factory's thread that runs it on an
            // inner thread of its own (against ThreadFactory's contract) still works, as before.
            return;
        }
        if (!claimStart()) {
            return; // its starter's Thread.start() threw, and the starter took that as not started
        }
        pool.runWorker(this);
    }

    /** Gives this worker a task (or {@link #POLL}); the caller must own the worker (popped it). */
    void handOff(Object work) {
        slot = work;
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    /** Spins up to {@code nanos} for a hand-off; returns it, or null if none came. */
    Object spinForSlot(long nanos) {
        long deadline = 0L;
        for (int i = 1; ; i++) {
            Object o = slot;
            if (o != null) {
                slot = null;
                return o;
            }
            if ((i & 63) == 0) {
                long now = System.nanoTime();
                if (deadline == 0L) {
                    deadline = now + nanos;
                } else if (now - deadline >= 0) {
                    return null;
                }
            }
            Thread.onSpinWait();
        }
    }

    /** Waits, parking, until handed something. */
    Object awaitSlot() {
        for (;;) {
            Object o = slot;
            if (o != null) {
                slot = null;
                return o;
            }
            parked = true;
            o = slot;
            if (o == null) {
                LockSupport.park(this);
                // An idle worker runs no task, so an interrupt here carries no meaning for one;
                // clearing it keeps the loop from spinning on a set flag.
                Thread.interrupted();
            }
            parked = false;
        }
    }

    void addCompleted() {
        COMPLETED.setRelease(this, completed + 1);
    }

    void addFailed() {
        FAILED.setRelease(this, failed + 1);
    }

    void addCancelled() {
        CANCELLED.setRelease(this, cancelled + 1);
    }

    void addPolled() {
        POLLED.setRelease(this, polled + 1);
    }

    long polled() {
        return (long) POLLED.getAcquire(this);
    }

    long completed() {
        return (long) COMPLETED.getAcquire(this);
    }

    long failed() {
        return (long) FAILED.getAcquire(this);
    }

    long cancelled() {
        return (long) CANCELLED.getAcquire(this);
    }
}
