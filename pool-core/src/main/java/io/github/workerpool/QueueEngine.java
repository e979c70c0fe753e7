package io.github.workerpool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The queue engine (queueCapacity > 0): tasks go to a {@link TaskQueue} that workers poll, with
 * Go's scheduler as the model (spinning Ms, wakep).
 */
final class QueueEngine extends Engine {

    /*
     * Where a task goes (dispatch):
     *   1. a new worker, if none is idle or searching and workerCount < capacity (under the lock);
     *   2. the queue (unbounded, or while `queued` < queueCapacity). Workers poll it without a
     *      lock, so the per-task cost is one offer and one poll. It is striped (TaskQueue: a
     *      stripe per submitting thread, a home stripe per worker), so two producers do not
     *      contend on one tail. No worker is handed the task:
     *      - A worker that finds the queue empty becomes a *searcher* if fewer than
     *        maxSearching (CPUs / 4, at least 1) are: it spins on the queue for the pool's
     *        spinnerNanos, then parks on the idle structure; if its bounded queue was found full
     *        within the last millisecond, between the spin and the park it yields its CPU for up
     *        to spinNanos, looking after each yield (yieldForQueue). `searching` counts
     *        searchers and workers woken to search that are not yet running.
     *      - A producer wakes a worker only if `searching` is 0 (and a worker is idle, or the
     *        pool is below capacity): the CAS 0 -> 1 in wakeSearcher makes it one wake at a
     *        time, and while the woken worker gets its CPU (~30 us) nobody wakes another.
     *      - A searcher that takes a task stops searching; if it was the last one and tasks
     *        remain, it wakes the next (so a backlog of long tasks brings workers up one after
     *        another, as LinkedBlockingQueue's take() signals the next taker).
     * Otherwise (a bounded queue is full) the pool's full path makes the caller wait or rejects;
     * a worker that takes a task from a full queue moves waiting callers' tasks in while they fit.
     *
     * Counting: a bounded queue needs its length for every admission, so it counts it, but not in
     * one counter that producers and workers both write (that line crossed the cores twice per
     * task: 0.54-0.69x ThreadPoolExecutor, BENCHMARKS.md "Eighth round"), and not on a line that
     * the other side reads per task (an AtomicLong that happened to be allocated next to the
     * workers' counter cost a producer and two workers 100 ns a task, "Ninth round"). Producers
     * count the slots they take in `admitted` (Slots: padded; a compare-and-set against the
     * capacity; producers write it, and whoever lets a waiting caller in: a worker, a waiting
     * caller's look, a registering caller, reconfigure); each worker
     * counts the tasks it takes in a cell of its own (`taken`, OfferCounts: a plain increment,
     * released, keyed by the worker's `cell`), and anything else that leaves the queue in
     * `takenOther`. queued = admitted - taken. A producer checks the capacity against
     * `takenSeen`, the last sum of what left that any producer read: it only grows, so the check
     * can only err towards full, and only then does the producer sum afresh. A sum read while
     * workers add to it can be low, never high, so admission never goes beyond the capacity
     * (beyond what the worker letting a waiting caller in adds, as before).
     * stats() reads what left before `admitted`, so queued can read high, never negative.
     * The submitted total: what enters a bounded queue is counted by `admitted` alone (no
     * second counter on the producer's path); the pool's `submitted` counter takes what goes
     * elsewhere (a new worker, the full path), and `admittedCounted` the slots taken for tasks
     * the pool had counted already (a waiting caller's), written before `admitted` and read after
     * it; `offeredCounted` likewise for an unbounded queue's offers of counted tasks. An unbounded
     * queue keeps no shared counter on the producer's side: each submitting thread
     * counts its offers in a cell of its own (OfferCounts: a plain increment, released, that no
     * other thread writes), the worker that polls a task counts it in its own `polled` field, and
     * a task taken out without a worker (shutdownNow, a producer losing a race with shutdown) in
     * `drained`. queued = offered - polled - drained, in time independent of the queue's length
     * (a scrape with 10^6 tasks queued used to walk them: ~5 ms per stats()). A counter that both
     * sides update per task moves a cache line across cores twice per task; a cell per producer
     * stays in its producer's cache. The pool's `submitted` counts only what did not enter the
     * queue; submittedTotal adds `offered` (or admitted - admittedCounted). The producer counts
     * before it offers and stats() reads polled (under the lock), then drained, then offered, so
     * a task in flight can make queued read high, never negative, and the total keeps its highest
     * value (submittedHigh), so it never goes down; both are exact when the pool is quiet.
     *
     * Races that must not lose a task:
     *   - A task is queued just as the last worker goes idle. The producer offers, then reads
     *     searching/idleCount/workerCount; the worker gives up its searching count, pushes itself
     *     on the idle structure, then reads the queue (WorkerPool.parkIdle). All volatile, so one
     *     of them sees the other (Dekker): the worker withdraws and polls, or the producer wakes
     *     it. Both sides look at the same thing, the queue itself.
     *   - shutdown()/shutdownNow() racing an offer: the producer re-reads the state after its
     *     offer and takes its task back out (rejecting it) if it can; if it cannot, a worker took
     *     it and runs it.
     *   - A worker leaves while tasks are queued and nobody else would poll: the pool starts a
     *     replacement (WorkerPool.workerExited, as ThreadPoolExecutor's processWorkerExit).
     *
     * A caller waiting for room in a bounded queue: it registers (under the lock) and sums `taken`
     * again; a worker counts its take, then reads waiting() and lets waiting callers in while
     * there is room. The take is counted with a release store and no full fence (the fence cost
     * the one-producer rows 7-11% of their throughput, BENCHMARKS.md "Twelfth round"), so the two
     * can miss each other when they coincide: the caller then waits with a free slot. That needs
     * the worker to read waiting() as 0, so the missed caller registered as the first waiter (or
     * right after it, within the same microseconds). The first waiter looks for room itself,
     * under the lock, 1, 3, 7, ... 127 ms after it first parks (waiterRecheckNanos, the gap
     * doubling up to Waiters.MAX_RECHECK_NANOS); a waiter that gives up (timeout, interrupt)
     * looks once more. A take it missed sat in its worker's store buffer, visible within
     * microseconds; besides, every later take and every worker that finds the queue empty or goes
     * idle (under the lock) sees the waiters. A look, a worker and a caller that gives up each let
     * in every waiter that fits, so a second waiter missed with the first is let in with it; if
     * the first leaves before its look, by the next of those events. Only the rare coincidence
     * pays a delay. A worker that finds the lock held does not queue on it unless it is the one
     * worker that claims the job for all (letWaitersIn); the others mark their takes, and the
     * claimer clears the marks under the lock before it looks, and reads them again once it has let
     * the claim go.
     */

    /** How recently the bounded queue must have been found full for a searcher whose spin ran out to yield before it parks. */
    static final long FULL_RECENT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final TaskQueue queue;
    private final boolean unbounded;
    private final Slots slots;                                       // bounded: the producers' side
    private final OfferCounts taken;                                 // bounded: tasks workers took, a cell each
    private final LongAdder takenOther;                              // bounded: tasks that left the queue otherwise
    private final BitSet cellsInUse;                                // bounded: workers' cells; guarded by the pool's lock
    private final LongAdder drained;                                 // unbounded: tasks taken out without a worker
    private final LongAdder offeredCounted;                          // unbounded: offers of tasks the pool had counted
    private long retiredPolled;                                      // unbounded; guarded by the pool's lock
    private final Admission admission;                                // bounded: one worker at a time lets waiting callers in
    private final AtomicLong submittedHigh = new AtomicLong();       // highest stats() total
    private final AtomicInteger searching = new AtomicInteger();
    private final int maxSearching;

    QueueEngine(WorkerPool pool, int capacity, boolean unbounded) {
        super(pool);
        this.queue = new TaskQueue(capacity, unbounded);
        this.unbounded = unbounded;
        this.drained = unbounded ? new LongAdder() : null;
        this.offeredCounted = unbounded ? new LongAdder() : null;
        this.slots = unbounded ? null : new Slots();
        // A cell per worker the pool is built for (producers sum them whenever the queue looks full);
        // workers beyond that, after a tune up, share the cells' LongAdder.
        this.taken = unbounded ? null : new OfferCounts(capacity < 0 ? OfferCounts.CELLS : capacity);
        this.cellsInUse = unbounded ? null : new BitSet();
        this.takenOther = unbounded ? null : new LongAdder();
        this.admission = unbounded ? null : new Admission();
        this.maxSearching = Math.max(1, Runtime.getRuntime().availableProcessors() / 4);
    }

    @Override
    boolean dispatch(Object work, boolean mayAwaitSpinner) {
        return place(work, false);
    }

    @Override
    boolean tryDispatch(Object work) {
        return place(work, true);
    }

    /**
     * Starts a worker for the task, or queues it. {@code trying} (tryWork's): the task counts
     * as submitted only once it is in, and a shutdown meanwhile refuses it counted as nothing
     * (the total may read low meanwhile, never high).
     */
    private boolean place(Object work, boolean trying) {
        WorkerPool p = pool;
        if (!unbounded && p.waiters.count() != 0) {
            // Callers wait for room: a newcomer lines up behind them on the full path (a room a
            // worker frees is theirs until it lets them in; see hasRoom).
            return false;
        }
        int c = p.capacityNow();
        // No hand-off to a spinner (searchers watch the queue) and no idle worker popped per task.
        if (p.idleCount == 0 && searching.get() == 0 && (c < 0 || p.workerCount < c)) {
            int started = startWorkerFor(work, trying); // a method of its own: place() stays small enough to inline
            if (started != QUEUE_IT) {
                return started == STARTED;
            }
        }
        return offerCounting(work, trying);
    }

    /** startWorkerFor's answers: the task is in (a new worker has it, or the queue); queue it; refuse it. */
    private static final int STARTED = 1;
    private static final int QUEUE_IT = 0;
    private static final int REFUSED = -1;

    /**
     * place()'s start of a new worker, where none is idle or searching and the pool is below
     * capacity. The task goes to the new worker, not into the queue: the pool's counter counts it,
     * once the worker has it (counting first and taking it back would let stats() latch the +1).
     * Unless tasks are queued (a burst that came while the last workers started, or while the
     * thread factory failed): then this one queues behind them, so that a thread's tasks keep
     * their order, and the offer wakes a worker for them (a new one: none is idle or searching).
     * If the queue is full, or no worker is alive, it starts a worker of its own after all, ahead
     * of them, rather than be refused with room for a worker. Only on this path, where a thread
     * starts anyway, is the queue looked at.
     */
    private int startWorkerFor(Object work, boolean trying) {
        WorkerPool p = pool;
        // Not with no live worker: the one the offer would wake may not start either (the thread
        // factory failing), and the task would wait there for a submit that may never come; as
        // below, it then starts a worker of its own or is refused, naming the factory.
        if (p.workerCount > 0 && !queue.isEmpty() && offerCounting(work, trying)) {
            return STARTED;
        }
        boolean added;
        try {
            added = p.addWorker(work, !trying);
        } catch (PoolClosedException closed) {
            if (!trying) {
                p.counters.submitted.increment(); // submitted and rejected
            }
            throw closed;
        }
        if (added) {
            p.counters.submitted.increment();
            return STARTED;
        }
        if (p.workerCount == 0) {
            // The thread factory failed and no worker is alive to take the task from the queue
            // later: the full path tries once more and refuses it, naming the factory (queued,
            // it waited for a later submit that might never come, and close() for it).
            return REFUSED;
        }
        return QUEUE_IT;
    }

    /** Queues the task if there is room, counted as place() counts it; false if the queue is full. */
    private boolean offerCounting(Object work, boolean trying) {
        // Trying: offered as counted by the pool (the queue does not count it), then counted here.
        if (!offer(work, trying, trying)) {
            return false;
        }
        if (trying) {
            pool.counters.submitted.increment();
        }
        return true;
    }

    @Override
    boolean hasRoom() {
        if (unbounded) {
            return true;
        }
        // Room a worker freed before it could let the waiting callers in is theirs, first come
        // first served: they go in first (the newcomer on this path waits behind them). Room seen
        // by a second count (a take landed after the first look's) is theirs too: they are let in
        // again before the newcomer may have what is left (helper-160: it took that room first;
        // and a newcomer that cannot wait was refused while there was room).
        admitWaitersLocked();
        pool.atSearchPoint(WorkerPool.SEARCH_ROOM_RECOUNT);
        if (!pool.waiters.isEmpty() && boundedQueued() < pool.queueCapacity) {
            admitWaitersLocked();
        }
        return pool.waiters.isEmpty() && boundedQueued() < pool.queueCapacity;
    }

    @Override
    boolean offer(Object task) {
        return offer(task, true, false);
    }

    /**
     * Queues the task if there is room; false if not. The queue counts what enters it as
     * submitted (a bounded queue in `admitted`, an unbounded one per producer), so a task the
     * pool counts itself ({@code counted}: a full-path caller's, counted already, or tryExecute's,
     * counted once it is in) is marked as such first: the total may read low meanwhile, never high.
     */
    private boolean offer(Object task, boolean counted, boolean trying) {
        WorkerPool p = pool;
        if (!unbounded) {
            if (!(counted ? reserveCountedSlot(p.queueCapacity) : reserveSlot(p.queueCapacity))) {
                return false;
            }
        } else if (counted) {
            // Counted by tryExecute or the full path, and the offer below counts it too: marked
            // first, so that a stats() between the two reads the total low, never high (a high
            // reading stays: submittedHigh).
            offeredCounted.increment();
        }
        queue.offer(task); // an unbounded queue counts it there, per producer
        if (p.state != WorkerPool.RUNNING) {
            if (queue.remove(task)) {
                uncount();
                p.tryTerminateUnlocked();
                throw trying ? p.closed() : p.rejectClosed(); // a try counts and tells nothing: see tryWork
            }
            return true; // a worker took it and runs it
        }
        // Wake a worker only if none is searching (spinning on the queue, or already woken to): a
        // searcher takes the task, or wakes the next one itself. Below capacity (a purge or expiry
        // retired workers after this caller found the pool full) a new worker is started instead.
        if (searching.get() == 0) {
            wakeSearcher();
        }
        return true;
    }

    /**
     * Takes a slot of a bounded queue of {@code capacity} for the calling producer; false if it is
     * full. Checks against the last `taken` seen first, and sums `taken` only when that says full.
     */
    private boolean reserveSlot(int capacity) {
        Slots s = slots;
        for (;;) {
            long a = s.admitted;
            if (a - s.takenSeen >= capacity) {
                long t = takenSum();
                if (t > s.takenSeen) {
                    s.takenSeen = t; // a racing older sum may still win: that only errs towards full
                }
                if (a - t >= capacity) {
                    s.markFull();
                    return false;
                }
            }
            if (Slots.ADMITTED.compareAndSet(s, a, a + 1)) {
                return true;
            }
        }
    }

    /**
     * {@link #reserveSlot} for a task the pool counts itself: marked in `admittedCounted` before
     * `admitted` moves (and unmarked if the queue is full), so the submitted total reads low
     * meanwhile, never high.
     */
    private boolean reserveCountedSlot(int capacity) {
        Slots.ADMITTED_COUNTED.getAndAdd(slots, 1L);
        if (reserveSlot(capacity)) {
            return true;
        }
        Slots.ADMITTED_COUNTED.getAndAdd(slots, -1L);
        return false;
    }

    /** Tasks that left a bounded queue: may read low while workers count, never high. */
    private long takenSum() {
        return takenOther.sum() + taken.sum();
    }

    /** A bounded queue's length: `taken` read first, so it can read high, never below the truth. */
    private long boundedQueued() {
        long t = takenSum();
        return slots.admitted - t;
    }

    /**
     * Wakes an idle worker as a searcher (or starts one, below capacity) unless some worker is
     * searching already or there is neither; the woken worker counts as searching from now on,
     * so while it wakes up (~30 us) nobody wakes another (Go's wakep()).
     */
    private void wakeSearcher() {
        WorkerPool p = pool;
        for (;;) {
            int c = p.capacityNow();
            if (!(p.idleCount > 0 || c < 0 || p.workerCount < c) || !searching.compareAndSet(0, 1)) {
                return; // nobody idle and no room for a new worker: the busy ones poll when done
            }
            Worker w;
            Worker fresh = null;
            boolean queueLookedEmpty = false;
            p.lock.lock();
            try {
                w = p.idle.pop();
                if (w != null) {
                    p.idleCount = p.idle.size();
                } else {
                    c = p.capacityNow(); // again, under the lock
                    if (p.state < WorkerPool.STOP && (c < 0 || p.workerCount < c)) {
                        if (queue.isEmpty()) {
                            queueLookedEmpty = true;
                        } else {
                            fresh = p.newWorkerLocked(null); // null if the thread factory failed
                        }
                    }
                }
            } finally {
                p.lock.unlock();
            }
            if (w != null) {
                w.searching = true;
                w.handOff(Worker.POLL);
                return;
            }
            if (fresh != null) {
                fresh.searching = true;
                if (p.start(fresh)) {
                    return;
                }
            }
            // Nobody woken (every worker busy, each polls when done; or a thread that could not be
            // made or started): the count goes back here. A producer that saw it meanwhile queued
            // its task and woke nobody, so the last count given up looks again, as stopSearching
            // does, if that can help: the queue looked empty (a worker that just finished took this
            // producer's own task) or a worker has gone idle since. Not on a full pool or a failing
            // factory alone: that would loop. Each further round needs a task or an idle worker
            // that came meanwhile.
            if (searching.decrementAndGet() != 0 || queue.isEmpty() || !(queueLookedEmpty || p.idleCount > 0)) {
                return;
            }
        }
    }

    /**
     * Accounts for a task that left the queue without being polled by a worker (shutdownNow, or
     * taken back by its producer); under the lock or not. An unbounded queue's task stays counted
     * as submitted by its offer.
     */
    private void uncount() {
        if (unbounded) {
            drained.increment();
        } else {
            takenOther.increment();
        }
    }

    /**
     * Gives up the worker's searching count. The last searcher to leave, with work still queued,
     * wakes an idle worker or, below capacity, starts one: producers started none while it
     * searched, and a queued task may be the one this worker's task waits for.
     */
    private void stopSearching(Worker w) {
        if (w.searching) {
            w.searching = false;
            if (searching.decrementAndGet() == 0 && !queue.isEmpty()) {
                wakeSearcher();
            }
        }
    }

    @Override
    Object poll(Worker w) {
        Object t = queue.poll(w);
        if (t == null) {
            return null;
        }
        if (unbounded) {
            w.addPolled();
        } else {
            // A plain release store, and no fence before the read of waiting() below: a caller
            // that registers as waiting just now and then sums `taken` may miss this take while
            // this read misses the caller (see "A caller waiting for room" in the notes).
            taken.increment(w.cell);
            if (pool.waiting() > 0) {
                letWaitersIn();
            }
        }
        stopSearching(w);
        return t;
    }

    /**
     * After a take while callers wait: lets every waiter that fits in. If the pool's lock is held,
     * one worker waits for it on behalf of all (it claims the job), and the others mark their takes
     * for it and go on to run their tasks: every worker waiting for the lock in turn queued them all
     * on it, and 10,000 virtual workers parked and unparked on it for each task taken while the
     * producer waited (BENCHMARKS.md, "Twenty-fourth round"). Uncontended it costs what it did:
     * one tryLock.
     */
    private void letWaitersIn() {
        ReentrantLock lock = pool.lock;
        if (lock.tryLock()) {
            try {
                admitWaitersLocked(); // every waiter that fits: a slot freed unseen may be free too
            } finally {
                lock.unlock();
            }
            return;
        }
        Admission a = admission;
        do {
            // The mark is set unconditionally, after the take (skipping it because it reads 1
            // would leave this take to a clear that came before it), then `claimed` is read: a
            // claimer's clear that comes after the mark sees this take (a volatile write
            // happens-before every later volatile read of the field), and a claim read as held is
            // let go after the mark, so the claimer reads the mark again then.
            a.pending = 1;
            if (a.claimed != 0 || !Admission.CLAIMED.compareAndSet(a, 0, 1)) {
                return; // the claimer clears the mark under the lock, or reads it after letting the claim go
            }
            lock.lock();
            try {
                do {
                    Admission.PENDING.getAndSet(a, 0); // reads the mark before the look: every take marked so far is seen
                    admitWaitersLocked();
                } while (a.pending != 0);
            } finally {
                a.claimed = 0;
                lock.unlock();
            }
        } while (a.pending != 0 && pool.waiting() > 0);
    }

    /**
     * Moves the first waiting caller's task into the queue if a slot is free; false if none waits
     * or none is free. Under the lock.
     */
    private boolean admitWaiterLocked() {
        // Take the slot the way producers do (a CAS against the capacity), so that a producer
        // racing for the same last slot cannot push the queue one past its capacity.
        if (pool.waiting() == 0) {
            return false;
        }
        if (!reserveCountedSlot(pool.queueCapacity)) { // the pool counted the waiting caller's task
            return false;
        }
        if (pool.acceptFirstWaiterLocked(queue::offer)) { // on the caller's stripe, so its tasks stay in order
            return true;
        }
        takenOther.increment(); // unreachable (waiting() is exact under the lock); never leak the slot
        return false;
    }

    @Override
    Object takeFirstLocked() {
        Object t = queue.poll();
        if (t != null) {
            uncount(); // the worker it goes to did not poll it
            admitWaitersLocked();
        }
        return t;
    }

    @Override
    void admitWaitersLocked() {
        if (!unbounded) {
            while (admitWaiterLocked()) {
                // one waiting caller per free slot
            }
        }
    }

    @Override
    Object awaitWork(Worker w) {
        WorkerPool p = pool;
        if (!w.searching && p.spinnerNanos > 0) {
            for (int s; (s = searching.get()) < maxSearching; ) {
                if (searching.compareAndSet(s, s + 1)) {
                    w.searching = true;
                    break;
                }
            }
        }
        if (w.searching) {
            if (p.spinnerNanos > 0 && (spinForQueue() || (fullJustNow() && yieldForQueue()))) {
                return Worker.POLL; // still searching: poll gives the count up once it has a task
            }
            // Give the count up before publishing as idle; parkIdle re-checks the queue after: a
            // producer that offers meanwhile sees either no searcher and an idle worker (and
            // wakes it), or is seen there (Dekker, as in the notes).
            w.searching = false;
            searching.decrementAndGet();
        }
        return p.parkIdle(w);
    }

    /**
     * Spins up to the pool's spinnerNanos until the queue has work or the pool needs a look (shut
     * down, capacity lowered, a caller waiting); false if nothing came. Never yields.
     */
    private boolean spinForQueue() {
        long deadline = 0L;
        long limit = pool.spinnerNanos;
        for (int i = 1; ; i++) {
            // Look at the queue only every few rounds: each look pulls the producer's cache line
            // over here, which slows every offer.
            if ((i & 7) == 0) {
                if (!queue.isEmpty() || pool.needsALook()) {
                    return true;
                }
                if ((i & 63) == 0) {
                    long now = System.nanoTime();
                    if (deadline == 0L) {
                        deadline = now + limit;
                    } else if (now - deadline >= 0) {
                        return false;
                    }
                }
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Whether this bounded queue refused a slot within the last FULL_RECENT_NANOS (to a producer,
     * or to a worker letting waiting callers in): the producers outrun the workers, so a queue
     * that runs dry now most likely ran dry because a producer lost its CPU (or is waking from
     * its wait for room), not for want of work. The mark may lag the last refusal by up to
     * FULL_MARK_EVERY, so a refusal 875 us to 1 ms ago may already read as not just now.
     */
    boolean fullJustNow() {
        return !unbounded && System.nanoTime() - slots.fullAt < FULL_RECENT_NANOS;
    }

    /**
     * After a spin that found nothing while the queue was full just now (fullJustNow), yields the
     * CPU for up to the pool's spinNanos; true as soon as the queue has work or the pool needs a
     * look (as the spin), false if the time ran out. A searcher that parked then would leave the
     * returning producer to wake a worker (an unpark, ~30 us until it runs), which then takes a
     * CPU from the producer, whose queue runs dry again. A yielding searcher gives its CPU to
     * whatever waits for one, the producer included, and keeps its searching count, so the
     * producer wakes nobody. Only then: yielding whenever the spin ran out held the next task
     * up by a time slice when the thread yielded to kept the CPU (BENCHMARKS.md, "Fourteenth
     * round", for the figures and the variants not kept). With a CPU to spare the yield returns
     * at once, but as a system call (about 0.6 us on the VM of BENCHMARKS.md), so this loop looks
     * at the queue less often than the spin does (every 8 onSpinWait, about 0.2 us there), and
     * needs no pause of its own.
     */
    private boolean yieldForQueue() {
        long deadline = System.nanoTime() + pool.spinNanos;
        do {
            Thread.yield();
            if (!queue.isEmpty() || pool.needsALook()) {
                return true;
            }
        } while (System.nanoTime() - deadline < 0);
        return false;
    }

    @Override
    boolean isEmpty() {
        return queue.isEmpty();
    }

    /**
     * Tasks in the queue. An unbounded queue derives it from the offers, polls and drains
     * counted (see the notes), which needs the live workers' poll counts, read under the lock.
     */
    @Override
    int queued() {
        if (!unbounded) {
            return (int) Math.max(0, Math.min(Integer.MAX_VALUE, boundedQueued()));
        }
        WorkerPool p = pool;
        long polled;
        p.lock.lock();
        try {
            polled = retiredPolled + p.polledByWorkersLocked();
        } finally {
            p.lock.unlock();
        }
        return queuedGivenPolled(polled);
    }

    @Override
    int queuedGivenPolled(long polled) {
        if (!unbounded) {
            return queued();
        }
        long d = drained.sum();   // after polled: see the notes on the order
        long n = queue.offered() - polled - d;
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, n));
    }

    @Override
    int queuedAtMost(int limit) {
        return Math.min(limit, queued());
    }

    @Override
    int drainTo(List<Object> out) {
        int n = 0;
        for (Object t; (t = queue.poll()) != null; n++) {
            uncount();
            out.add(t);
        }
        return n;
    }

    @Override
    int idleOutsideStructure() {
        return searching.get(); // searchers are idle workers that spin instead of parking
    }

    @Override
    Worker takeSpinner() {
        return null;
    }

    @Override
    int callerStripe() {
        return queue.stripeOfThisThread();
    }

    @Override
    void workerAdded(Worker w) {
        queue.adoptHome(w);
        if (!unbounded) {
            // The lowest cell no live worker holds, so that a replacement worker never lands on a
            // live one's cell (it would count through the shared fallback for as long as that
            // one lives); past the last cell, workers share the fallback.
            int cell = cellsInUse.nextClearBit(0);
            cellsInUse.set(cell);
            w.cell = cell;
        }
    }

    @Override
    void workerRemoved(Worker w) {
        queue.leaveHome(w);
        if (!unbounded) {
            cellsInUse.clear(w.cell);
        }
        retiredPolled += w.polled();
    }

    @Override
    void startsSearching(Worker w) {
        w.searching = true; // published to the worker by its thread's start
        searching.incrementAndGet();
    }

    @Override
    void tookWaiterTask(Worker w) {
        stopSearching(w);
    }

    @Override
    void workerStopping(Worker w) {
        stopSearching(w);
    }

    @Override
    long retiredPolledLocked() {
        return retiredPolled;
    }

    @Override
    long submittedTotal(long submittedCounter) {
        long entered;
        if (unbounded) {
            long o = queue.offered();                // before offeredCounted, which grows first
            entered = o - offeredCounted.sum();
        } else {
            long a = slots.admitted;                 // before admittedCounted, which grows first
            entered = a - slots.admittedCounted;
        }
        return submittedHigh.accumulateAndGet(submittedCounter + entered, Math::max);
    }

    /** When the first waiting caller first looks for room of its own (see the notes). */
    static final long RECHECK_NANOS = 1_000_000L;

    @Override
    long waiterRecheckNanos() {
        return unbounded ? 0L : RECHECK_NANOS; // an unbounded queue never has waiting callers
    }

    /**
     * None: a caller that finds the queue full parks at once. The queue ahead of it holds work
     * for the workers, so its wake-up (~30 us) costs them nothing, and it then finds room for a
     * run of cheap offers; a spinning caller took a CPU from the workers that free the slots
     * and went through the full path for every task (queue of 1,000, one producer, n = 2:
     * 1.39x the throughput without the spin, BENCHMARKS.md "Ninth round").
     */
    @Override
    long waiterSpinNanos() {
        return 0L;
    }

    @Override
    boolean countsOnSubmit() {
        return false;
    }

    @Override
    String fullNote() {
        return " and the queue is full (" + pool.queueCapacity + " tasks)";
    }

    @Override
    void quietProblems(List<String> problems) {
        if (searching.get() != 0) {
            problems.add("searching " + searching.get() + " != 0");
        }
        if (!unbounded && boundedQueued() != queue.size()) {
            problems.add("queued counter " + boundedQueued() + " != tasks in the queue " + queue.size());
        }
    }

    /**
     * A bounded queue's producer-side counts, on cache lines of their own: they are written per
     * task by the producers, and an {@code AtomicLong} allocated next to {@code taken} (whose
     * fields every worker reads per task) would move that line between the cores twice a task.
     * The full mark sits on a further line of its own: written by whoever is refused a slot, read
     * by a searcher whose spin ran out, neither of which should pull the counts' line or the
     * engine's fields (read by both sides per task) from the other cores.
     */
    abstract static class SlotsFields extends LinePad {
        volatile long admitted;  // slots producers took (and workers letting a waiting caller in)
        volatile long takenSeen; // a recent taken.sum(), only ever behind the truth
        volatile long admittedCounted; // slots taken for tasks the pool had counted (waiting callers'); before `admitted`
    }

    abstract static class SlotsPadMiddle extends SlotsFields {
        long m01, m02, m03, m04, m05, m06, m07, m08;
    }

    abstract static class SlotsFullMark extends SlotsPadMiddle {
        volatile long fullAt = System.nanoTime() - (1L << 62); // when a slot was last refused, or up to FULL_MARK_EVERY before
    }

    static final class Slots extends SlotsFullMark {
        static final VarHandle ADMITTED;
        static final VarHandle ADMITTED_COUNTED;

        /** How stale the full mark may get before a refusal writes it again: writes stay rare however many are refused. */
        static final long FULL_MARK_EVERY = FULL_RECENT_NANOS / 8;

        static {
            try {
                ADMITTED = MethodHandles.lookup().findVarHandle(SlotsFields.class, "admitted", long.class);
                ADMITTED_COUNTED = MethodHandles.lookup().findVarHandle(SlotsFields.class, "admittedCounted", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        long q01, q02, q03, q04, q05, q06, q07, q08;

        /** Notes that a slot was refused just now (see fullJustNow). */
        void markFull() {
            long now = System.nanoTime();
            if (now - fullAt >= FULL_MARK_EVERY) {
                fullAt = now;
            }
        }
    }

    /**
     * Who is letting waiting callers in (letWaitersIn), on a cache line of its own: written by the
     * workers for each task they take while a caller waits, which must not pull in the engine's
     * fields that every producer and worker reads per task.
     */
    abstract static class AdmissionFields extends LinePad {
        volatile int claimed; // 1: a worker holds or waits for the pool's lock to let waiting callers in
        volatile int pending; // 1: a take marked for that worker
    }

    static final class Admission extends AdmissionFields {
        static final VarHandle CLAIMED;
        static final VarHandle PENDING;

        static {
            try {
                CLAIMED = MethodHandles.lookup().findVarHandle(AdmissionFields.class, "claimed", int.class);
                PENDING = MethodHandles.lookup().findVarHandle(AdmissionFields.class, "pending", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        long q01, q02, q03, q04, q05, q06, q07, q08;
    }

    /** Who lets waiting callers in (null if unbounded), for tests. */
    Admission admissionForTest() {
        return admission;
    }

    /** The producers' side of a bounded queue (null if unbounded), for tests. */
    Slots slotsForTest() {
        return slots;
    }

    /** The queue, for tests. */
    TaskQueue queue() {
        return queue;
    }
}
