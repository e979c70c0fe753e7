package io.github.workerpool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * Several {@link WorkerPool}s behind one {@link java.util.concurrent.ExecutorService}, so that
 * submitters contend on N pool locks instead of one: ants' {@code MultiPool}.
 *
 * <p>Each task goes to one sub-pool, chosen by the {@link LoadBalancing} strategy. If the chosen
 * pool is full (no free worker and no queue room), the others are tried in turn without
 * blocking and without counting a rejection; only if every pool is full does the task get the
 * chosen pool's full-pool treatment: the caller waits there (blocking pools) or is rejected
 * (nonblocking pools). A chosen pool with no live worker (its thread factory failed) gives its
 * turn to the next one that has a worker to wait for. A sub-pool shut down on its own
 * ({@code pool(i).shutdown()}) is out of the rotation until it is rebooted; a caller that was
 * waiting in it is sent on to the open ones.
 *
 * <pre>{@code
 * try (MultiPool pools = MultiPool.of(4, WorkerPool.builder().name("ingest").capacity(64),
 *         MultiPool.LoadBalancing.LEAST_TASKS)) {
 *     pools.execute(() -> handle(event));       // 4 pools of 64 workers, named ingest-0..ingest-3
 *     pools.pool(2).tune(128);                  // one sub-pool, live
 * }
 * }</pre>
 *
 * <p>Counts ({@link #running()}, {@link #stats()}...) are sums over the sub-pools; per-pool ones
 * are read from {@link #pool(int)}; a sub-pool that refuses a task (full, or shut down meanwhile)
 * so that another one runs it counts nothing for it, except one shut down before it let in a task
 * the multi-pool gave it once every pool was full (the caller may have been waiting there): that
 * refusal counts in the sub-pool's own stats and is told to its own listeners, not in the
 * multi-pool's or to its listeners, and the caller is sent on to the open sub-pools, its
 * {@code blockingTimeout} counted from when it began to wait. Lifecycle calls
 * ({@code shutdown}, {@code release}, {@code reboot}...) apply to every sub-pool; so do
 * {@link #tune} and {@link #reconfigure}, each sub-pool getting the value, while
 * {@link #capacity()} is the sum ({@code m.tune(m.capacity())} multiplies it by {@link #size()}).
 *
 * <p>Memory consistency effects: actions in a thread before it submits a task happen-before the
 * task runs, whichever sub-pool runs it.
 *
 * <p>This class is thread-safe.
 */
public final class MultiPool extends InvokingExecutorService implements Pool {

    /** How {@link MultiPool} picks the sub-pool for a task. */
    public enum LoadBalancing {
        /** Each task goes to the next pool in turn. */
        ROUND_ROBIN,
        /**
         * Each task goes to the least busy pool: fewest tasks running, queued and waiting to get
         * in (ants counts only running ones). Ties go round-robin. With unbounded queues the
         * queued count is read once in 16 choices (it takes the sub-pool's lock); in between,
         * each task sent to a pool counts as queued there.
         */
        LEAST_TASKS
    }

    private final String name;
    private final WorkerPool[] pools;
    private final LoadBalancing loadBalancing;
    private final AtomicInteger next = new AtomicInteger();
    private final LongAdder closedRejections = new LongAdder();
    /**
     * LEAST_TASKS: per sub-pool (at i * CELL), its queued() as last read plus the tasks sent to it
     * since; races between choices only blur an estimate the next read replaces.
     */
    private final AtomicIntegerArray queuedSeen;
    /** Whether the sub-pools' queues are unbounded (a queue's kind cannot change live). */
    private final boolean unboundedQueues;
    /** Serializes tune/reconfigure, so that two at once cannot leave the sub-pools with different options. */
    private final ReentrantLock reconfiguring = new ReentrantLock(); // not a monitor: no pinning of a virtual thread

    private MultiPool(String name, WorkerPool[] pools, LoadBalancing loadBalancing) {
        this.name = name;
        this.pools = pools;
        this.loadBalancing = loadBalancing;
        this.queuedSeen = new AtomicIntegerArray(pools.length * CELL);
        this.unboundedQueues = pools[0].config().queueCapacity() == Integer.MAX_VALUE;
    }

    /**
     * Creates {@code size} pools from one builder, named after it with the index appended
     * ({@code name-0}, {@code name-1}, ...); the multi-pool itself takes the builder's name.
     *
     * @param size          how many pools, at least 1
     * @param poolBuilder   options of every sub-pool; {@code capacity} is per pool. The builder may be reused.
     * @param loadBalancing how a task's pool is chosen
     * @return the new multi-pool
     * @throws IllegalArgumentException if size is below 1, or the builder's options contradict each other
     * @throws IllegalStateException if the builder has no capacity
     */
    public static MultiPool of(int size, WorkerPool.Builder poolBuilder, LoadBalancing loadBalancing) {
        if (size < 1) {
            throw new IllegalArgumentException("size (number of pools) must be at least 1, but was " + size);
        }
        Objects.requireNonNull(poolBuilder, "poolBuilder");
        Objects.requireNonNull(loadBalancing, "loadBalancing");
        WorkerPool.Settings settings = poolBuilder.settings();
        String base = settings.config().name();
        WorkerPool[] pools = new WorkerPool[size];
        try {
            for (int i = 0; i < size; i++) {
                // The builder's listeners are added below, to be told of the multi-pool.
                pools[i] = new WorkerPool(settings.named(base + "-" + i)
                        .withoutListeners(), null, null);
            }
        } catch (RuntimeException e) {
            for (WorkerPool p : pools) {
                if (p != null) {
                    p.shutdownNow();
                }
            }
            throw e;
        }
        for (WorkerPool p : pools) {
            p.multiPoolName = base; // its refusals of tasks this multi-pool routed are the multi-pool's
        }
        MultiPool multi = new MultiPool(base, pools, loadBalancing);
        for (PoolListener l : settings.listeners()) {
            multi.addListener(l);
        }
        return multi;
    }

    // ---------------------------------------------------------------- submission

    /**
     * Runs the task on one of the sub-pools, chosen as described in the class documentation.
     *
     * @throws PoolOverloadException if every pool is full and the chosen one may not wait, or
     *         its wait ended without a worker
     * @throws PoolClosedException if the multi-pool is shut down (every sub-pool is), also if it
     *         was shut down while the caller waited
     * @throws NullPointerException if task is null
     */
    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        int n = pools.length;
        int first = choose();
        // Decorated once, however many pools are tried: the sub-pools share the builder's decorator.
        Object work = pools[first].decorated(task);
        long waitingSince = 0L;
        long submittedAt = 0L;
        for (;;) {
            for (int k = 0; k < n; k++) {
                if (pools[(first + k) % n].tryWork(work, waitingSince != 0L, submittedAt)) {
                    return;
                }
            }
            // Every pool is full: give the task the chosen pool's full-pool treatment (wait or
            // reject); one shut down on its own is out of the rotation, and one with no live
            // worker (its thread factory failed just now) is passed over for one with a worker
            // to wait for.
            WorkerPool chosen = openFrom(first);
            if (chosen != null && chosen.workerCount == 0) {
                WorkerPool withWorker = openWithWorkerFrom(first);
                if (withWorker != null) {
                    chosen = withWorker;
                }
            }
            if (chosen == null) {
                throw rejectClosed();
            }
            if (waitingSince == 0L) {
                waitingSince = System.nanoTime();
                if (waitingSince == 0L) {
                    waitingSince = 1L; // 0 means "from now" to the sub-pool
                }
                submittedAt = chosen.clockNow(); // the sub-pools share the builder's clock
            }
            if (chosen.submitWorkRouted(work, waitingSince, submittedAt)) {
                return;
            }
            // It was shut down before it let the task in: on its own (the task goes round again,
            // to the open ones, waiting blockingTimeout in all), or with the others (the next round
            // refuses it as the multi-pool's). The sub-pool counted that refusal apart (Counters.routedRefused).
        }
    }

    /** Refusals of sub-pools shut down before they let a task in, sent on to others (for tests). */
    long rerouted() {
        long sum = 0;
        for (WorkerPool p : pools) {
            sum += p.counters.routedRefused.sum();
        }
        return sum;
    }

    /** The first sub-pool from index {@code first} on (cyclically) that is not shut down; null if none. */
    private WorkerPool openFrom(int first) {
        int n = pools.length;
        for (int k = 0; k < n; k++) {
            WorkerPool p = pools[(first + k) % n];
            if (!p.isClosed()) {
                return p;
            }
        }
        return null;
    }

    /** As openFrom, but only a sub-pool with a live worker; null if none. */
    private WorkerPool openWithWorkerFrom(int first) {
        int n = pools.length;
        for (int k = 0; k < n; k++) {
            WorkerPool p = pools[(first + k) % n];
            if (!p.isClosed() && p.workerCount > 0) {
                return p;
            }
        }
        return null;
    }

    /** Counts and tells the multi-pool's listeners (not the sub-pools' own) that it is shut down. */
    private PoolClosedException rejectClosed() {
        closedRejections.increment();
        PoolClosedException closed = new PoolClosedException(name, "multi-pool '" + name
                + "' is shut down (release/shutdown was called) and accepts no tasks; call reboot() to reopen it");
        pools[0].tellRejected(closed, this); // every sub-pool has the multi-pool's listeners
        return closed;
    }

    private int choose() {
        int n = pools.length;
        int ticket = next.getAndIncrement();
        int start = Math.floorMod(ticket, n);
        if (loadBalancing == LoadBalancing.ROUND_ROBIN || n == 1) {
            // A sub-pool shut down on its own gives up its turns, each to the next turn in line
            // (not to its neighbour, which would then get two turns in a round).
            for (int k = 1; k < n && pools[start].isClosed(); k++) {
                start = Math.floorMod(next.getAndIncrement(), n);
            }
            return start;
        }
        // An unbounded queue's queued() takes the sub-pool's lock (its count is summed over its
        // workers): read once in QUEUED_READ_EVERY choices; read for every choice, it cut
        // LEAST_TASKS to a third of ROUND_ROBIN's throughput. Other engines' counts are lock-free.
        boolean read = !unboundedQueues || (ticket & (QUEUED_READ_EVERY - 1)) == 0;
        int best = start;
        long bestLoad = Long.MAX_VALUE;
        for (int k = 0; k < n; k++) {
            int i = (start + k) % n;
            WorkerPool p = pools[i];
            if (p.isClosed()) {
                continue; // shut down on its own: out of the rotation, not the least busy
            }
            int queued;
            if (read) {
                queued = p.queued();
                queuedSeen.set(i * CELL, queued);
            } else {
                queued = queuedSeen.get(i * CELL);
            }
            long load = (long) p.running() + queued + p.waiting();
            if (load < bestLoad) {
                best = i;
                bestLoad = load;
            }
        }
        if (unboundedQueues) {
            // Until the next read, each task sent counts as queued, so that the choices in between
            // spread over the pools instead of all going to the one that looked least busy.
            queuedSeen.incrementAndGet(best * CELL);
        }
        return best;
    }

    /** LEAST_TASKS reads each sub-pool's queued() once in this many choices (a power of two). */
    static final int QUEUED_READ_EVERY = 16;

    /** Ints between two sub-pools' cells of queuedSeen: one cache line each. */
    private static final int CELL = 16;

    /** Whether the pool is one of this multi-pool's. */
    boolean owns(WorkerPool pool) {
        for (WorkerPool own : pools) {
            if (own == pool) {
                return true;
            }
        }
        return false;
    }

    /** Returns a future that lets the sub-pool count a task that threw as failed. */
    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new WorkerPool.PoolFuture<>(runnable, value);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new WorkerPool.PoolFuture<>(callable);
    }

    // ---------------------------------------------------------------- figures

    /** Returns the multi-pool's name (its sub-pools are named {@code name-0}, {@code name-1}, ...). */
    @Override
    public String name() {
        return name;
    }

    /** Returns how many sub-pools there are. */
    public int size() {
        return pools.length;
    }

    /**
     * Returns sub-pool {@code index}, for its own counts, {@code stats()} or {@code tune}.
     * Shutting one down on its own takes it out of the rotation until it is rebooted.
     * @throws IndexOutOfBoundsException if index is not in {@code [0, size())}
     */
    public WorkerPool pool(int index) {
        Objects.checkIndex(index, pools.length);
        return pools[index];
    }

    /** Returns the sub-pools in index order, as an unmodifiable list. */
    public List<WorkerPool> pools() {
        return Collections.unmodifiableList(java.util.Arrays.asList(pools.clone()));
    }

    /** Returns the load-balancing strategy. */
    public LoadBalancing loadBalancing() {
        return loadBalancing;
    }

    /**
     * Sum of the sub-pools' capacities; -1 if any is unbounded. A sub-pool taken out of the
     * rotation ({@code pool(i).shutdown()}) while others are open counts only the tasks it still
     * runs, so that a multi-pool whose open sub-pools are all busy reads as full.
     */
    @Override
    public int capacity() {
        boolean anyOpen = anyOpen();
        int sum = 0;
        for (WorkerPool p : pools) {
            sum = plus(sum, outOfRotation(p, anyOpen) ? p.running() : p.capacity());
        }
        return sum;
    }

    /** A closed sub-pool while another is open: taken out of the rotation, not the multi-pool's shutdown. */
    private static boolean outOfRotation(WorkerPool p, boolean anyOpen) {
        return anyOpen && p.isClosed();
    }

    /** Whether a sub-pool is open: then the closed ones are out of the rotation, not the multi-pool's shutdown. */
    private boolean anyOpen() {
        for (WorkerPool p : pools) {
            if (!p.isClosed()) {
                return true;
            }
        }
        return false;
    }

    /** A sum of capacities or free slots: -1 (unbounded) if either is, else capped at Integer.MAX_VALUE. */
    private static int plus(int sum, int n) {
        return (sum < 0 || n < 0) ? -1 : (int) Math.min(Integer.MAX_VALUE, (long) sum + n);
    }

    /** Tasks executing right now, over all sub-pools. */
    @Override
    public int running() {
        int sum = 0;
        for (WorkerPool p : pools) {
            sum += p.running();
        }
        return sum;
    }

    /** Idle workers, over all sub-pools. */
    @Override
    public int idle() {
        int sum = 0;
        for (WorkerPool p : pools) {
            sum += p.idle();
        }
        return sum;
    }

    /**
     * Sum of the sub-pools' {@code free()}; -1 if any is unbounded. A sub-pool out of the rotation
     * has none (as {@link #capacity()} counts it).
     */
    @Override
    public int free() {
        boolean anyOpen = anyOpen();
        int sum = 0;
        for (WorkerPool p : pools) {
            sum = plus(sum, outOfRotation(p, anyOpen) ? 0 : p.free());
        }
        return sum;
    }

    /** Callers blocked waiting for a worker, over all sub-pools. */
    @Override
    public int waiting() {
        int sum = 0;
        for (WorkerPool p : pools) {
            sum += p.waiting();
        }
        return sum;
    }

    /** Tasks queued and not yet started, over all sub-pools. */
    @Override
    public int queued() {
        int sum = 0;
        for (WorkerPool p : pools) {
            sum += p.queued();
        }
        return sum;
    }

    /**
     * Most tasks the sub-pools' queues hold together; {@link Integer#MAX_VALUE} if any is
     * unbounded. A sub-pool out of the rotation counts the tasks it still holds, no room.
     */
    @Override
    public int queueCapacity() {
        boolean anyOpen = anyOpen();
        long sum = 0;
        for (WorkerPool p : pools) {
            sum += outOfRotation(p, anyOpen) ? p.queued() : p.config().queueCapacity();
        }
        return (int) Math.min(Integer.MAX_VALUE, sum);
    }

    /**
     * Returns the sum of the sub-pools' snapshots under the multi-pool's name (capacity -1 if
     * any is unbounded), plus the tasks refused because the multi-pool was shut down; the totals
     * add up as for one pool.
     */
    @Override
    public PoolStats stats() {
        int capacity = 0;
        int running = 0;
        int idle = 0;
        int waiting = 0;
        int queued = 0;
        long closed = closedRejections.sum();
        long submitted = closed;
        long completed = 0;
        long failed = 0;
        long rejected = closed;
        long cancelled = 0;
        long queueTimeouts = 0;
        long runTimeouts = 0;
        boolean anyOpen = anyOpen();
        for (WorkerPool p : pools) {
            PoolStats s = p.stats(true); // without the refusals sent on to another sub-pool
            capacity = plus(capacity, outOfRotation(p, anyOpen) ? s.running() : s.capacity());
            running += s.running();
            idle += s.idle();
            waiting += s.waiting();
            queued += s.queued();
            submitted += s.submitted();
            completed += s.completed();
            failed += s.failed();
            rejected += s.rejected();
            cancelled += s.cancelled();
            queueTimeouts += s.queueTimeouts();
            runTimeouts += s.runTimeouts();
        }
        return new PoolStats(name, capacity, running, idle, waiting, queued, submitted, completed, failed,
                rejected, cancelled, queueTimeouts, runTimeouts);
    }

    // ---------------------------------------------------------------- tune, purge

    /**
     * Sets every sub-pool's capacity (ants {@code MultiPool.Tune}); to tune one, use
     * {@code pool(i).tune(c)}. Arguments are checked before any pool changes.
     * @param capacityPerPool the new capacity of each pool, at least 1, or -1 for unbounded
     * @throws IllegalArgumentException if capacityPerPool is 0 or below -1
     * @throws IllegalStateException if the pools were built with {@code preAlloc(true)}
     */
    @Override
    public void tune(int capacityPerPool) {
        PoolConfig.checkCapacity(capacityPerPool);
        PoolConfig first = pools[0].config();
        if (first.preAlloc()) {
            throw PoolConfig.preAllocFixed(name, first.capacity()); // even to the same capacity, as WorkerPool's
        }
        reconfigure(c -> c.withCapacity(capacityPerPool));
    }

    /**
     * The options of each sub-pool, under the multi-pool's name: those of sub-pool 0 ({@code capacity}
     * is per pool, while {@link #capacity()} is the sum).
     */
    @Override
    public PoolConfig config() {
        return pools[0].config().withName(name);
    }

    /**
     * Applies {@code change} to every sub-pool, as {@link WorkerPool#reconfigure} does for one
     * (options are per pool, as for {@link #tune}): each sub-pool's own current options, under the
     * multi-pool's name, go through {@code change}, so a change composes with one made to a single
     * sub-pool meanwhile. Calls on the multi-pool ({@code tune} too) take turns, so every sub-pool
     * gets them in the same order; {@code change} should be quick, as a later call waits for it. To
     * change one sub-pool, use {@code pool(i).reconfigure(...)}. The change is checked against every
     * sub-pool before any changes, and a sub-pool that refuses it all the same (one changed on its
     * own meanwhile) puts back those changed before it: the sub-pools never end up split.
     *
     * @return the options of sub-pool 0 afterwards, under the multi-pool's name
     * @throws IllegalArgumentException {@inheritDoc}
     * @throws IllegalStateException {@inheritDoc}
     * @throws NullPointerException if {@code change} is null or returns null; nothing changes
     */
    @Override
    public PoolConfig reconfigure(UnaryOperator<PoolConfig> change) {
        Objects.requireNonNull(change, "change");
        reconfiguring.lock();
        try {
            for (WorkerPool p : pools) {
                // Checked under the multi-pool's name, so a refusal names it, not sub-pool 0.
                PoolConfig own = p.config().withName(name);
                own.checkLiveChange(change.apply(own));
            }
            // What each sub-pool had and got, as its reconfigure applied it (the last call of the
            // function is the one that took).
            PoolConfig[] before = new PoolConfig[pools.length];
            PoolConfig[] after = new PoolConfig[pools.length];
            int changed = 0;
            try {
                for (; changed < pools.length; changed++) {
                    int k = changed;
                    pools[k].reconfigure(c -> {
                        before[k] = c;
                        return after[k] = apply(change, c);
                    });
                }
            } catch (RuntimeException | Error e) {
                // The change passed the check and was refused later (a sub-pool changed on its own
                // in between, or a change that answers differently each call): the sub-pools
                // changed already go back, so that they never end up split; one changed again
                // since (its own adaptive sizing, a change of it alone) keeps that change.
                for (int i = 0; i < changed; i++) {
                    PoolConfig was = before[i];
                    PoolConfig got = after[i];
                    try {
                        PoolConfig now = pools[i].reconfigure(c -> c.equals(got) ? was : c);
                        if (!now.equals(was)) {
                            e.addSuppressed(new IllegalStateException("sub-pool '" + pools[i].name()
                                    + "' was changed again meanwhile and keeps " + now + " instead of going back to " + was));
                        }
                    } catch (RuntimeException rollback) {
                        e.addSuppressed(rollback);
                    }
                }
                throw e;
            }
            return config();
        } finally {
            reconfiguring.unlock();
        }
    }

    /** The change applied to a sub-pool's options as if they were the multi-pool's. */
    private PoolConfig apply(UnaryOperator<PoolConfig> change, PoolConfig own) {
        PoolConfig next = change.apply(own.withName(name));
        // A result under another name than the multi-pool's is left so, to be refused as a rename.
        return next != null && name.equals(next.name()) ? next.withName(own.name()) : next;
    }

    /** Adds a listener to every sub-pool; it is told of this multi-pool. */
    @Override
    public void addListener(PoolListener listener) {
        Objects.requireNonNull(listener, "listener");
        for (WorkerPool p : pools) {
            p.addListener(listener, this);
        }
    }

    /** Removes a listener added here, from every sub-pool; one added to a sub-pool itself stays there. */
    @Override
    public void removeListener(PoolListener listener) {
        for (WorkerPool p : pools) {
            p.removeListener(listener, this);
        }
    }

    /**
     * Stops every idle worker of every sub-pool now.
     * @return how many idle workers were stopped
     */
    @Override
    public int purge() {
        int sum = 0;
        for (WorkerPool p : pools) {
            sum += p.purge();
        }
        return sum;
    }

    // ---------------------------------------------------------------- lifecycle

    /** Shuts every sub-pool down: intake stops, queued and running tasks finish. Does not wait. */
    @Override
    public void shutdown() {
        for (WorkerPool p : pools) {
            p.shutdown();
        }
    }

    /** ants' {@code Release}: the same as {@link #shutdown()}. */
    @Override
    public void release() {
        shutdown();
    }

    /**
     * ants' {@code ReleaseTimeout}: shuts every sub-pool down and waits, within one overall
     * timeout, for all their workers to exit.
     * @param timeout longest to wait in total
     * @return true if every sub-pool terminated in time
     * @throws InterruptedException if interrupted while waiting
     */
    @Override
    public boolean releaseTimeout(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        return WorkerPool.releaseAndAwait(PoolConfig.saturatedNanos(timeout), pools);
    }

    /** Reopens every shut-down sub-pool (ants {@code Reboot}). */
    @Override
    public void reboot() {
        for (WorkerPool p : pools) {
            p.reboot();
        }
    }

    /** Whether every sub-pool is shut down (ants {@code IsClosed}). */
    @Override
    public boolean isClosed() {
        for (WorkerPool p : pools) {
            if (!p.isClosed()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Stops every sub-pool as {@link WorkerPool#shutdownNow()} does and returns the tasks that
     * never started, pool by pool.
     */
    @Override
    public List<Runnable> shutdownNow() {
        return releaseNow();
    }

    /** The same as {@link #shutdownNow()}. */
    @Override
    public List<Runnable> releaseNow() {
        List<Runnable> never = new ArrayList<>();
        for (WorkerPool p : pools) {
            never.addAll(p.shutdownNow());
        }
        return never;
    }

    @Override
    public boolean isShutdown() {
        return isClosed();
    }

    @Override
    public boolean isTerminated() {
        for (WorkerPool p : pools) {
            if (!p.isTerminated()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        return awaitTermination(PoolConfig.saturatedNanos(timeout), TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        // The budget, not a deadline: now + a wait of minus ages overflows into one of ages.
        long budget = unit.toNanos(timeout);
        long start = System.nanoTime();
        for (WorkerPool p : pools) {
            long left = budget - (System.nanoTime() - start);
            if (!p.awaitTermination(Math.min(left, budget), TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Shuts down and waits until every task has finished; if interrupted while waiting, stops
     * every sub-pool as {@link #shutdownNow()} does, keeps waiting, and restores the interrupt status.
     * A sub-pool rebooted by another thread meanwhile is not waited for; the others are.
     */
    @Override
    public void close() {
        WorkerPool.closeAndAwait(pools);
    }

    @Override
    public String toString() {
        return "MultiPool[" + name + ", " + pools.length + " pools, " + loadBalancing + ", capacity=" + capacity()
                + ", running=" + running() + ", idle=" + idle() + ", waiting=" + waiting() + ", queued="
                + queued() + "]";
    }
}
