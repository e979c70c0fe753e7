package io.github.workerpool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * A pool of reusable worker threads with a live-tunable capacity, modelled on Go's
 * <a href="https://github.com/panjf2000/ants">ants</a>.
 *
 * <p>Workers are started on demand, up to {@link #capacity()}, and reused: a worker that finishes
 * a task takes the next one from the queue, or from a caller waiting in {@code execute}, or waits
 * idle for one. Idle workers are reused most recently used first (so hot threads stay hot), or
 * longest idle first on a {@code preAlloc} pool, and stop once idle longer than the pool's
 * {@code expiry}. When every worker is busy and the capacity is reached, a task goes to the queue
 * if {@code queueCapacity} allows; otherwise a nonblocking pool rejects it at once with a
 * {@link PoolOverloadException}, and a blocking pool makes the caller wait, first come first
 * served, for a free worker, unless {@code maxBlockingTasks} callers already wait or
 * {@code blockingTimeout} runs out.
 *
 * <pre>{@code
 * try (WorkerPool pool = WorkerPool.builder().name("mail").capacity(20).build()) {
 *     pool.execute(() -> send(message));            // blocks while all 20 workers are busy
 *     Future<Receipt> receipt = pool.submit(() -> send(other));
 *     pool.tune(50);                                  // live: waiting callers get in at once
 * }                                                   // close(): finish queued work, then stop
 * }</pre>
 *
 * <p>A task that throws from {@link #execute} goes to the pool's panic handler and the worker
 * lives on; a task given to {@code submit} leaves its exception in the returned future.
 *
 * <p>Lifecycle follows {@link java.util.concurrent.ThreadPoolExecutor}: {@link #shutdown()}
 * (ants' {@link #release()}) stops intake and lets queued and running tasks finish,
 * {@link #shutdownNow()} returns every task that never started and interrupts running ones, and
 * {@link #reboot()} reopens a shut-down pool. Each accepted task either runs or is returned by
 * {@code shutdownNow()}; nothing is dropped.
 *
 * <p>Every option but the name, {@code preAlloc}, {@code virtualThreads}, the thread factory,
 * the panic handler and the task decorator can be changed while the pool runs, several at once,
 * with {@link #reconfigure}; a {@link PoolListener} observes every task's start, end, rejection
 * and timeouts.
 *
 * <p>Memory consistency effects: as with other {@link java.util.concurrent.Executor}s, actions in
 * a thread before it submits a task happen-before the task runs, and the task's actions
 * happen-before a {@code get()} of its future returns (and a {@link PoolListener}'s call about
 * its end).
 *
 * <p>This class is thread-safe.
 */
public final class WorkerPool extends InvokingExecutorService implements Pool {

    /*
     * Implementation notes.
     *
     * State machine (field `state`), as in ThreadPoolExecutor:
     *   RUNNING -> SHUTDOWN    on shutdown()/release(): intake stops, waiting callers get
     *                          PoolClosedException, idle workers are told to look for work and
     *                          exit when the queue is empty; busy workers drain the queue.
     *   RUNNING or SHUTDOWN -> STOP
     *                          on shutdownNow(): also the queue is emptied into the returned
     *                          list and busy workers are interrupted.
     *   SHUTDOWN or STOP -> TERMINATED
     *                          when no worker thread is left and the queue is empty
     *                          (tryTerminate, called wherever one of those can become true).
     *   SHUTDOWN, STOP or TERMINATED -> RUNNING
     *                          on reboot(): a new generation; awaitTermination calls of the old
     *                          generation return whether it reached TERMINATED.
     *
     * Where a task goes is the engine's business (Engine: HandOffEngine for queueCapacity 0,
     * QueueEngine otherwise, each with its notes); the pool's part, for both:
     *   - submit (submitWork): count it, stamp it with its submit time if a listener or the queue
     *     timeout needs one, and ask the engine to dispatch it;
     *   - the full path (awaitWorker), when the engine has no room: start a worker if there is
     *     room after all, queue if the queue has room again, else reject (nonblocking,
     *     maxBlockingTasks, blockingTimeout 0, no live worker while the thread factory fails) or
     *     make the caller wait as a Waiter (FIFO). A Waiter spins (hand-off: spinnerNanos; queue:
     *     not at all, Engine.waiterSpinNanos), then parks;
     *     its deadline is its arrival plus the live blockingTimeout. A worker that frees up
     *     serves the first Waiter before anything else, under `lock` (takeWaiterTask, or the
     *     queue engine moves the Waiter's task into the queue; the queue engine's first Waiter
     *     also looks for room itself, QueueEngine's notes, "A caller waiting for room").
     *   - the worker loop (runWorker/nextTask): a queued task, else a waiting caller's, else the
     *     engine's idle path, which ends in parkIdle (push on `idle`, park until handed work).
     * Spins are short, so that on a 2-core machine a spinner does not starve, for long, the
     * thread it waits for, and never yield (a yielding thread can lose its CPU for a time slice),
     * except a queue pool's searcher after its spin, while its bounded queue was just full
     * (QueueEngine.yieldForQueue).
     *
     * Races that must not lose a task, besides the engines':
     *   - shutdown() racing a caller: a caller re-checks the state under `lock` before it waits,
     *     shutdown completes every Waiter with CLOSED under `lock`.
     *   - A worker's thread fails to start while callers wait for its slot (start): the slot is
     *     handed to a task-less replacement, and the caller whose task it was keeps its task and
     *     queues or waits for a live worker.
     *
     * Counting: workerCount counts workers that take up capacity; it is decremented, under
     * `lock`, when a worker is chosen to stop (Worker.retired), so capacity decisions see the
     * effect at once. `workers` holds the threads that have not yet exited; termination waits
     * for it to empty. running = workerCount - idle (idle includes the engine's spinner or
     * searchers). Totals for finished tasks are per-worker fields written only by the worker
     * (release stores) and folded into the pool's totals when the worker exits, so the hot path
     * touches no shared counter but `submitted` (and in a queue pool not even that: the queue engine
     * counts what enters its queue, QueueEngine's notes).
     *
     * Live options: `config` is the whole; the hot paths read their own volatile copies of its
     * fields. reconfigure applies the caller's function outside the lock and installs the result
     * under it only if `config` is still the one the function saw (else it retries), so
     * concurrent reconfigurations compose and none is lost.
     */

    static final int RUNNING = 0;
    static final int SHUTDOWN = 1;
    static final int STOP = 2;
    static final int TERMINATED = 3;

    /**
     * Default spin budget: the spinner (a worker that just went idle) and a caller waiting for a
     * worker each spin a fifth of it before parking (a queue pool's searcher, while its bounded
     * queue was just full, then yields for up to the whole of it).
     */
    static final long DEFAULT_SPIN_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    /** Most workers a growing capacity starts at once for queued tasks (see resizeLocked). */
    static final int MAX_DRAINERS_AT_ONCE = Math.max(2, Runtime.getRuntime().availableProcessors());

    private static final System.Logger LOG = System.getLogger(WorkerPool.class.getName());


    /** Submit time of a task submitted while nobody needed it. */
    static final long NO_TIME = Long.MIN_VALUE;

    // Fixed configuration.
    private final String name;
    private final boolean preAlloc;
    private final ThreadFactory threadFactory;
    private final Consumer<Throwable> panicHandler;
    private final UnaryOperator<Runnable> taskDecorator;
    private final Consumer<Object> function;                         // non-null for FunctionPool
    private final Pool facade;                                       // what listeners are told about
    // Not final: a custom factory's first thread may turn out virtual (newWorkerLocked); written
    // under the lock before any of its workers starts. Callers read them without it: one that
    // still sees the old value offers a pending slot or spins briefly, which a worker serves all
    // the same (benign).
    long spinNanos;
    long spinnerNanos;                                               // a spinner's share of spinNanos
    private boolean factoryChecked;                                  // guarded by lock
    private final LongSupplier clock;
    private final Engine engine;
    private final boolean countsOnSubmit;                            // engine.countsOnSubmit()
    private final int firstMoveAfter;                                // see moveToNewThread; NEVER_MOVE for platform workers
    private final ThreadFactory moveFactory;                         // unnamed virtual threads (a move keeps the worker's name)

    // Live configuration: `config` is the whole, the others are its fields the hot paths read;
    // all written together under `lock` (reconfigure).
    private volatile PoolConfig config;
    private volatile int capacity;
    volatile int queueCapacity;
    private volatile boolean nonblocking;
    private volatile int maxBlockingTasks;
    private volatile long expiryNanos;
    private volatile long blockingTimeoutNanos;                      // -1: no limit
    private volatile long queueTimeoutNanos;                         // -1: not checked
    private volatile long runTimeoutNanos;                           // -1: not checked
    private volatile Listeners listeners;                            // null: none
    private volatile boolean stampSubmit;                            // listeners or queueTimeout need submit times
    // Thread failures apart from listener failures (each listener has its own, see Listeners): with
    // one limiter for all, a listener that threw on every task took each minute's line, and a
    // thread factory's failure was never logged with its own text.
    private final RateLimitedLog threadWarnings = new RateLimitedLog();

    volatile int state;

    final ReentrantLock lock = new ReentrantLock();
    private final Condition termination = lock.newCondition();
    final IdleWorkers idle;                                          // guarded by lock
    volatile int idleCount;                                          // idle.size(), written under lock
    final Waiters waiters = new Waiters();                           // guarded by lock, but count()
    volatile int workerCount;                                        // written under lock
    private final HashSet<Worker> workers = new HashSet<>();         // guarded by lock
    private int generation;                                          // guarded by lock
    private int terminatedGeneration = -1;                           // guarded by lock
    private ScheduledFuture<?> purgeSchedule;                        // guarded by lock
    /** Calls of purge() so far; a worker idle since before one retires instead of parking. Written under lock. */
    volatile int purges;

    final Counters counters = new Counters();                        // the totals (see Counters)

    /**
     * A pool with the given settings (validated by {@link Builder#settings()}).
     * @param function non-null for a FunctionPool: the work items are its arguments
     * @param facade   the pool listeners hear of: a FunctionPool, or this pool if null
     */
    WorkerPool(Settings settings, Consumer<Object> function, Pool facade) {
        PoolConfig c = settings.config();
        this.function = function;
        this.facade = facade != null ? facade : this;
        this.name = c.name();
        this.preAlloc = c.preAlloc();
        this.threadFactory = settings.threadFactory() != null ? settings.threadFactory()
                : c.virtualThreads() ? Threads.virtual(name) : Threads.platform(name);
        this.panicHandler = settings.panicHandler() != null ? settings.panicHandler() : this::logPanic;
        this.taskDecorator = settings.taskDecorator();
        this.spinNanos = settings.spinNanos() >= 0 ? settings.spinNanos() : c.virtualThreads() ? 0 : DEFAULT_SPIN_NANOS;
        this.spinnerNanos = spinNanos / 5;
        this.clock = settings.clock() != null ? settings.clock() : System::nanoTime;
        this.idle = preAlloc ? preAllocRing(c.capacity(), name) : new IdleWorkers.Stack();
        this.engine = c.queueCapacity() > 0
                ? new QueueEngine(this, c.capacity(), c.unboundedQueue())
                : new HandOffEngine(this);
        this.countsOnSubmit = engine.countsOnSubmit();
        this.firstMoveAfter = c.virtualThreads() ? FIRST_MOVE_AFTER : NEVER_MOVE;
        // A virtual pool's settings carry a factory only in tests (the builder refuses one): a seam
        // for a factory that fails.
        this.moveFactory = !c.virtualThreads() ? null
                : settings.threadFactory() != null ? settings.threadFactory() : Threads.virtualUnnamed();
        for (PoolListener l : settings.listeners()) {
            listeners = Listeners.with(listeners, l, this.facade);
        }
        lock.lock();
        try {
            applyLocked(c);
            schedulePurge();
        } finally {
            lock.unlock();
        }
    }

    /** Returns a new builder; {@link Builder#capacity(int)} is required. */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------- submission

    /**
     * Runs the task on a worker of this pool, starting one if needed and allowed; if every
     * worker is busy, queues the task, or waits for a free worker, as configured.
     *
     * @throws PoolOverloadException if the pool is full and the caller may not wait, or waited
     *         {@code blockingTimeout} in vain, or was interrupted while waiting (the interrupt
     *         status is kept)
     * @throws PoolClosedException if the pool is shut down, or was shut down while the caller waited
     * @throws NullPointerException if task is null
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        submitWork(decorated(task));
    }

    /** The task as this pool runs it: wrapped by the task decorator, if any, with the original kept. */
    final Object decorated(Runnable task) {
        return taskDecorator == null ? task : new Decorated(task, taskDecorator.apply(task));
    }

    /** The pool's clock (System.nanoTime but in tests), for MultiPool's submit time. */
    final long clockNow() {
        return clock.getAsLong();
    }

    /** The work, with its submit time if a listener or the queue timeout needs it. */
    private Object stamped(Object work) {
        return stampSubmit ? new Timed(work, clock.getAsLong()) : work;
    }

    /** stamped(), submitted at the given time (pool clock): a MultiPool's caller sent on keeps its first. */
    private Object stampedAt(Object work, long submittedAt) {
        return stampSubmit ? new Timed(work, submittedAt) : work;
    }

    /**
     * Runs the task if a worker or queue slot is free right now, without waiting; returns false,
     * counting nothing, if the pool is full or shut down (also if it shuts down meanwhile). For
     * MultiPool, which tries the next pool before giving the task a pool's full-pool treatment.
     */
    final boolean tryExecute(Runnable task) {
        Objects.requireNonNull(task, "task");
        return tryWork(decorated(task));
    }

    /**
     * tryExecute() for work already decorated ({@link #decorated}): MultiPool decorates a task
     * once, however many of its pools it tries, since a decorator may open a span or capture a
     * context per call.
     */
    final boolean tryWork(Object decoratedWork) {
        return tryWork(decoratedWork, false, 0L);
    }

    /**
     * tryWork(); if {@code routed}, the task's submit time is {@code submittedAt} (pool clock): a
     * MultiPool's caller sent on after waiting in a sub-pool shut down on its own.
     */
    final boolean tryWork(Object decoratedWork, boolean routed, long submittedAt) {
        if (state != RUNNING) {
            return false;
        }
        Object work = !routed ? stamped(decoratedWork) : stampedAt(decoratedWork, submittedAt);
        try {
            if (engine.tryDispatch(work)) {
                if (countsOnSubmit) {
                    // Counted once it is in (else the engine counts what does not stay in its
                    // queue): counted first and taken back after a failed try, the total read
                    // high meanwhile, and MultiPool tries every full sub-pool for each task.
                    counters.submitted.increment();
                }
                return true;
            }
        } catch (PoolClosedException closedMeanwhile) {
            // Neither counted nor told (tryDispatch): a try that fails counts nothing; the caller
            // tries elsewhere.
        }
        return false;
    }

    /**
     * Counts and hands one unit of work to a worker: a Runnable, or for a pool bound to a
     * function (FunctionPool) the function's argument, so no task object is allocated per call.
     */
    final void submitWork(Object work) {
        submitWork(work, 0L, 0L);
    }

    /**
     * submitWork(); {@code waitingSince} the caller's wait began (MultiPool's, rerouted), or 0 for
     * now, and {@code submittedAt} the same moment on the pool's clock (read only if not 0).
     */
    private void submitWork(Object work, long waitingSince, long submittedAt) {
        int s = state;
        if (countsOnSubmit || s != RUNNING) {
            counters.submitted.increment(); // else the engine counts what does not stay in its queue
        }
        if (s != RUNNING) {
            throw rejectClosed();
        }
        work = (waitingSince == 0L) ? stamped(work) : stampedAt(work, submittedAt);
        try {
            if (!engine.dispatch(work, true)) {
                awaitWorker(work, waitingSince);
            }
        } catch (RejectedExecutionException rejection) {
            tellUntold(rejection);
            throw rejection;
        }
    }

    @Override
    protected final <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new PoolFuture<>(runnable, value);
    }

    @Override
    protected final <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new PoolFuture<>(callable);
    }

    /** Pops an idle worker to hand work to; null if none. */
    Worker popIdle() {
        lock.lock();
        try {
            Worker w = idle.pop();
            if (w != null) {
                idleCount = idle.size();
            }
            return w;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts a worker for the task if below capacity; false if the pool filled up meanwhile, or
     * the thread factory failed (the task is still the caller's, to queue or wait with).
     */
    boolean addWorker(Object firstTask, boolean countRefusal) {
        Worker w;
        lock.lock();
        try {
            if (state != RUNNING) {
                // A try (tryWork) counts no refusal: counted and taken back, the rejected total
                // read one high meanwhile, and then went down (a reset, to Prometheus).
                throw countRefusal ? rejectClosed() : closed();
            }
            int c = capacity;
            if (c >= 0 && workerCount >= c) {
                return false;
            }
            w = newWorkerLocked(firstTask);
        } finally {
            lock.unlock();
        }
        return w != null && start(w);
    }

    /**
     * Creates a worker that counts toward capacity; the caller starts it after unlocking. Null if
     * the thread factory failed (returned null or threw): logged, at most once a minute.
     */
    Worker newWorkerLocked(Object firstTask) {
        Worker w;
        Thread t;
        Throwable failure = null;
        try {
            w = new Worker(this, firstTask);
            t = threadFactory.newThread(w);
            if (t == null) {
                failure = new IllegalStateException("the thread factory returned null");
            } else if (t.getState() != Thread.State.NEW) {
                // Started already, maybe running this worker: it finds itself no worker's thread
                // (Worker.run) and ends, so the task runs once, on a thread the pool counts.
                failure = new IllegalStateException("the thread factory returned a thread already started ("
                        + t + "); it must return new threads, as ThreadFactory says");
            }
        } catch (Throwable e) {
            // Any Throwable: a factory may throw a checked one (Kotlin, @SneakyThrows), and
            // callers have state half-changed (a searcher counted, a task taken from the queue).
            w = null;
            t = null;
            failure = e;
        }
        if (failure != null) {
            Throwable f = failure;
            threadWarnings.warn(() -> "pool '" + name + "' could not create a worker thread: its thread factory "
                    + threadFactory + " failed (" + f + "); tasks are queued or wait for a live worker", f);
            return null;
        }
        if (!factoryChecked) {
            factoryChecked = true;
            if (spinNanos > 0 && !config.virtualThreads() && Threads.isVirtual(t)) {
                // threadFactory(Thread.ofVirtual().factory()): a virtual worker that spins before
                // parking holds a carrier the other virtual threads need; park at once, as
                // virtualThreads(true) does.
                spinNanos = 0;
                spinnerNanos = 0;
            }
        }
        w.thread = t;
        w.moveAfter = firstMoveAfter;
        workers.add(w); // first: out of memory here must not leave a slot counted for no worker
        workerCount++;
        engine.workerAdded(w);
        return w;
    }

    /**
     * Starts the worker's thread; false if it could not be started (logged). A worker made for a
     * caller's task did not take the task then: the caller still has it.
     */
    boolean start(Worker w) {
        boolean withTask = w.firstTask != null; // read before the thread can take it
        try {
            w.thread.start();
            return true;
        } catch (RuntimeException | Error e) {
            if (!w.claimStart(Worker.FIRST_START)) {
                // The thread started after all (a factory's Thread whose start() threw once it had
                // started it) and is the worker, first task and all: the caller must not run the
                // task (helper-170: it ran twice, the second time on another worker).
                threadWarnings.warn(() -> "pool '" + name + "': the start() of a worker thread made by its thread "
                        + "factory " + threadFactory + " threw (" + e + ") after starting the thread", e);
                return true;
            }
            Worker replacement = null;
            lock.lock();
            try {
                freeSlotLocked(w);
                if (workers.remove(w)) {
                    engine.workerRemoved(w); // once: a thread that did start after all exits through workerExited
                }
                // While this thread was being started it held a slot, so other callers may have
                // found the pool full and now wait (or queued) for it with no worker to serve them:
                // hand the slot to a task-less worker, once (a factory whose threads never start
                // is logged, not retried forever).
                int c = capacity;
                if (withTask && (c < 0 || workerCount < c)
                        && ((state == RUNNING && !waiters.isEmpty())
                            || (state < STOP && !engine.isEmpty()))) {
                    replacement = newWorkerLocked(null);
                }
                if (replacement == null) {
                    refuseWaitersIfNoWorkerLocked();
                }
                tryTerminate();
            } finally {
                lock.unlock();
            }
            threadWarnings.warn(() -> "pool '" + name + "' could not start a worker thread made by its thread factory "
                    + threadFactory + " (" + e + "); tasks are queued or wait for a live worker", e);
            if (replacement != null) {
                start(replacement);
            }
            return false;
        }
    }

    /**
     * The full-pool path: start a worker if there is room after all, queue if the queue has room,
     * else reject or wait for a worker as configured. A thread factory that fails does not refuse
     * the task while a live worker can take it, at once or from the queue.
     */
    private void awaitWorker(Object task, long waitingSince) {
        if (!countsOnSubmit) {
            // Counted here, whatever comes of it (a worker, a wait, a rejection); if it goes to
            // the queue after all, the engine is told it was counted (Engine.offer).
            counters.submitted.increment();
        }
        long arrival = waitingSince != 0L ? waitingSince : System.nanoTime();
        boolean factoryFailed = false;
        for (;;) {
            Waiters.Waiter waiter = null;
            boolean firstWaiter = false;
            Worker w;
            Object head = null;
            boolean toQueue = false;
            lock.lock();
            try {
                if (state != RUNNING) {
                    throw rejectClosed();
                }
                w = idle.pop();
                if (w != null) {
                    idleCount = idle.size();
                    // Tasks were queued after this worker found the queue empty (it is on its way
                    // back to them): it gets the first of them, and this task goes behind them
                    // (into the room that frees), else one caller's tasks could run out of order.
                    head = engine.takeFirstLocked();
                } else {
                    int c = capacity;
                    if (!factoryFailed && (c < 0 || workerCount < c)) {
                        Worker fresh = newWorkerLocked(task);
                        if (fresh != null) {
                            lock.unlock();
                            boolean started;
                            try {
                                started = start(fresh);
                            } finally {
                                lock.lock();
                            }
                            if (started) {
                                return;
                            }
                        }
                        factoryFailed = true;
                        continue; // look again: the pool may have changed while unlocked
                    }
                    if (factoryFailed && workerCount == 0) {
                        // Not even into the queue: with no live worker nothing would take it from there.
                        throw rejectNoWorker();
                    } else if (engine.hasRoom()) {
                        toQueue = true;
                    } else if (nonblocking) {
                        throw rejectOverload("pool '" + name + "' is full: " + busyNote(c, factoryFailed)
                                + queueNote() + "; it is nonblocking, so it rejects instead of waiting");
                    } else if (maxBlockingTasks > 0 && waiters.count() >= maxBlockingTasks) {
                        throw rejectOverload("pool '" + name + "' is full: " + busyNote(c, factoryFailed)
                                + queueNote() + " and " + waiters.count() + " callers already wait (maxBlockingTasks="
                                + maxBlockingTasks + ")");
                    } else if (blockingTimeoutNanos == 0) {
                        throw rejectOverload("pool '" + name + "' is full: " + busyNote(c, factoryFailed)
                                + queueNote() + " and blockingTimeout is 0");
                    } else {
                        waiter = new Waiters.Waiter(this, task, arrival, engine.callerStripe());
                        firstWaiter = waiters.isEmpty();
                        waiters.add(waiter);
                        // A worker that freed a slot after hasRoom() above may not have seen this
                        // waiter; look again (and the first waiter looks again itself while it
                        // waits: QueueEngine's notes, "A caller waiting for room").
                        engine.admitWaitersLocked();
                    }
                }
            } finally {
                lock.unlock();
            }
            if (w != null) {
                if (head != null) {
                    w.handOff(head);
                    continue;
                }
                w.handOff(task);
                return;
            }
            if (toQueue) {
                // The queue had room again by the time we held the lock.
                if (engine.offer(task)) {
                    return;
                }
                continue;
            }
            // Re-check the spinner after registering: a worker may have started spinning before it
            // could see this waiter (see the notes).
            if ((w = engine.takeSpinner()) != null) {
                boolean mine;
                lock.lock();
                try {
                    mine = waiters.remove(waiter);
                } finally {
                    lock.unlock();
                }
                // If not mine, the waiter's outcome was decided by whoever removed it (a worker took
                // its task, a shutdown closed it, or no worker was left): await() below takes it.
                // Send the spinner back to look for work.
                w.handOff(mine ? task : Worker.POLL);
                if (mine) {
                    return;
                }
            }
            waiter.await(engine.waiterSpinNanos(), firstWaiter ? engine.waiterRecheckNanos() : 0L);
            return;
        }
    }

    /**
     * With no live worker left and none coming (the thread factory failed, for a worker and for its
     * replacement), refuses the callers that wait, as the caller whose own worker failed is, naming
     * the factory, instead of leaving them to wait for a later submit that may never come. Under
     * the lock.
     */
    private void refuseWaitersIfNoWorkerLocked() {
        if (workerCount == 0 && !waiters.isEmpty()) {
            waiters.completeAll(Waiters.NO_WORKER);
        }
    }

    /** The refusal of a task when the thread factory failed and no live worker is left to run it. */
    PoolOverloadException rejectNoWorker() {
        return rejectOverload("pool '" + name + "' could not create a worker thread (its thread factory "
                + threadFactory + " failed) and has no live worker to run the task; fix the thread factory");
    }

    private String busyNote(int c, boolean factoryFailed) {
        return factoryFailed ? "its " + workerCount + " live workers are busy and its thread factory failed"
                : "all " + c + " workers are busy";
    }

    private String queueNote() {
        return engine.fullNote();
    }

    PoolOverloadException rejectOverload(String message) {
        String multi = multiPoolName;
        if (multi != null && ROUTED.get() == this) {
            // A MultiPool tried every sub-pool before this one's full-pool treatment: the caller
            // (and the listeners, told of the multi-pool) submitted to the multi-pool.
            return rejected(new PoolOverloadException(multi, "multi-pool '" + multi + "' refused the task (each of"
                    + " its pools was tried): " + message));
        }
        return rejected(new PoolOverloadException(name, message));
    }

    /**
     * A caller that gave up its wait for a worker because what it submits for ended (a task
     * group that stopped): no refusal of the pool's, so counted as cancelled, not rejected, and
     * not told to the listeners as a rejection.
     */
    PoolOverloadException withdrawn(String message) {
        counters.withdrawn.increment();
        String multi = multiPoolName;
        return new PoolOverloadException((multi != null && ROUTED.get() == this) ? multi : name, message);
    }

    /** The name of the MultiPool this pool is a sub-pool of, or null; set once by MultiPool.of. */
    volatile String multiPoolName;

    PoolClosedException rejectClosed() {
        return rejected(closed());
    }

    /** The refusal of a closed pool, neither counted nor told: a try's (tryWork), whose caller tries elsewhere. */
    PoolClosedException closed() {
        return new PoolClosedException(name, "pool '" + name + "' is shut down (release/shutdown was called)"
                + " and accepts no tasks; call reboot() to reopen it");
    }


    /**
     * Tells the listeners that were added as those of {@code source} of a rejection counted
     * elsewhere (a closed MultiPool's, told to its listeners, not to this sub-pool's own).
     */
    void tellRejected(RejectedExecutionException rejection, Pool source) {
        Listeners ls = listeners;
        if (ls != null) {
            ls.rejected(rejection, source);
        }
    }

    /** Tells the listeners of a rejection this pool counted; see ROUTED for whom. */
    private void tell(RejectedExecutionException rejection) {
        Listeners ls = listeners;
        if (ls == null) {
            return;
        }
        WorkerPool routed = ROUTED.get();
        if (routed == null) {
            ls.rejected(rejection, null);
            return;
        }
        // Unset while the listeners run: one that submits to this pool itself is not routed.
        ROUTED.remove();
        try {
            ls.rejected(rejection, routed == this && rejection instanceof PoolClosedException ? facade : null);
        } finally {
            ROUTED.set(routed);
        }
    }

    /**
     * The sub-pool a MultiPool submits through on this thread (submitWorkRouted): if it is shut
     * down meanwhile, the MultiPool sends the task to another sub-pool or refuses it as its own,
     * so this pool's refusal is told to its own listeners alone, not to the MultiPool's.
     */
    private static final ThreadLocal<WorkerPool> ROUTED = new ThreadLocal<>();

    /**
     * submitWork() for a MultiPool that has found every sub-pool full: the task gets this pool's
     * full-pool treatment (wait or reject), but if this pool is or gets shut down, false is
     * returned instead of PoolClosedException. The refusal stays counted in this pool's stats
     * (the MultiPool's take it out) and is told to this pool's own listeners only.
     * @param waitingSince when the caller's wait began (System.nanoTime(), not 0), so that a
     *        caller sent on from one sub-pool to another waits blockingTimeout in all
     * @param submittedAt  the same moment on the pool's clock: the task's submit time, so that its
     *        wait in every sub-pool counts toward its queue time (queueTimeout, taskStarted)
     */
    final boolean submitWorkRouted(Object work, long waitingSince, long submittedAt) {
        WorkerPool outer = ROUTED.get(); // a MultiPool's, if its listener submits to another one
        ROUTED.set(this);
        try {
            submitWork(work, waitingSince, submittedAt);
            return true;
        } catch (PoolClosedException closed) {
            return false;
        } finally {
            if (outer == null) {
                ROUTED.remove();
            } else {
                ROUTED.set(outer);
            }
        }
    }

    /** Counts a rejection and tells the listeners; returns the exception for the caller to throw. */
    private <E extends RejectedExecutionException> E rejected(E rejection) {
        // Under the lock, told once it is released (submitWork): a listener may lock another pool
        // (a MultiPool's stats() locks each sub-pool), and two pools refusing at once would then
        // wait for each other's lock for ever.
        return rejected(rejection, lock.isHeldByCurrentThread());
    }

    /** Counts a rejection; tells the listeners now, or leaves it UNTOLD for the caller (tellUntold, tryWork). */
    private <E extends RejectedExecutionException> E rejected(E rejection, boolean leaveUntold) {
        if (rejection instanceof PoolClosedException && ROUTED.get() == this) {
            counters.routedRefused.increment(); // the MultiPool sends the caller on (submitWorkRouted)
        } else {
            counters.rejected.increment();
        }
        if (listeners != null) {
            if (leaveUntold) {
                UNTOLD.set(rejection);
            } else {
                tell(rejection);
            }
        }
        return rejection;
    }

    /** A rejection made under a pool's lock whose listeners are not told yet; see rejected(). */
    private static final ThreadLocal<RejectedExecutionException> UNTOLD = new ThreadLocal<>();

    /** Tells the listeners of the rejection, if it was made under the lock and not told yet. */
    private void tellUntold(RejectedExecutionException rejection) {
        if (takeUntold(rejection)) {
            tell(rejection);
        }
    }

    /** Clears this thread's untold rejection; whether it was this one, which is then the caller's to tell or drop. */
    private static boolean takeUntold(RejectedExecutionException rejection) {
        RejectedExecutionException untold = UNTOLD.get();
        if (untold == null) {
            return false;
        }
        UNTOLD.remove();
        return untold == rejection;
    }

    /** The live blockingTimeout in nanoseconds; -1 for none. */
    long blockingTimeoutNanos() {
        return blockingTimeoutNanos;
    }

    // ---------------------------------------------------------------- workers

    final void runWorker(Worker w) {
        Object task = w.firstTask;
        w.firstTask = null;
        Worker.CURRENT.set(w);
        boolean moved = false;
        try {
            for (int ran = 0; ; ) {
                if (task != null) {
                    runTask(w, task);
                    ran++;
                }
                task = nextTask(w);
                if (task == null) {
                    break;
                }
                if (ran >= w.moveAfter && w.moveAfter != NEVER_MOVE && moveToNewThread(w, task)) {
                    moved = true;
                    break;
                }
            }
        } finally {
            Worker.CURRENT.remove();
            if (!moved) {
                engine.workerStopping(w);
                workerExited(w);
            }
        }
    }

    /** Tasks a virtual worker runs on its first thread before it moves to a new one; each move multiplies it by MOVE_GROWTH. */
    static final int FIRST_MOVE_AFTER = 16;
    static final int MOVE_GROWTH = 8;
    /** Worker.moveAfter of a worker that never moves (platform workers, or a move that failed). */
    static final int NEVER_MOVE = Integer.MAX_VALUE;

    /**
     * Moves a busy virtual worker to a new virtual thread that starts with {@code task}, keeping
     * its name; this thread then ends. False if the pool is stopping (it carries on here), or if
     * the thread cannot be made or started (logged; it carries on here and moves no more).
     *
     * <p>Why: a virtual thread's bottom frames (the JDK's entry frames, Worker.run, runWorker)
     * stay as they were when it started, for its whole life. Workers started before the JIT
     * compiled those methods (every worker of a pool filled at startup) keep interpreted frames,
     * since the JVM moves a running loop to compiled code only now and then; and a continuation
     * with an interpreted frame takes the JVM's slow path to unmount and remount at every park
     * (each Thread.sleep or blocking call of a task). A fresh thread starts on compiled frames.
     * Measured on the ants workload (10^6 sleeps of 10 ms, 10,000 virtual workers) in a JVM where
     * the workers started cold: the slow path's share of the carriers' CPU fell from about a
     * quarter to 2%; in JMH's forks, where it was small to begin with, no change beyond the noise
     * (BENCHMARKS.md, "Twenty-second round"). The moves come after 16, 128, 1,024, ... tasks, so a
     * worker moves only a few times in its life; platform workers never do (they do not unmount).
     */
    private boolean moveToNewThread(Worker w, Object task) {
        if (state >= STOP) {
            return false;
        }
        Thread old = w.thread;
        int pending = w.startPending();
        try {
            Thread t = moveFactory.newThread(w);
            if (t == null) {
                throw new IllegalStateException("the virtual thread factory returned null");
            }
            t.setName(old.getName());
            w.firstTask = task;
            w.moveAfter = (int) Math.min(NEVER_MOVE - 1L, (long) w.moveAfter * MOVE_GROWTH); // read by t
            // No lock (10,000 workers moving at once contended for it): stopNow() sets STOP, then
            // reads w.thread to interrupt it; the new thread reads the state after this write, in
            // runTask. Both volatile, so a stopNow() that interrupts the old thread is seen by the
            // new one, which then interrupts itself (as runTask does for every task of a stopping pool).
            w.thread = t;
            t.start();
            return true;
        } catch (Throwable e) {
            if (!w.claimStart(pending)) {
                return true; // the new thread started after all and is the worker: moved (helper-170)
            }
            // The task is taken and counted: it runs here whatever failed. This thread reads the
            // state in runTask after putting itself back.
            w.thread = old;
            w.firstTask = null;
            w.moveAfter = NEVER_MOVE;
            threadWarnings.warn(() -> "pool '" + name + "' could not move a virtual worker to a new thread (" + e
                    + "); it stays on its thread, which works on, only slower at each park", e);
            return false;
        }
    }

    private void runTask(Worker w, Object task) {
        // As in ThreadPoolExecutor: a stopping pool's tasks see an interrupt, others never a stale one.
        if (state >= STOP) {
            Thread.currentThread().interrupt();
        } else if (Thread.interrupted() && state >= STOP) {
            Thread.currentThread().interrupt();
        }
        // A plain Runnable with no listener and no run timeout: this much stays small enough for
        // the JIT to inline into the worker's loop, one frame fewer under every task (a virtual
        // worker's park and resume copy each frame above its last one out and back).
        if (function == null && listeners == null && runTimeoutNanos < 0 && !(task instanceof Timed)
                && !(task instanceof Decorated) && !(task instanceof PoolFuture)) {
            Throwable failure = null;
            try {
                ((Runnable) task).run();
            } catch (Throwable t) {
                failure = t;
                panic(t);
            }
            settle(w, failure);
            return;
        }
        runTaskFully(w, task);
    }

    /**
     * Counts a task's outcome in its worker and returns what a listener is told it ended with:
     * {@code failure} (what the task threw), else the failure of a PoolFuture that failed on this
     * thread while the task ran (the task itself, one the pool ran inside a wrapper such as
     * ExecutorCompletionService's, or one the task ran inline), else a cancellation if such a
     * future was cancelled (while it ran, or before, inside a wrapper the pool could not look
     * into), else null. A FunctionPool's arguments are not its futures: only {@code failure} counts.
     */
    private Throwable settle(Worker w, Throwable failure) {
        Throwable futureFailed = w.futureFailed;
        boolean cancelled = false;
        if (futureFailed != null) {
            w.futureFailed = null;
            if (failure == null && function == null) {
                failure = futureFailed;
            }
        }
        if (w.futureCancelled) {
            w.futureCancelled = false;
            cancelled = failure == null && function == null;
        }
        if (failure != null) {
            w.addFailed();
            return failure;
        }
        if (cancelled) {
            w.addCancelled();
            return new CancellationException("task cancelled"); // what its future holds
        }
        w.addCompleted();
        return null;
    }

    private void runTaskFully(Worker w, Object task) {
        long submittedAt = NO_TIME;
        if (task instanceof Timed) {
            Timed timed = (Timed) task;
            submittedAt = timed.submitted;
            task = timed.work;
        }
        // A FunctionPool's work is its function's argument, which may be any object, a PoolFuture
        // too: only a Runnable pool's PoolFuture is the pool's own.
        Object original = function != null ? null : task instanceof Decorated ? ((Decorated) task).original : task;
        if (original instanceof PoolFuture && ((PoolFuture<?>) original).isCancelled()) {
            w.addCancelled();
            return;
        }
        // Clocks are read only for a listener or a timeout: with neither, a task costs no clock read.
        Listeners ls = listeners;
        long runLimit = runTimeoutNanos;
        long started = 0L;
        boolean timed = ls != null || runLimit >= 0 || submittedAt != NO_TIME;
        if (timed) {
            started = clock.getAsLong();
            long waited = submittedAt == NO_TIME ? 0L : Math.max(0L, started - submittedAt);
            if (ls != null) {
                ls.started(waited);
            }
            long queueLimit = queueTimeoutNanos;
            if (queueLimit >= 0 && submittedAt != NO_TIME && waited > queueLimit) {
                counters.queueTimeouts.increment();
                if (ls != null) {
                    ls.queueTimedOut(waited);
                }
            }
        }
        Throwable failure = null;
        try {
            if (function != null) {
                function.accept(task);
            } else {
                ((Runnable) task).run();
            }
        } catch (Throwable t) {
            failure = t;
        }
        // The run ends here: the panic handler's time (a log with a stack trace, a report) is not the task's.
        long ran = timed ? Math.max(0L, clock.getAsLong() - started) : 0L;
        if (failure != null) {
            panic(failure);
            if (original instanceof PoolFuture && task instanceof Decorated && !((PoolFuture<?>) original).isDone()) {
                // The decorator's wrapper threw without running the task (or before it ended): its
                // future ends with that failure, instead of never (get() waited for ever).
                ((PoolFuture<?>) original).failUnrun(failure);
            } else if (original instanceof Invocations.Queueing && task instanceof Decorated) {
                ((Invocations.Queueing<?>) original).failUnrun(failure); // an invokeAny's (helper-170)
            }
        }
        Throwable outcome = settle(w, failure);
        if (timed) {
            if (runLimit >= 0 && ran > runLimit) {
                counters.runTimeouts.increment();
                if (ls != null) {
                    ls.runTimedOut(ran);
                }
            }
            if (ls != null) {
                ls.ended(ran, outcome);
            }
        }
    }

    private void panic(Throwable t) {
        try {
            panicHandler.accept(t);
        } catch (Throwable handlerFailure) {
            if (handlerFailure != t) { // a handler that rethrows the task's own exception: no self-suppression
                handlerFailure.addSuppressed(t);
            }
            RateLimitedLog.log(System.Logger.Level.ERROR, "panic handler of pool '" + name + "' threw", handlerFailure);
        }
    }

    private void logPanic(Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "task in pool '" + name + "' threw; the worker carries on", t);
    }

    /** The worker's next task, or null when it should exit. */
    private Object nextTask(Worker w) {
        // Before the first look: a purge from now on finds this worker idle, even while it is
        // still looking (a queue-mode searcher spinning, or one on its way to park), where the
        // purge cannot take it; parkIdle retires it instead.
        w.purgesSeen = purges;
        for (;;) {
            int s = state;
            if (s >= STOP) {
                return null;
            }
            int c = capacity;
            if (c >= 0 && workerCount > c && retireIf(w, true)) {
                return null;
            }
            Object queued = engine.poll(w);
            if (queued != null) {
                return queued;
            }
            atSearchPoint(SEARCH_EMPTY_POLL);
            if (waiters.count() > 0) {
                Object t = takeWaiterTask();
                if (t == Worker.POLL) {
                    continue; // tasks were queued since the poll above: they go first
                }
                if (t != null) {
                    engine.tookWaiterTask(w);
                    return t;
                }
            }
            if (s != RUNNING) {
                if (retireIf(w, false)) {
                    return null;
                }
                continue;
            }
            Object o = awaitWork(w);
            if (o == Worker.STOP) {
                return null;
            }
            if (o != Worker.POLL) {
                return o;
            }
        }
    }

    /** Retires the worker: if overCapacity, when the pool is above capacity; else when there is nothing left to drain. */
    private boolean retireIf(Worker w, boolean overCapacity) {
        lock.lock();
        try {
            boolean retire;
            if (overCapacity) {
                int c = capacity;
                retire = c >= 0 && workerCount > c;
            } else {
                retire = state != RUNNING && engine.isEmpty() && waiters.isEmpty();
            }
            if (retire) {
                freeSlotLocked(w);
            }
            return retire;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The first waiting caller's task, or null if nobody waits; POLL if tasks were queued since
     * the worker found the queue empty: a caller's task queued then, and its next one waiting
     * now for room, must run in that order (the waiting ones are let into the queue behind them
     * as far as it has room).
     */
    private Object takeWaiterTask() {
        lock.lock();
        try {
            int c = capacity;
            if (c >= 0 && workerCount > c) {
                return Worker.POLL; // a tune shrank the pool since this worker's check: it retires there
            }
            if (!engine.isEmpty()) {
                engine.admitWaitersLocked();
                return Worker.POLL;
            }
            Waiters.Waiter waiter = waiters.acceptFirst();
            if (waiter == null) {
                return null;
            }
            engine.admitWaitersLocked(); // the queue (this worker found it empty) takes the next ones that fit
            return waiter.task;
        } finally {
            lock.unlock();
        }
    }

    /** The engine (a waiting caller's last look for room, Waiters; tests). */
    Engine engine() {
        return engine;
    }

    /** Lets waiting callers' tasks into the engine's queue while it has room (a waiting caller's own look). */
    void admitWaiters() {
        lock.lock();
        try {
            engine.admitWaitersLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives the first waiting caller's task to {@code sink} (the queue engine's queue) and lets the
     * caller go; under lock. False if nobody waits.
     */
    boolean acceptFirstWaiterLocked(Engine.TaskSink sink) {
        return waiters.acceptFirstInto(sink);
    }

    /** Waits idle until handed a task; returns it, or POLL to look again. */
    private Object awaitWork(Worker w) {
        return engine.awaitWork(w);
    }

    /**
     * Whether an idle worker must look at the pool again instead of waiting: callers wait, the
     * pool is shutting down, or it is above capacity.
     */
    boolean needsALook() {
        int c = capacity;
        return waiters.count() > 0 || state != RUNNING || (c >= 0 && workerCount > c);
    }

    /** The current capacity (-1 unbounded), for the engines. */
    int capacityNow() {
        return capacity;
    }

    /** Pushes the worker on the idle structure and parks it until handed something. */
    Object parkIdle(Worker w) {
        lock.lock();
        try {
            int c = capacity;
            if (state != RUNNING || !waiters.isEmpty() || (c >= 0 && workerCount > c)) {
                return Worker.POLL;
            }
            if (w.purgesSeen != purges && engine.isEmpty()) {
                // Idle since before a purge that could not take it: leave as if purged. A task
                // offered after the look above finds the slot free (workerExited starts a worker
                // if nobody idle or searching will look).
                freeSlotLocked(w);
                return Worker.STOP;
            }
            w.idleSince = clock.getAsLong();
            idle.push(w);
            idleCount = idle.size();
        } finally {
            lock.unlock();
        }
        atSearchPoint(SEARCH_IDLE_PUSHED);
        if (!engine.isEmpty()) {
            lock.lock();
            try {
                if (idle.remove(w)) {
                    idleCount = idle.size();
                    return Worker.POLL;
                }
            } finally {
                lock.unlock();
            }
        }
        return w.awaitSlot(); // popped by a waker (POLL, maybe as a searcher), a caller, purge or shutdown
    }

    private void workerExited(Worker w) {
        Worker replacement = null;
        lock.lock();
        try {
            if (!w.retired) {
                freeSlotLocked(w);
            }
            if (workers.remove(w)) {
                engine.workerRemoved(w);
            }
            counters.retireLocked(w);
            int c = capacity;
            if (!engine.isEmpty() && state < STOP && workerCount == 0) {
                replacement = newWorkerLocked(null);
            } else if (state == RUNNING && (c < 0 || workerCount < c) && (!waiters.isEmpty()
                    || (!engine.isEmpty() && idleCount == 0 && engine.idleOutsideStructure() == 0))) {
                // A worker that saw STOP (shutdownNow) leaves without retiring under the lock; a
                // reboot meanwhile lets callers find the pool full by its count and wait, or queue
                // their tasks with nobody woken; so does a worker a purge retired just as it went
                // idle. Its slot goes to a task-less worker, as start() gives a slot whose thread
                // never started, when nobody idle or searching will look at the queue.
                replacement = newWorkerLocked(null);
            }
            if (replacement == null) {
                refuseWaitersIfNoWorkerLocked();
            }
            tryTerminate();
        } finally {
            lock.unlock();
        }
        if (replacement != null) {
            start(replacement);
        }
    }

    /** tryTerminate, taking the lock. */
    void tryTerminateUnlocked() {
        lock.lock();
        try {
            tryTerminate();
        } finally {
            lock.unlock();
        }
    }

    /** Moves to TERMINATED if shut down, no worker thread is left and the queue is empty; under lock. */
    private void tryTerminate() {
        int s = state;
        if ((s == SHUTDOWN || s == STOP) && workers.isEmpty() && engine.isEmpty()
                && waiters.isEmpty()) {
            state = TERMINATED;
            terminatedGeneration = generation;
            if (purgeSchedule != null) {
                purgeSchedule.cancel(false);
                purgeSchedule = null;
            }
            termination.signalAll();
        }
    }

    /** Takes an idle worker out of the count, under lock; the caller hands it STOP after unlocking. */
    private void retireIdleLocked(Worker w, List<Worker> out) {
        freeSlotLocked(w);
        out.add(w);
    }

    /** Marks a worker as leaving and gives its slot back, under lock: exactly once per worker. */
    private void freeSlotLocked(Worker w) {
        w.retired = true;
        workerCount--;
    }

    private static void handOffAll(List<Worker> workers, Object signal) {
        for (Worker w : workers) {
            w.handOff(signal);
        }
    }

    // ---------------------------------------------------------------- expiry, purge, tune

    /**
     * The shared purger's check: {@link #purgeExpired()}, unless the pool's lock stays held for
     * {@value #PURGE_LOCK_WAIT_MILLIS} ms. Not a plain lock(): the purger's one thread serves every
     * pool, and this one's lock may be held for long (its thread factory blocking under it); the
     * next check tries again.
     */
    final int purgeExpiredUnlessBusy() {
        try {
            if (!lock.tryLock(PURGE_LOCK_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                return 0;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
        return purgeExpiredHoldingLock();
    }

    /**
     * Stops workers idle longer than the expiry, and starts a worker for tasks left queued with
     * none (drainerLocked). Returns how many it stopped.
     */
    final int purgeExpired() {
        lock.lock();
        return purgeExpiredHoldingLock();
    }

    /** purgeExpired's work, with the lock taken by the caller: it unlocks. */
    private int purgeExpiredHoldingLock() {
        long now = clock.getAsLong();
        List<Worker> stopped = new ArrayList<>();
        Worker drainer;
        try {
            for (Worker w; (w = idle.oldest()) != null && now - w.idleSince >= expiryNanos; ) {
                idle.pollOldest();
                retireIdleLocked(w, stopped);
            }
            idleCount = idle.size();
            drainer = drainerLocked();
        } finally {
            lock.unlock();
        }
        handOffAll(stopped, Worker.STOP);
        if (drainer != null) {
            start(drainer);
        }
        return stopped.size();
    }

    /**
     * A worker for tasks queued while the thread factory failed, with no live worker left to run
     * them (no submit may come to start one, and termination waits for the queue): made by
     * shutdown() and at each of the purger's checks until one starts. Null if none is needed, or
     * the factory failed again. Under the lock.
     */
    private Worker drainerLocked() {
        return (workerCount == 0 && state < STOP && !engine.isEmpty()) ? newWorkerLocked(null) : null;
    }

    /**
     * Stops every idle worker now; running tasks are not touched. Workers are started again on
     * demand. A worker that finished its task just before and is still looking for the next one
     * stops as soon as it finds none, without being counted in the result.
     * @return how many idle workers were stopped
     */
    public int purge() {
        List<Worker> stopped = new ArrayList<>();
        Worker s = engine.takeSpinner();
        Worker resume = null;
        lock.lock();
        try {
            purges++; // workers still looking retire as they go idle (parkIdle)
            if (s != null) {
                // A caller that registered after the spinner last looked relies on re-checking the
                // spinner, which we just took (likewise a task queued meanwhile): retiring it could
                // leave them with no worker at all, so send it to serve them instead.
                if (waiters.isEmpty() && engine.isEmpty()) {
                    retireIdleLocked(s, stopped);
                } else {
                    resume = s;
                }
            }
            idle.drain(w -> retireIdleLocked(w, stopped));
            idleCount = 0;
        } finally {
            lock.unlock();
        }
        if (resume != null) {
            resume.handOff(Worker.POLL);
        }
        handOffAll(stopped, Worker.STOP);
        return stopped.size();
    }

    /**
     * Changes the capacity now (ants {@code Tune}). Growing lets waiting callers and queued tasks
     * in at once; shrinking stops idle workers above the new capacity and lets running tasks
     * finish, after which at most {@code capacity} run.
     *
     * @param capacity the new capacity, at least 1, or -1 for unbounded
     * @throws IllegalArgumentException if capacity is 0 or below -1; nothing changes
     * @throws IllegalStateException if the pool was built with {@code preAlloc(true)}
     */
    @Override
    public void tune(int capacity) {
        PoolConfig.checkCapacity(capacity);
        if (preAlloc) {
            throw PoolConfig.preAllocFixed(name, config.capacity()); // even to the same capacity, as documented
        }
        reconfigure(c -> c.withCapacity(capacity));
    }

    /**
     * {@inheritDoc}
     *
     * <p>What each change does, at once: a larger {@code capacity} starts workers for waiting
     * callers and queued tasks, a smaller one stops idle workers above it and lets running tasks
     * finish. A larger {@code queueCapacity} moves waiting callers' tasks into the queue; a smaller
     * one drops nothing: the queue takes no new task until it holds fewer than the new bound.
     * {@code nonblocking} and {@code maxBlockingTasks} apply to callers that arrive after the
     * change; callers already waiting keep their place. A new {@code blockingTimeout} applies to
     * waiting callers too, counted from their arrival. A new {@code expiry} applies to idle workers
     * at the next expiry check. {@code queueTimeout} and {@code runTimeout} apply to tasks that
     * start and end after the change (a queued task submitted while neither a queue timeout nor a
     * listener was set has no submit time, and is not checked).
     *
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     * @throws NullPointerException if {@code change} is null or returns null; nothing changes
     */
    @Override
    public PoolConfig reconfigure(UnaryOperator<PoolConfig> change) {
        Objects.requireNonNull(change, "change");
        for (;;) {
            PoolConfig old = config;
            PoolConfig next = change.apply(old); // outside the lock: it is the caller's code
            old.checkLiveChange(next);
            List<Worker> toStart = new ArrayList<>();
            List<Worker> stopped = new ArrayList<>();
            lock.lock();
            try {
                if (config != old) {
                    continue; // another reconfiguration won: apply the change to its result
                }
                applyLocked(next);
                resizeLocked(old.capacity(), next.capacity(), toStart, stopped);
                engine.admitWaitersLocked(); // a larger queue takes waiting callers' tasks
                if (!java.util.Objects.equals(old.blockingTimeout(), next.blockingTimeout())) {
                    waiters.nudgeAll();
                }
                if (!old.expiry().equals(next.expiry()) || old.disablePurge() != next.disablePurge()) {
                    if (purgeSchedule != null) {
                        purgeSchedule.cancel(false);
                        purgeSchedule = null;
                    }
                    if (state < STOP) {
                        // Also while shut down and draining: the check starts a worker for tasks
                        // left queued with none (drainerLocked), until the pool terminates.
                        schedulePurge();
                    }
                }
            } finally {
                lock.unlock();
            }
            int c = next.capacity();
            if (c >= 0 && workerCount > c) {
                Worker s = engine.takeSpinner();
                if (s != null) {
                    s.handOff(Worker.POLL); // it re-checks capacity and retires
                }
            }
            handOffAll(stopped, Worker.STOP);
            for (Worker w : toStart) {
                if (!start(w)) {
                    engine.workerStopping(w); // gives back a searching count it never used
                }
            }
            return next;
        }
    }

    /** Makes {@code c} the live configuration; under lock. */
    private void applyLocked(PoolConfig c) {
        config = c;
        capacity = c.capacity();
        queueCapacity = c.queueCapacity();
        nonblocking = c.nonblocking();
        maxBlockingTasks = c.maxBlockingTasks();
        expiryNanos = PoolConfig.saturatedNanos(c.expiry());
        blockingTimeoutNanos = PoolConfig.nanosOrNone(c.blockingTimeout());
        queueTimeoutNanos = PoolConfig.nanosOrNone(c.queueTimeout());
        runTimeoutNanos = PoolConfig.nanosOrNone(c.runTimeout());
        stampSubmit = listeners != null || queueTimeoutNanos >= 0;
    }

    /**
     * Capacity from {@code old} to {@code capacity}, under lock: on growth, collects task-less
     * workers to start for the waiting callers and queued tasks; on shrinking, idle workers to stop.
     */
    private void resizeLocked(int old, int capacity, List<Worker> toStart, List<Worker> stopped) {
        if (capacity == old) {
            return;
        }
        if (capacity < 0 || (old >= 0 && capacity > old)) {
            // New workers start without a task and take the waiting callers' tasks (then queued
            // ones) themselves once running: a thread that cannot be created or started then
            // leaves a caller waiting, instead of accepting its task and dropping it.
            // One for each waiting caller, and for the queue only a few: each new worker that takes a
            // task with more queued wakes or starts the next (QueueEngine's searchers), so a backlog
            // brings workers up as fast as they find work, instead of a thread per queued task at once.
            int room = capacity < 0 ? Integer.MAX_VALUE : capacity - workerCount;
            int queuedDrainers = Math.min(room, MAX_DRAINERS_AT_ONCE);
            int wanted = waiters.count() + (state < STOP ? engine.queuedAtMost(queuedDrainers) : 0);
            Worker drainer = null;
            for (; wanted > 0 && state < STOP && (capacity < 0 || workerCount < capacity); wanted--) {
                drainer = newWorkerLocked(null);
                if (drainer == null) {
                    break;
                }
                toStart.add(drainer);
            }
            if (drainer != null && !engine.isEmpty()) {
                engine.startsSearching(drainer); // the first of the chain that brings up the rest
            }
        } else {
            for (Worker w; workerCount > capacity && (w = idle.pollOldest()) != null; ) {
                retireIdleLocked(w, stopped);
            }
            idleCount = idle.size();
        }
    }

    @Override
    public void addListener(PoolListener listener) {
        addListener(listener, facade);
    }

    /** Adds a listener that is told of {@code source} (MultiPool's sub-pools tell of the MultiPool). */
    void addListener(PoolListener listener, Pool source) {
        Objects.requireNonNull(listener, "listener");
        lock.lock();
        try {
            listeners = Listeners.with(listeners, listener, source);
            stampSubmit = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void removeListener(PoolListener listener) {
        removeListener(listener, facade);
    }

    /** Removes the listener added with {@code source} (MultiPool's from its sub-pools leaves their own). */
    void removeListener(PoolListener listener, Pool source) {
        lock.lock();
        try {
            listeners = Listeners.without(listeners, listener, source);
            stampSubmit = listeners != null || queueTimeoutNanos >= 0;
        } finally {
            lock.unlock();
        }
    }

    private static IdleWorkers preAllocRing(int capacity, String name) {
        try {
            return new IdleWorkers.Ring(capacity);
        } catch (OutOfMemoryError e) {
            // One array of `capacity` references: failing here leaves the heap as it was.
            throw new IllegalArgumentException("preAlloc cannot reserve an idle-worker ring of " + capacity
                    + " slots in this heap (pool '" + name + "'): lower the capacity or turn preAlloc off", e);
        }
    }


    // ---------------------------------------------------------------- lifecycle

    /**
     * Stops intake; queued and running tasks finish. Callers waiting for a worker get a
     * {@link PoolClosedException}. Does not wait; see {@link #awaitTermination}.
     */
    @Override
    public void shutdown() {
        shutdownAndGeneration();
    }

    /** shutdown(); returns the generation it shut down, read under the same lock. */
    private int shutdownAndGeneration() {
        List<Worker> woken = new ArrayList<>();
        Worker drainer = null;
        int gen;
        lock.lock();
        try {
            gen = generation;
            if (state == RUNNING) {
                state = SHUTDOWN;
            }
            closeWaitersLocked();
            idle.drain(woken::add);
            idleCount = 0;
            drainer = drainerLocked();
            tryTerminate();
        } finally {
            lock.unlock();
        }
        if (drainer != null) {
            start(drainer);
        }
        Worker s = engine.takeSpinner();
        if (s != null) {
            woken.add(s);
        }
        handOffAll(woken, Worker.POLL); // each looks at the queue and exits once it is empty
        return gen;
    }

    /** ants' {@code Release}: the same as {@link #shutdown()}. */
    public void release() {
        shutdown();
    }

    /**
     * Stops intake, interrupts running tasks, and returns every task that was accepted but never
     * started; each submitting thread's tasks come back in the order it submitted them. Callers
     * waiting for a worker get a {@link PoolClosedException}.
     * Tasks created by {@code submit} are returned as their {@link java.util.concurrent.Future}s.
     */
    @Override
    public List<Runnable> shutdownNow() {
        List<Object> pending = stopNow();
        List<Runnable> never = new ArrayList<>(pending.size());
        for (Object o : pending) {
            if (function != null) {
                Consumer<Object> f = function;
                never.add(() -> f.accept(o));
            } else {
                never.add((Runnable) o);
            }
        }
        return never;
    }

    /** The same as {@link #shutdownNow()}. */
    @Override
    public List<Runnable> releaseNow() {
        return shutdownNow();
    }

    @Override
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        return awaitTermination(PoolConfig.saturatedNanos(timeout), TimeUnit.NANOSECONDS);
    }

    /** shutdownNow() for any kind of work: returns the queued work items that never started. */
    final List<Object> stopNow() {
        return stopNow(-1);
    }

    /** stopNow() of generation {@code gen} only (-1: whatever runs): nothing if a reboot began another. */
    private List<Object> stopNow(int gen) {
        List<Object> never = new ArrayList<>();
        List<Worker> woken = new ArrayList<>();
        lock.lock();
        try {
            if (gen >= 0 && generation != gen) {
                return never;
            }
            if (state < STOP) {
                state = STOP;
            }
            closeWaitersLocked();
            List<Object> queued = new ArrayList<>();
            engine.drainTo(queued);
            for (Object t : queued) {
                never.add(original(t));
            }
            counters.returned.add(never.size());
            idle.drain(woken::add);
            idleCount = 0;
            for (Worker w : workers) {
                w.thread.interrupt(); // idle ones ignore it
            }
            tryTerminate();
        } finally {
            lock.unlock();
        }
        Worker s = engine.takeSpinner();
        if (s != null) {
            woken.add(s);
        }
        handOffAll(woken, Worker.POLL); // each sees STOP and exits
        if (function == null) { // a FunctionPool's arguments are not its own futures
            for (Object t : never) {
                if (t instanceof PoolFuture) {
                    ((PoolFuture<?>) t).dropped(); // after unlocking: a TaskGroup ends its task there
                }
            }
        }
        return never;
    }

    private void closeWaitersLocked() {
        waiters.closeAll();
    }

    /**
     * ants' {@code ReleaseTimeout}: shuts down and waits for every worker to exit.
     * @param timeout longest to wait
     * @return true if what it shut down terminated in time (a reboot by another thread meanwhile
     *         starts a pool it does not wait for)
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean releaseTimeout(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        return releaseAndAwait(PoolConfig.saturatedNanos(timeout), this);
    }

    /**
     * releaseTimeout() of these pools (this pool, or a MultiPool's): shuts each down and waits at
     * most {@code nanos} in all for the generation it shut down to terminate. awaitTermination()
     * after shutdown() read the generation again: a reboot by another thread in between made it
     * wait for the new, running one, and answer false after the whole timeout.
     */
    static boolean releaseAndAwait(long nanos, WorkerPool... pools) throws InterruptedException {
        nanos = Math.max(0L, nanos); // now + a wait of minus ages overflows into one of ages
        int[] generations = shutdownAll(pools);
        long deadline = System.nanoTime() + nanos;
        boolean all = true;
        for (int i = 0; i < pools.length; i++) {
            all &= pools[i].awaitEndOf(generations[i], deadline - System.nanoTime());
        }
        return all;
    }

    /**
     * Waits until generation {@code gen} has terminated, a reboot has started a newer one, or
     * {@code nanos} have passed; returns whether it terminated.
     */
    private boolean awaitEndOf(int gen, long nanos) throws InterruptedException {
        lock.lock();
        try {
            while (terminatedGeneration < gen && generation == gen && nanos > 0L) {
                nanos = termination.awaitNanos(nanos); // reboot() signals it too
            }
            return terminatedGeneration >= gen;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reopens a shut-down pool (ants' {@code Reboot}); does nothing if it is running. Workers that
     * are still finishing stay; new ones start on demand.
     */
    public void reboot() {
        lock.lock();
        try {
            if (state == RUNNING) {
                return;
            }
            state = RUNNING;
            generation++;
            termination.signalAll();
            schedulePurge();
        } finally {
            lock.unlock();
        }
    }

    private void schedulePurge() {
        if (!config.disablePurge() && purgeSchedule == null) {
            long period = Math.max(expiryNanos / 2, TimeUnit.MILLISECONDS.toNanos(1));
            purgeSchedule = Purger.schedule(this, period);
        }
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            int gen = generation;
            while (terminatedGeneration < gen) {
                if (generation != gen) {
                    return false; // rebooted before it terminated
                }
                if (nanos <= 0L) {
                    return false;
                }
                nanos = termination.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Shuts down and waits until every task has finished, as {@code ExecutorService.close()} does
     * on Java 19+: if interrupted while waiting, calls {@link #shutdownNow()}, keeps waiting, and
     * restores the interrupt status. Returns once the pool is rebooted by another thread instead
     * (it then runs again: the generation this close shut down has ended). Called from one of
     * the pool's own tasks it waits for ever, for that task too, as the JDK's executors do: call
     * {@link #shutdown()} there.
     */
    @Override
    public void close() {
        closeAndAwait(this);
    }

    /**
     * {@code ExecutorService.close()} of Java 19+, for Java 17: shuts the pools down (this pool,
     * or a MultiPool's sub-pools) and waits for them.
     */
    static void closeAndAwait(WorkerPool... pools) {
        // Each pool's generation as it is shut down (read under the same lock): close() waits for
        // that one to end. A reboot by another thread starts a new generation, which this close
        // leaves running, and does not stop on an interrupt (its awaitTermination would wait for
        // that one, for as long as it runs; found by reviews).
        int[] generations = shutdownAll(pools);
        boolean interrupted = false;
        for (int i = 0; i < pools.length; ) {
            try {
                pools[i].awaitEndOf(generations[i], Long.MAX_VALUE); // until it ends, or a reboot
                i++;
            } catch (InterruptedException e) {
                if (!interrupted) {
                    for (int j = 0; j < pools.length; j++) {
                        pools[j].stopNow(generations[j]); // what never started is dropped, as ExecutorService.close() does
                    }
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Shuts each pool down; returns the generation each shut down, read under the same lock. */
    private static int[] shutdownAll(WorkerPool... pools) {
        int[] generations = new int[pools.length];
        for (int i = 0; i < pools.length; i++) {
            generations[i] = pools[i].shutdownAndGeneration();
        }
        return generations;
    }


    @Override
    public boolean isShutdown() {
        return state != RUNNING;
    }

    @Override
    public boolean isTerminated() {
        return state == TERMINATED;
    }

    /** ants' {@code IsClosed}: whether the pool was shut down (and not rebooted). */
    public boolean isClosed() {
        return state != RUNNING;
    }

    // ---------------------------------------------------------------- figures

    /** Returns the pool's name. */
    public String name() {
        return name;
    }

    /** Most tasks that may run at once; -1 when unbounded (ants {@code Cap}). */
    public int capacity() {
        return capacity;
    }

    /** Tasks executing right now: busy workers (ants {@code Running} counts idle workers too). */
    public int running() {
        return Math.max(0, workerCount - idle());
    }

    /** Live workers waiting for work. */
    public int idle() {
        return idle(workerCount);
    }

    /** Idle workers of {@code workers}; searchers are idle workers that spin instead of parking (exact when quiet). */
    private int idle(int workers) {
        return Math.min(workers, idleCount + engine.idleOutsideStructure());
    }

    /** {@code capacity() - running()}, never below 0; -1 when unbounded (ants {@code Free}). */
    public int free() {
        int c = capacity;
        return c < 0 ? -1 : Math.max(0, c - running());
    }

    /** Callers blocked inside {@code execute}/{@code submit} waiting for a worker (ants {@code Waiting}). */
    public int waiting() {
        return waiters.count();
    }

    /**
     * Tasks accepted into the queue and not yet taken by a worker. An unbounded queue keeps no
     * shared count on the submitting path (a shared counter there costs a third of the
     * throughput): each submitting thread counts its own offers and each worker its own polls,
     * and this adds them up, in time that does not depend on the queue's length (it takes the
     * pool's lock and reads every live worker's count). While tasks move it is approximate;
     * it is exact when the pool is quiet.
     */
    @Override
    public int queued() {
        return engine.queued();
    }

    /** Tasks live workers took from an unbounded queue; under lock. */
    long polledByWorkersLocked() {
        long n = 0;
        for (Worker w : workers) {
            n += w.polled();
        }
        return n;
    }

    /** Returns a snapshot of the pool's levels and totals. */
    public PoolStats stats() {
        return stats(false);
    }

    /**
     * stats(); {@code forMultiPool}: without the refusals of a MultiPool's callers that it sent on
     * to another sub-pool (its totals count each such task once, where it ended), neither in
     * rejected nor in submitted.
     */
    final PoolStats stats(boolean forMultiPool) {
        Counters.Finished finished;
        long submittedNow;
        int cap;
        int running;
        int idleNow;
        int waiting;
        lock.lock();
        try {
            finished = counters.finishedLocked(workers, engine.retiredPolledLocked());
            submittedNow = counters.submitted.sum();
            cap = capacity;
            // One read of the idle count for both: a worker that starts or stops searching between
            // two reads made running + idle exceed the workers (and the capacity) for one snapshot.
            int workersNow = workerCount;
            idleNow = idle(workersNow);
            running = workersNow - idleNow;
            waiting = waiters.count();
        } finally {
            lock.unlock();
        }
        // An unbounded queue's length is its offers less the polls read above and the drains, read
        // after them (QueueEngine's notes): constant time, whatever the queue holds.
        int queuedNow = engine.queuedGivenPolled(finished.polled());
        long submittedTotal = engine.submittedTotal(submittedNow);
        long rejected = counters.rejected.sum();
        long routed = counters.routedRefused.sum(); // read after submitted: the total may read low, never high
        if (forMultiPool) {
            submittedTotal -= routed;
        } else {
            rejected += routed;
        }
        return new PoolStats(name, cap, running, idleNow, waiting, queuedNow, submittedTotal, finished.completed(),
                finished.failed(), rejected, finished.cancelled(), counters.queueTimeouts.sum(),
                counters.runTimeouts.sum());
    }

    @Override
    public PoolConfig config() {
        return config;
    }

    /**
     * Package-private seam for tests: called by a worker at a point of its search, or by a caller
     * on the full path (SEARCH_* below), so that a test can hold it there while others act; null
     * in use (a load on paths that are about to wait anyway).
     */
    volatile java.util.function.IntConsumer searchPoint;

    void atSearchPoint(int point) {
        java.util.function.IntConsumer seam = searchPoint;
        if (seam != null) {
            seam.accept(point);
        }
    }

    /** {@link #searchPoint}: the worker found the queue empty and has not looked at waiting callers yet. */
    static final int SEARCH_EMPTY_POLL = 1;

    /** {@link #searchPoint}: the worker is on the idle stack and about to look at the queue once more. */
    static final int SEARCH_IDLE_PUSHED = 2;

    /**
     * {@link #searchPoint}: a caller on the full path, holding the lock, has let the waiting
     * callers into a bounded queue as far as one count of the takes shows, and counts again.
     */
    static final int SEARCH_ROOM_RECOUNT = 3;

    /** How long an expiry check waits for the pool's lock before it leaves the pool to the next one. */
    static final long PURGE_LOCK_WAIT_MILLIS = 10;

    /** Package-private seam for tests: idle workers on the stack or ring, without the spinner. */
    final int idleInStructure() {
        return idleCount;
    }

    /**
     * Package-private seam for tests: what is wrong with the pool's internal structure, which
     * must hold once it is quiet (no caller inside, not even one spinning with its task in a
     * hand-off pool's pending slot; no task running or queued): the idle count matches the idle
     * structure, no worker searches or spins unseen, no caller waits, no pending slot is full,
     * and the bounded queue's counter matches the queue. Empty if all is well.
     */
    final List<String> quietStructureProblems() {
        List<String> problems = new ArrayList<>();
        lock.lock();
        try {
            if (idleCount != idle.size()) {
                problems.add("idleCount " + idleCount + " != idle structure size " + idle.size());
            }
            if (!waiters.isEmpty() || waiters.count() != 0) {
                problems.add("waiters left: " + waiters.count());
            }
            engine.quietProblems(problems);
            if (workerCount < 0 || workerCount > workers.size()) {
                problems.add("workerCount " + workerCount + " outside [0, live threads " + workers.size() + "]");
            }
            if (state == TERMINATED && (workerCount != 0 || idle.size() != 0)) {
                problems.add("terminated with workerCount " + workerCount + ", idle " + idle.size());
            }
        } finally {
            lock.unlock();
        }
        return problems;
    }

    /** Package-private seam for tests: whether the shared purger checks this pool. */
    final boolean hasPurgeSchedule() {
        lock.lock();
        try {
            return purgeSchedule != null;
        } finally {
            lock.unlock();
        }
    }

    /** Package-private seam for tests: worker threads that have not exited yet. */
    final List<Thread> workerThreads() {
        lock.lock();
        try {
            List<Thread> out = new ArrayList<>();
            for (Worker w : workers) {
                out.add(w.thread);
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        String s = switch (state) {
            case RUNNING -> "RUNNING";
            case SHUTDOWN -> "SHUTDOWN";
            case STOP -> "STOP";
            default -> "TERMINATED";
        };
        return "WorkerPool[" + name + ", " + s + ", capacity=" + capacity + ", running=" + running()
                 + ", idle=" + idle() + ", waiting=" + waiters.count() + ", queued=" + queued() + "]";
    }

    /** The work item a caller gave: without the submit time and the task decorator's wrapper. */
    private static Object original(Object work) {
        if (work instanceof Timed) {
            work = ((Timed) work).work;
        }
        return work instanceof Decorated ? ((Decorated) work).original : work;
    }

    /** A work item with its submit time, for a listener or the queue timeout. */
    private static final class Timed {
        final Object work;
        final long submitted;

        Timed(Object work, long submitted) {
            this.work = work;
            this.submitted = submitted;
        }
    }

    /**
     * A FutureTask that tells the worker running it (Worker.CURRENT) that it failed or was
     * cancelled, so that the pool counts it so, even inside a wrapper it cannot look into.
     */
    static final class PoolFuture<V> extends FutureTask<V> {
        // shutdownNow returned it unrun: the caller may still run it, but a TaskGroup waiting for it
        // must hear of it (whenDropped), or its awaitAll() would wait forever.
        private volatile boolean dropped;
        private volatile Runnable onDrop;
        // Who came first, run() (ENTERED) or a decorator's wrapper that threw before it was
        // called (FAILED_UNRUN, failUnrun): one claim, so that a wrapper that handed the task to
        // another thread does not end its future while it runs there.
        private static final int NOT_YET = 0;
        private static final int ENTERED = 1;
        private static final int FAILED_UNRUN = 2;
        private static final java.lang.invoke.VarHandle FIRST;

        static {
            try {
                FIRST = java.lang.invoke.MethodHandles.lookup().findVarHandle(PoolFuture.class, "first", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private volatile int first;
        // The failure of a wrapper that came first (failUnrun), and who is told of it (a TaskGroup,
        // whose task otherwise stays pending).
        private volatile Throwable unrunFailure;
        private volatile Consumer<Throwable> onUnrunFailure;

        PoolFuture(Callable<V> callable) {
            super(callable);
        }

        PoolFuture(Runnable runnable, V value) {
            super(runnable, value);
        }

        /**
         * Runs {@code action} once the pool returns this future unrun from shutdownNow (at once if
         * it has already): possibly twice, if the two race, so it must be idempotent.
         */
        void whenDropped(Runnable action) {
            onDrop = action;
            if (dropped) {
                action.run();
            }
        }

        void dropped() {
            dropped = true;
            Runnable action = onDrop;
            if (action != null) {
                action.run();
            }
        }

        /**
         * Runs the task; tells the worker running it, if any, that it was cancelled, before it
         * started (the worker checks its own tasks before it runs them: this one is in a wrapper)
         * or while it ran (its future holds a cancellation, whatever the task then threw).
         */
        @Override
        public void run() {
            if (first != ENTERED && !FIRST.compareAndSet(this, NOT_YET, ENTERED)) {
                return; // failUnrun came first (it has ended the future), or another run() is under way
            }
            if (!isCancelled()) {
                super.run();
                if (!isCancelled()) {
                    return;
                }
            }
            Worker w = Worker.CURRENT.get();
            if (w != null) {
                w.futureCancelled = true;
            }
        }

        /**
         * Ends it with {@code t}, the failure of a decorator's wrapper, unless run() was called
         * first (by the wrapper, or on a thread it handed the task to), or it has ended. A task
         * handed to another thread that has not run it yet will not run there.
         */
        void failUnrun(Throwable t) {
            if (FIRST.compareAndSet(this, NOT_YET, FAILED_UNRUN)) {
                super.setException(t); // the worker counts the wrapper's failure already
                unrunFailure = t;
                Consumer<Throwable> action = onUnrunFailure;
                if (action != null) {
                    action.accept(t);
                }
            }
        }

        /**
         * Runs {@code action} with the failure of a decorator's wrapper that ended this future
         * before it ran (at once if it has already): possibly twice, if the two race, so it must
         * be idempotent.
         */
        void whenFailedUnrun(Consumer<Throwable> action) {
            onUnrunFailure = action;
            Throwable t = unrunFailure;
            if (t != null) {
                action.accept(t);
            }
        }

        /** Tells the worker running it, if any, so that the pool counts the task as failed. */
        @Override
        protected void setException(Throwable t) {
            super.setException(t);
            if (!isCancelled()) {
                Worker w = Worker.CURRENT.get();
                if (w != null) {
                    w.futureFailed = t;
                }
            }
        }
    }

    /** A task wrapped by the task decorator, with the original kept for counting and shutdownNow. */
    private static final class Decorated implements Runnable {
        final Runnable original;
        final Runnable decorated;

        Decorated(Runnable original, Runnable decorated) {
            this.original = original;
            this.decorated = Objects.requireNonNull(decorated, "taskDecorator returned null");
        }

        @Override
        public void run() {
            decorated.run();
        }
    }

    /**
     * What a pool is built from: the options and the parts that are not options. An immutable
     * snapshot of a {@link Builder}, checked as a whole.
     */
    record Settings(PoolConfig config, ThreadFactory threadFactory, Consumer<Throwable> panicHandler,
            UnaryOperator<Runnable> taskDecorator, List<PoolListener> listeners, long spinNanos,
            LongSupplier clock) {

        /** The same settings without listeners. */
        Settings withoutListeners() {
            return new Settings(config, threadFactory, panicHandler, taskDecorator, List.of(), spinNanos, clock);
        }

        /** The same settings for a pool of another name (MultiPool's sub-pools). */
        Settings named(String name) {
            return new Settings(config.withName(name), threadFactory, panicHandler, taskDecorator, listeners,
                    spinNanos, clock);
        }
    }

    /**
     * Builds a {@link WorkerPool}. Every setter checks its argument at once and throws
     * {@link IllegalArgumentException} naming the option and the value. A builder may be reused:
     * each {@link #build()} takes a snapshot of it.
     */
    public static final class Builder {
        private PoolConfig config = PoolConfig.DEFAULTS;
        private boolean capacitySet;
        private ThreadFactory threadFactory;
        private Consumer<Throwable> panicHandler;
        private UnaryOperator<Runnable> taskDecorator;
        private final List<PoolListener> listeners = new ArrayList<>();
        private long spinNanos = -1;
        private LongSupplier clock;

        Builder() {
        }

        /** Name used in thread names, errors and meters; default {@code "pool"}. */
        public Builder name(String name) {
            config = config.withName(name);
            return this;
        }

        /** Most tasks that may run at once, at least 1, or -1 for unbounded (ants {@code Cap}); required. */
        public Builder capacity(int capacity) {
            config = config.withCapacity(capacity);
            capacitySet = true;
            return this;
        }

        /** How long a worker may stay idle before it stops (ants {@code ExpiryDuration}); default 60 s. */
        public Builder expiry(Duration expiry) {
            config = config.withExpiry(expiry);
            return this;
        }

        /** Whether idle workers never expire (ants {@code DisablePurge}); default false. */
        public Builder disablePurge(boolean disablePurge) {
            config = config.withDisablePurge(disablePurge);
            return this;
        }

        /**
         * Whether to allocate the idle-worker ring for {@code capacity} workers up front and reuse
         * idle workers longest-idle first (ants {@code PreAlloc}); needs a bounded capacity, and the
         * pool cannot be tuned. Default false.
         */
        public Builder preAlloc(boolean preAlloc) {
            config = config.withPreAlloc(preAlloc);
            return this;
        }

        /**
         * Tasks held while every worker is busy; 0 (the default) hands tasks straight to workers, as
         * ants does; {@link Integer#MAX_VALUE} is unbounded.
         */
        public Builder queueCapacity(int queueCapacity) {
            config = config.withQueueCapacity(queueCapacity);
            return this;
        }

        /** Whether a full pool rejects at once instead of making the caller wait (ants {@code Nonblocking}); default false. */
        public Builder nonblocking(boolean nonblocking) {
            config = config.withNonblocking(nonblocking);
            return this;
        }

        /** Most callers that may wait when the pool is full, 0 for no limit (ants {@code MaxBlockingTasks}); default 0. */
        public Builder maxBlockingTasks(int maxBlockingTasks) {
            config = config.withMaxBlockingTasks(maxBlockingTasks);
            return this;
        }

        /** Longest a caller waits for a worker before rejection; null (the default) waits as long as it takes. */
        public Builder blockingTimeout(Duration blockingTimeout) {
            config = config.withBlockingTimeout(blockingTimeout);
            return this;
        }

        /**
         * A task that starts later than this after it was submitted is counted
         * ({@link PoolStats#queueTimeouts()}) and reported to listeners; it still runs. Null (the
         * default) checks nothing and reads no clock.
         */
        public Builder queueTimeout(Duration queueTimeout) {
            config = config.withQueueTimeout(queueTimeout);
            return this;
        }

        /**
         * A task that runs longer than this is counted ({@link PoolStats#runTimeouts()}) and reported
         * to listeners; it is not interrupted. Null (the default) checks nothing and reads no clock.
         */
        public Builder runTimeout(Duration runTimeout) {
            config = config.withRunTimeout(runTimeout);
            return this;
        }

        /**
         * Whether workers are virtual threads (Java 21+; on Java 17 {@link #build()} fails); default false.
         * A virtual worker moves to a new virtual thread of the same name after 16, 128, 1,024, ...
         * tasks (a thread started before the JIT compiled the worker's loop would otherwise unmount
         * and remount through the JVM's slow path at every park for its whole life), so a value a
         * task leaves in a {@code ThreadLocal} may be gone for a later task of the same worker.
         */
        public Builder virtualThreads(boolean virtualThreads) {
            config = config.withVirtualThreads(virtualThreads);
            return this;
        }

        /**
         * Factory for worker threads; default: platform, non-daemon threads named {@code name-N}.
         * It is called under the pool's lock, when a worker is needed. A factory that returns null,
         * throws, or returns a thread it started already counts as failing: logged (at most once a
         * minute), and the task waits for a live worker, is queued, or is refused with a
         * {@link PoolOverloadException} naming the factory when no worker is alive. Not with
         * {@link #virtualThreads(boolean) virtualThreads(true)}, which makes its own threads.
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
            config = config.withCustomThreadFactory(true);
            return this;
        }

        /** Gets what an {@code execute}d task threw; the worker survives (ants {@code PanicHandler}). Default: log. */
        public Builder panicHandler(Consumer<Throwable> panicHandler) {
            this.panicHandler = Objects.requireNonNull(panicHandler, "panicHandler");
            return this;
        }

        /**
         * Wraps each task when it is submitted, on the submitting thread, so that context (MDC,
         * security, tracing) can travel with it; default none. The wrapper runs the task on the
         * worker's thread. One that throws without having run it ends the future of a task given
         * to {@code submit} or {@code invokeAll}, or a {@link TaskGroup}'s task, with that
         * failure, and {@code invokeAny} goes on to its next task; a task whose future the pool
         * cannot see into (an {@code ExecutorCompletionService}'s, or
         * {@code CompletableFuture.runAsync}'s) is then never run and its future never ends, as
         * with {@code ThreadPoolExecutor}: keep wrappers from throwing.
         */
        public Builder taskDecorator(UnaryOperator<Runnable> taskDecorator) {
            this.taskDecorator = Objects.requireNonNull(taskDecorator, "taskDecorator");
            return this;
        }

        /** Adds a listener for the pool's tasks, as {@link Pool#addListener} does after the build. */
        public Builder listener(PoolListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** Test seam: how long a worker that just went idle spins before parking. */
        Builder spinNanos(long spinNanos) {
            this.spinNanos = spinNanos;
            return this;
        }

        /** Test seam: the clock used for idle times and task times. */
        Builder clock(LongSupplier clock) {
            this.clock = clock;
            return this;
        }

        /** The builder's name, for MultiPool. */
        String name() {
            return config.name();
        }

        /**
         * An immutable snapshot of this builder, checked as a whole.
         * @throws IllegalStateException if no capacity was set
         * @throws IllegalArgumentException if options contradict each other
         */
        Settings settings() {
            if (!capacitySet) {
                throw new IllegalStateException("capacity is required: call capacity(n) with n >= 1, "
                        + "or capacity(-1) for an unbounded pool (pool '" + config.name() + "')");
            }
            config.checkWhole();
            return new Settings(config, threadFactory, panicHandler, taskDecorator, List.copyOf(listeners),
                    spinNanos, clock);
        }

        /**
         * Builds the pool; its workers start on demand.
         * @throws IllegalStateException if no capacity was set, or virtual threads are asked for on Java 17
         * @throws IllegalArgumentException if preAlloc is combined with an unbounded capacity, or
         *         virtualThreads with a threadFactory
         */
        public WorkerPool build() {
            return new WorkerPool(settings(), null, null);
        }
    }
}
