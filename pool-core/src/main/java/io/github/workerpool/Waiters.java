package io.github.workerpool;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * The callers waiting in a full {@link WorkerPool} for a worker, first come first served (ants'
 * blocking submit, bounded by {@code maxBlockingTasks} and {@code blockingTimeout}).
 */
final class Waiters {

    /*
     * The deque is guarded by the pool's lock; `count` mirrors its size for lock-free reads
     * (waiting(), and workers deciding whether to look for a waiter before going idle).
     *
     * A Waiter's outcome is decided once, under the pool's lock, by whoever removes it from the
     * deque: a worker (ACCEPTED: the worker runs the task, or the queue engine queued it), a
     * waiting caller's look for room (ACCEPTED, queued: the queue engine's), a shutdown (CLOSED),
     * or the caller itself (it gave up: timeout or interrupt, and is rejected). A caller that
     * finds itself already removed takes the outcome it was given, so a task is never both run
     * and rejected.
     *
     * The caller spins for the engine's waiterSpinNanos, then parks; a worker unparks it only if it
     * announced that it parks (`parked`, Dekker with `status`, as Worker's mailbox). The first
     * waiter of the queue engine also wakes to look for room itself (Engine.waiterRecheckNanos),
     * and a caller that gives up looks once more: before its timeout rejects it (for itself too),
     * after an interrupt removed it (for the others). Its deadline
     * is its arrival plus the pool's live blockingTimeout, read afresh on every wake-up, so a
     * reconfigured timeout applies to callers already waiting: reconfigure writes the timeout and
     * then nudges the waiters it sees parked; a caller re-reads the timeout after it announces
     * that it parks (Dekker again), so a change that lands just then is never missed.
     */

    /**
     * Whether {@code e} is the rejection of a caller interrupted while it waited (its cause an
     * InterruptedException), not an overload met with the interrupt status already set.
     */
    static boolean interruptedWait(Throwable e) {
        return e instanceof PoolOverloadException && e.getCause() instanceof InterruptedException;
    }

    static final int WAITING = 0;
    static final int ACCEPTED = 1;
    static final int CLOSED = 2;
    /** The thread factory failed and no live worker is left to serve the caller: refused, naming it. */
    static final int NO_WORKER = 3;

    private final ArrayDeque<Waiter> deque = new ArrayDeque<>();
    private volatile int count;

    /** Callers waiting now; exact under the lock, a recent value without it. */
    int count() {
        return count;
    }

    /** Under the pool's lock. */
    boolean isEmpty() {
        return deque.isEmpty();
    }

    /** Under the pool's lock. */
    void add(Waiter waiter) {
        deque.addLast(waiter);
        count = deque.size();
    }

    /** Removes the waiter if still there; under the pool's lock. */
    boolean remove(Waiter waiter) {
        if (deque.remove(waiter)) {
            count = deque.size();
            return true;
        }
        return false;
    }

    /** Removes the first waiter, lets it go as ACCEPTED and returns it; null if none. Under the pool's lock. */
    Waiter acceptFirst() {
        Waiter waiter = deque.pollFirst();
        if (waiter == null) {
            return null;
        }
        count = deque.size();
        waiter.complete(ACCEPTED);
        return waiter;
    }

    /**
     * Removes the first waiter, puts its task into {@code sink} (the queue engine's queue, on the
     * caller's stripe) and lets it go as ACCEPTED; false if none. Under the pool's lock.
     */
    boolean acceptFirstInto(Engine.TaskSink sink) {
        Waiter waiter = deque.pollFirst();
        if (waiter == null) {
            return false;
        }
        count = deque.size();
        sink.put(waiter.task, waiter.stripe);
        waiter.complete(ACCEPTED);
        return true;
    }

    /** Lets every waiter go as CLOSED (they are rejected); under the pool's lock. */
    void closeAll() {
        completeAll(CLOSED);
    }

    /** Lets every waiter go with the outcome; under the pool's lock. */
    void completeAll(int outcome) {
        for (Waiter waiter; (waiter = deque.pollFirst()) != null; ) {
            waiter.complete(outcome);
        }
        count = 0;
    }

    /** Wakes every waiter to look at its deadline again; under the pool's lock. */
    void nudgeAll() {
        for (Waiter waiter : deque) {
            if (waiter.parked) {
                LockSupport.unpark(waiter.thread);
            }
        }
    }

    /**
     * The longest gap between a waiting caller's own looks for room (Engine.waiterRecheckNanos),
     * after which it looks no more: from a first gap of 1 ms, seven looks over 127 ms.
     */
    static final long MAX_RECHECK_NANOS = 64_000_000L;

    /** A caller waiting in execute for a free worker. */
    static final class Waiter {
        final WorkerPool pool;
        final Object task;
        final Thread thread;
        final long arrival;
        final int stripe; // queue engine: the caller's stripe, where a worker queues the task for it
        final Invocations.Deadline until; // the caller's timed invokeAll/invokeAny or task group's, or null
        volatile int status = WAITING;
        volatile boolean parked;

        Waiter(WorkerPool pool, Object task, long arrival, int stripe) {
            this.pool = pool;
            this.task = task;
            this.thread = Thread.currentThread();
            this.arrival = arrival;
            this.stripe = stripe;
            this.until = Invocations.deadline(pool);
        }

        /** Sets the outcome; under the pool's lock, after removing this waiter. */
        void complete(int outcome) {
            status = outcome;
            if (parked) {
                LockSupport.unpark(thread);
            }
        }

        /**
         * Waits until the task is let in (a worker takes it, or it is queued); returns normally
         * if it was. With {@code recheck} > 0 the caller also looks for room itself, at times
         * set by the clock (wake-ups for other reasons do not use them up): {@code recheck} after
         * it first parks, then after gaps twice as long each, up to MAX_RECHECK_NANOS.
         * @throws PoolOverloadException on timeout or interrupt (the interrupt status is kept)
         * @throws PoolClosedException if the pool was shut down meanwhile
         */
        void await(long spin, long recheck) {
            long spinEnd = System.nanoTime() + spin;
            boolean interrupted = false;
            boolean invokeTimedOut = false;
            long timeout = -1;
            long gap = recheck;  // until the next own look; 0 when no look is left
            long lookAt = 0L;    // when it is, once the caller parks
            boolean scheduled = false;
            while (status == WAITING) {
                long now = System.nanoTime();
                if (now - spinEnd < 0) {
                    Thread.onSpinWait();
                    continue;
                }
                if (gap > 0) {
                    if (!scheduled) {
                        scheduled = true;
                        lookAt = now + gap;
                    } else if (now - lookAt >= 0) {
                        pool.admitWaiters(); // every waiter that fits, from the first: maybe this one
                        gap = gap < MAX_RECHECK_NANOS ? gap << 1 : 0L; // then workers alone
                        lookAt = now + gap;
                        continue;
                    }
                }
                timeout = pool.blockingTimeoutNanos();
                long deadline = arrival + timeout;
                if (timeout >= 0 && now - deadline >= 0) {
                    break;
                }
                if (until != null && now - until.nanos() >= 0) {
                    invokeTimedOut = true;
                    break;
                }
                long wait = gap > 0 ? lookAt - now : Long.MAX_VALUE;
                if (timeout >= 0) {
                    wait = Math.min(wait, deadline - now);
                }
                if (until != null) {
                    wait = Math.min(wait, until.nanos() - now);
                }
                parked = true;
                // Re-read the timeout after announcing the park: reconfigure writes it first and
                // then nudges the parked waiters, so either it sees `parked` or this sees its value.
                if (status == WAITING && pool.blockingTimeoutNanos() == timeout) {
                    if (wait == Long.MAX_VALUE) {
                        LockSupport.park(this);
                    } else {
                        LockSupport.parkNanos(this, wait);
                    }
                }
                parked = false;
                if (Thread.interrupted()) {
                    interrupted = true;
                    break;
                }
            }
            int outcome = status;
            if (outcome == WAITING) {
                pool.lock.lock();
                try {
                    if (!interrupted) {
                        pool.engine().admitWaitersLocked(); // a last look for room before giving up
                    }
                    if (pool.waiters.remove(this)) {
                        if (interrupted) {
                            pool.engine().admitWaitersLocked(); // its look, for the others (it may have been the first)
                            Thread.currentThread().interrupt();
                            PoolOverloadException refused = pool.rejectOverload("pool '" + pool.name()
                                    + "': interrupted while waiting for a free worker");
                            // Tells this rejection from an overload met with the status already set
                            // (see interruptedWait).
                            refused.initCause(new InterruptedException("interrupted while waiting for a free worker"));
                            throw refused;
                        }
                        if (invokeTimedOut) {
                            boolean withdrawn = until.withdraws(); // read once: a group may stop it meanwhile
                            String why = "pool '" + pool.name() + "' had no free worker before " + until.what(withdrawn);
                            throw withdrawn ? pool.withdrawn(why) : pool.rejectOverload(why);
                        }
                        throw pool.rejectOverload("pool '" + pool.name() + "' had no free worker within "
                                + Duration.ofNanos(timeout) + " (blockingTimeout)");
                    }
                    outcome = status; // completed just now, under the lock
                } finally {
                    pool.lock.unlock();
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (outcome == CLOSED) {
                throw pool.rejectClosed();
            }
            if (outcome == NO_WORKER) {
                throw pool.rejectNoWorker();
            }
        }
    }
}
