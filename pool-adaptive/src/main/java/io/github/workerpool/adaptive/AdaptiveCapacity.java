package io.github.workerpool.adaptive;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

import com.netflix.concurrency.limits.Limit;
import io.github.workerpool.MultiPool;
import io.github.workerpool.Pool;
import io.github.workerpool.PoolListener;

/**
 * Sizes a {@link Pool} from its tasks' latency: the pool's capacity follows a limit that Netflix
 * concurrency-limits computes ({@link Algorithm#GRADIENT2}, {@link Algorithm#AIMD},
 * {@link Algorithm#VEGAS}), always within {@code [minCapacity, maxCapacity]}. Made for pools in
 * front of something with a limit of its own (a database, a remote API): the pool grows while
 * run time holds and backs off when it rises.
 *
 * <pre>{@code
 * WorkerPool pool = WorkerPool.builder().name("db").capacity(20).queueCapacity(1000).build();
 * AdaptiveCapacity adaptive = AdaptiveCapacity.builder()
 *         .algorithm(Algorithm.VEGAS).minCapacity(4).maxCapacity(200)
 *         .attach(pool);              // on from now; pool.capacity() follows adaptive.limit()
 * ...
 * adaptive.disable();                 // the pool is back at 20
 * }</pre>
 *
 * <p>It watches the pool through a {@link PoolListener}: a task's run time is a sample, the tasks
 * it counts in flight are the load, and a task that failed with an error {@link Builder#dropOn}
 * accepts (a timeout from the backend, say) is a drop, which makes AIMD and Vegas back off; any
 * other failure is no sample (as concurrency-limits' {@code onIgnore}) unless it ran past the
 * pool's {@code runTimeout} (then a sample, and under AIMD a drop; a task cancelled while it ran
 * too). AIMD
 * also counts a window whose average run time exceeds the pool's {@code runTimeout} as a drop
 * (read live); without a {@code runTimeout} or a {@code dropOn} it has no reason to back off. It
 * changes the capacity with {@link Pool#reconfigure}, so waiting callers and running tasks see an
 * ordinary live tune. Rejections are not samples: they are the limit doing its job (and they take
 * no time), so a pool that sheds load is not pushed further down.
 *
 * <p>The capacity the pool had when adaptive sizing was enabled is its <em>configured
 * capacity</em>; {@link #disable()} puts it back. While enabled, the capacity belongs to the
 * algorithm: if anyone else changes it (a manual {@code tune}), adaptive sizing turns itself off
 * and the pool keeps the capacity it was given, which becomes the configured capacity, the way
 * an autopilot lets go when the pilot moves the controls.
 *
 * <p>Tasks shorter than 100 us are ignored (their run time says nothing about a backend), so a
 * pool of CPU-bound tiny tasks never moves. One instance per pool. Thread-safe.
 */
public final class AdaptiveCapacity implements AutoCloseable {

    /*
     * Notes.
     *
     * States: OFF -> ON in enable() (and in Builder.attach): the configured capacity is read from
     * the pool, a new Limit starts at it (clamped), the pool is tuned to that, the listener added;
     * enable(int) takes the configured capacity given instead (ON -> ON afresh if it was on).
     * ON -> OFF in disable() (the configured capacity is put back) or when a foreign capacity change
     * is seen (the pool keeps it). Any -> CLOSED in close(): off for good.
     *
     * Epochs: each switch starts a new Epoch, a generation number with a count of tasks in flight
     * of its own. A task records the epoch it started in and counts itself in that epoch's count;
     * a task that ends in another one (it was running across a switch) is neither a sample nor
     * counted down. The count belongs to the epoch, so a task that read the old epoch just as a
     * switch happened counts in the old one: a generation and a shared counter reset at the switch
     * left a task that read the generation before the reset and counted after it in the new count
     * for good (one too many, per such race).
     *
     * Foreign changes: the pool is tuned with a reconfigure that changes the capacity only if it is
     * still the one this object set last (a compare-and-set under the pool's own lock); if it is not,
     * someone else tuned it, and that wins. The check runs under `lock` on every change and, cheaply,
     * on every sample. Lock order: `lock`, then the pool's; the pool never calls a listener while it
     * holds its own.
     *
     * Ignored tasks (ignoreCurrentTask): a static ThreadLocal names the instance whose pool runs a
     * task on the thread (saved and restored around a task run inline inside another's); the
     * instance takes the task out of its count as taskEnded would, without the sample.
     *
     * Cost per task while on: three ThreadLocal reads and two writes, an atomic increment and
     * decrement, and the library's sample (SampleWindows: a compare-and-set of a small immutable
     * window); a reconfigure at most once a window.
     */

    private static final System.Logger LOG = System.getLogger(AdaptiveCapacity.class.getName());

    private final Pool pool;

    private final Algorithm algorithm;

    private final int minCapacity;

    private final int maxCapacity;

    private final Predicate<? super Throwable> dropOn;

    private final LongSupplier clock;

    private final Watcher watcher = new Watcher();

    private final ThreadLocal<Started> started = ThreadLocal.withInitial(Started::new);

    /** The instance whose pool runs a task on this thread now, for {@link #ignoreCurrentTask()}. */
    private static final ThreadLocal<AdaptiveCapacity> RUNNING = new ThreadLocal<>();

    private final AtomicLong adjustments = new AtomicLong();

    // A ReentrantLock, not a monitor: the holder tunes the pool, which takes the pool's lock, and
    // a virtual worker blocked on a monitor pins its carrier on JDK 21-23 (helper-151: every carrier
    // pinned behind it while the pool lock's owner waits for one is a deadlock).
    private final ReentrantLock lock = new ReentrantLock();

    /** The longest Duration in nanoseconds of a long. */
    private static final Duration MAX_NANOS = Duration.ofNanos(Long.MAX_VALUE);

    private volatile Epoch epoch = new Epoch(0);

    private volatile boolean enabled;

    private volatile boolean closed;

    private volatile int configuredCapacity;

    private volatile int limit;

    private volatile Limit algorithmLimit;

    /** The runTimeout AIMD's limit was built with; written under lock, read on every sample. */
    private volatile Duration aimdTimeout;

    private AdaptiveCapacity(Builder builder, Pool pool, int maxCapacity) {
        this.pool = pool;
        this.algorithm = builder.algorithm;
        this.minCapacity = builder.minCapacity;
        this.maxCapacity = maxCapacity;
        this.dropOn = builder.dropOn;
        this.clock = builder.clock;
        this.configuredCapacity = pool.capacity();
        this.limit = clamp(this.configuredCapacity);
    }

    /**
     * Returns a builder; the defaults are {@link Algorithm#GRADIENT2}, capacity 1 to 200 (to
     * {@code minCapacity} if that is higher).
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns the pool this sizes. */
    public Pool pool() {
        return this.pool;
    }

    /** Returns the algorithm. */
    public Algorithm algorithm() {
        return this.algorithm;
    }

    /** Returns the least capacity it sets. */
    public int minCapacity() {
        return this.minCapacity;
    }

    /** Returns the most capacity it sets. */
    public int maxCapacity() {
        return this.maxCapacity;
    }

    /**
     * Returns whether it is sizing the pool now. A capacity someone else set since it last did
     * switches it off here too, as at the next sample (an idle pool has none).
     */
    public boolean isEnabled() {
        noticeForeignChange();
        return this.enabled;
    }

    /**
     * Returns the capacity it set last, within {@code [minCapacity, maxCapacity]}: the pool's
     * capacity while enabled; after {@link #disable()}, the last limit it reached.
     */
    public int limit() {
        return this.limit;
    }

    /**
     * Returns the capacity {@link #disable()} puts back: the pool's capacity when adaptive sizing
     * was last enabled, or the one {@link #configuredCapacity(int)} set since; while off, the
     * pool's capacity (what enabling would start from).
     */
    public int configuredCapacity() {
        noticeForeignChange();
        return this.enabled ? this.configuredCapacity : this.pool.capacity();
    }

    /** Returns how many times it changed the pool's capacity. */
    public long adjustments() {
        return this.adjustments.get();
    }

    /**
     * Sets the capacity that {@link #disable()} puts back, without touching the pool while
     * adaptive sizing is on; while it is off, the pool is tuned to it at once.
     * @param capacity at least 1, or -1 for unbounded
     * @throws IllegalArgumentException if capacity is 0 or below -1
     */
    public void configuredCapacity(int capacity) {
        checkCapacity(capacity);
        int foreign;
        this.lock.lock();
        try {
            // A tune by someone else before this one switched sizing off: this one is then the later.
            foreign = letGoAfterForeignChangeLocked();
            this.configuredCapacity = capacity;
            if (!this.enabled) {
                this.pool.tune(capacity);
            }
        } finally {
            this.lock.unlock();
        }
        logLetGo(foreign);
    }

    /**
     * Starts sizing the pool (does nothing if it already is): its current capacity becomes the
     * configured capacity, and the algorithm starts afresh from it, clamped to
     * {@code [minCapacity, maxCapacity]} ({@code maxCapacity} for an unbounded pool).
     * @throws IllegalStateException if this was closed, or the pool's capacity cannot be tuned
     */
    public void enable() {
        this.lock.lock();
        try {
            checkOpen();
            if (this.enabled) {
                if (this.pool.capacity() == this.limit) {
                    return;
                }
                // Tuned by someone else since the last sample (helper-141): that tune switched sizing
                // off, and this call, the later word, starts it afresh from that capacity.
                stop();
            }
            start(NONE);
        } finally {
            this.lock.unlock();
        }
        logStarted();
    }

    /**
     * Starts sizing the pool afresh (if it is on already, the algorithm starts over) with
     * {@code configuredCapacity} as the configured capacity, from that capacity clamped to
     * {@code [minCapacity, maxCapacity]}. The pool goes straight to the clamped capacity:
     * {@code configuredCapacity(c)} then {@link #enable()} would run it at {@code c} in between.
     * @param configuredCapacity what {@link #disable()} puts back: at least 1, or -1 for unbounded
     * @throws IllegalArgumentException if configuredCapacity is 0 or below -1
     * @throws IllegalStateException if this was closed, or the pool's capacity cannot be tuned
     */
    public void enable(int configuredCapacity) {
        checkCapacity(configuredCapacity);
        this.lock.lock();
        try {
            checkOpen();
            if (this.enabled) {
                stop(); // the tune below is this call's, whatever the pool's capacity is now
            }
            start(configuredCapacity);
        } finally {
            this.lock.unlock();
        }
        logStarted();
    }

    private void checkOpen() {
        if (this.closed) {
            throw new IllegalStateException("adaptive capacity of pool '" + this.pool.name()
                    + "' was closed; attach a new one");
        }
    }

    /** Under the lock, while off: OFF -> ON from {@code configured}, or from the pool's capacity if {@link #NONE}. */
    private void start(int configured) {
        // Read and set in one step: a tune by someone else in between would be lost.
        int[] read = new int[1];
        this.pool.reconfigure((c) -> {
            read[0] = (configured != NONE) ? configured : c.capacity();
            return c.withCapacity(clamp(read[0]));
        });
        int initial = clamp(read[0]);
        this.configuredCapacity = read[0];
        this.limit = initial;
        this.aimdTimeout = this.pool.config().runTimeout();
        this.algorithmLimit = Limits.create(this.algorithm, initial, this.minCapacity, this.maxCapacity,
                this.aimdTimeout, true);
        this.epoch = new Epoch(this.epoch.generation + 1);
        this.enabled = true;
        this.pool.addListener(this.watcher);
    }

    private void logStarted() {
        LOG.log(System.Logger.Level.INFO, () -> "adaptive capacity of pool '" + this.pool.name() + "' on: "
                + this.algorithm + " within [" + this.minCapacity + ", " + this.maxCapacity + "], from "
                + this.limit + " (configured " + this.configuredCapacity + ")");
    }

    /**
     * Stops sizing the pool and puts back its configured capacity; does nothing if it is off.
     */
    public void disable() {
        int restored;
        int foreign = NONE;
        this.lock.lock();
        try {
            if (!this.enabled) {
                return;
            }
            stop();
            restored = this.configuredCapacity;
            if (!compareAndTune(restored)) { // someone else tuned it since: theirs is the later word
                foreign = this.pool.capacity();
                this.configuredCapacity = foreign;
            }
        } finally {
            this.lock.unlock();
        }
        if (foreign != NONE) {
            logLetGo(foreign);
            return;
        }
        LOG.log(System.Logger.Level.INFO, () -> "adaptive capacity of pool '" + this.pool.name()
                + "' off: capacity back to " + restored + " (the last limit was " + this.limit + ")");
    }

    /**
     * Leaves the task that runs on the calling thread out of the sizing of its pool: when it ends
     * it is neither a sample nor counted in flight. For work whose run time says nothing about
     * the pool's capacity, such as a request answered at once with a 503 (a fast "task" that would
     * read as the pool keeping up, and raise the limit while the admitted ones slow down).
     * Does nothing on a thread that runs no task of a pool this class sizes now.
     *
     * @return whether the task was counted until now
     */
    public static boolean ignoreCurrentTask() {
        AdaptiveCapacity current = RUNNING.get();
        return current != null && current.ignore();
    }

    private boolean ignore() {
        return countOut(this.started.get()) != null;
    }

    /**
     * Counts the thread's task in {@code e}, the epoch read when it started (taskStarted passes the
     * current one; tests pass an older one to play a switch between the read and the count).
     */
    void countIn(Started s, Epoch e) {
        s.active = true;
        s.epoch = e;
        s.inflight = e.inflight.incrementAndGet();
    }

    /**
     * Takes the thread's task out of the count of tasks in flight; returns the epoch it was counted
     * in, or null if it was not counted: it ended or left already, or it started before a switch
     * (counted no more, see the notes).
     */
    Epoch countOut(Started s) {
        if (!s.active) {
            return null;
        }
        s.active = false;
        Epoch e = s.epoch;
        s.epoch = null;
        if (e != this.epoch) {
            return null;
        }
        e.inflight.decrementAndGet();
        return e;
    }

    /** Disables it for good; {@link #enable()} then throws. */
    @Override
    public void close() {
        this.lock.lock();
        try {
            disable();
            this.closed = true;
        } finally {
            this.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "AdaptiveCapacity[pool=" + this.pool.name() + ", algorithm=" + this.algorithm + ", enabled="
                + this.enabled + ", limit=" + this.limit + ", min=" + this.minCapacity + ", max=" + this.maxCapacity
                + ", configured=" + this.configuredCapacity + "]";
    }

    /** Leaves the ON state; the caller holds the lock and decides the capacity. */
    private void stop() {
        this.enabled = false;
        this.epoch = new Epoch(this.epoch.generation + 1);
        this.pool.removeListener(this.watcher);
    }

    private int clamp(int capacity) {
        return (capacity < 0) ? this.maxCapacity : Math.max(this.minCapacity, Math.min(this.maxCapacity, capacity));
    }

    /** A sample ended: moves the pool to the algorithm's limit, or lets go after a foreign change. */
    private void follow(int generation) {
        int foreign;
        this.lock.lock();
        try {
            if (!this.enabled || this.epoch.generation != generation) {
                return;
            }
            // The limit read now, under the lock: one read before it (by the sample) could be older
            // than one another sample applied meanwhile, and would overwrite it.
            int next = clamp(this.algorithmLimit.getLimit());
            // Whether the compare-and-set applied, not whether the capacity is now `next`: someone
            // else's tune to the very value the algorithm was about to set is still theirs.
            if (compareAndTune(next)) {
                if (next != this.limit) {
                    this.limit = next;
                    this.adjustments.incrementAndGet();
                }
                return;
            }
            foreign = letGoLocked(this.pool.capacity());
        } finally {
            this.lock.unlock();
        }
        logLetGo(foreign);
    }

    /** No capacity (0 is none a pool can have). */
    private static final int NONE = 0;

    private static void checkCapacity(int capacity) {
        if (capacity == 0 || capacity < -1) {
            throw new IllegalArgumentException("configured capacity must be at least 1, or -1 for unbounded, but was "
                    + capacity);
        }
    }

    /**
     * Under the lock: sets the pool's capacity to {@code capacity} if it is still the one this set
     * last ({@code limit}), in one step under the pool's own lock; false if someone else changed it.
     */
    private boolean compareAndTune(int capacity) {
        int expected = this.limit;
        boolean[] applied = new boolean[1];
        this.pool.reconfigure((c) -> {
            applied[0] = c.capacity() == expected;
            return applied[0] ? c.withCapacity(capacity) : c;
        });
        return applied[0];
    }

    /** Switches off if someone else changed the capacity while no sample came to see it. */
    private void noticeForeignChange() {
        if (this.enabled && this.pool.capacity() != this.limit) {
            int foreign;
            this.lock.lock(); // rechecked: a change of its own may be half done
            try {
                foreign = letGoAfterForeignChangeLocked();
            } finally {
                this.lock.unlock();
            }
            logLetGo(foreign);
        }
    }

    /**
     * Under the lock: if on and the pool's capacity is not the one this set last, switches off
     * and keeps it as the configured capacity; returns it, or {@link #NONE}.
     */
    private int letGoAfterForeignChangeLocked() {
        if (!this.enabled) {
            return NONE;
        }
        int now = this.pool.capacity();
        return (now == this.limit) ? NONE : letGoLocked(now);
    }

    /** Under the lock: switches off after someone else set {@code foreign}, which the pool keeps as its configured capacity. */
    private int letGoLocked(int foreign) {
        stop();
        this.configuredCapacity = foreign;
        return foreign;
    }

    private void logLetGo(int foreign) {
        if (foreign != NONE) {
            LOG.log(System.Logger.Level.INFO, () -> "adaptive capacity of pool '" + this.pool.name() + "' off: its "
                    + "capacity was changed to " + foreign + " by someone else, and keeps that");
        }
    }

    /**
     * Feeds one task's sample to the algorithm and follows its limit. Package-private so that
     * tests can drive the algorithms with a model backend and their own clock.
     * @param gen        the generation the task started in
     * @param inflight   tasks in flight when it started, itself included
     * @param runNanos   its run time
     * @param drop       whether it failed with an overload
     */
    void sample(int gen, int inflight, long runNanos, boolean drop) {
        Limit current = this.algorithmLimit;
        if (current == null || !this.enabled || gen != this.epoch.generation) { // off: the limit is retired
            return;
        }
        if (this.algorithm == Algorithm.AIMD && !Objects.equals(this.pool.config().runTimeout(), this.aimdTimeout)) {
            current = rebuildAimd(gen);
            if (current == null) {
                return;
            }
        }
        long rtt = Math.max(1, runNanos);
        current.onSample(this.clock.getAsLong() - rtt, rtt, inflight, drop);
        if (clamp(current.getLimit()) != this.limit || this.pool.capacity() != this.limit) {
            follow(gen);
        }
    }

    /**
     * AIMD's timeout is fixed when it is built, and its state is its limit and whether it is still
     * in slow start: a new one from the current limit with the pool's new runTimeout, past slow
     * start (+1 a window from there), loses nothing but the current window.
     */
    private Limit rebuildAimd(int gen) {
        this.lock.lock();
        try {
            if (!this.enabled || this.epoch.generation != gen) {
                return null;
            }
            Duration timeout = this.pool.config().runTimeout();
            if (!Objects.equals(timeout, this.aimdTimeout)) {
                this.aimdTimeout = timeout;
                this.algorithmLimit = Limits.create(this.algorithm, this.limit, this.minCapacity, this.maxCapacity,
                        timeout, false);
            }
            return this.algorithmLimit;
        } finally {
            this.lock.unlock();
        }
    }

    /** The current generation, for {@link #sample}. */
    int generation() {
        return this.epoch.generation;
    }

    /** The current epoch (tests). */
    Epoch epoch() {
        return this.epoch;
    }

    /** Tasks it counts in flight now. */
    int inflight() {
        return this.epoch.inflight.get();
    }

    /** A generation of the ON state (or of an OFF state between two), with its own count of tasks in flight. */
    static final class Epoch {

        final int generation;

        final AtomicInteger inflight = new AtomicInteger();

        Epoch(int generation) {
            this.generation = generation;
        }
    }

    /** What a worker knows about the task it runs; one per thread. */
    static final class Started {

        /** Counted: in flight, and a sample when it ends. */
        boolean active;

        /** The epoch it counts in while active. */
        Epoch epoch;

        /** Tasks in flight when it started, itself included. */
        int inflight;

        /** Between taskStarted and taskEnded (active or not). */
        boolean running;

        /** RUNNING when the task started (a task run inline inside another's), restored when it ends. */
        AdaptiveCapacity outer;
    }

    /** The pool's listener. */
    private final class Watcher implements PoolListener {

        @Override
        public void taskStarted(Pool p, long queuedNanos) {
            Started s = started.get();
            countIn(s, epoch); // one read: the epoch it counts in is the one it recorded (see the notes)
            s.running = true;
            s.outer = RUNNING.get();
            RUNNING.set(AdaptiveCapacity.this);
        }

        @Override
        public void taskEnded(Pool p, long runNanos, Throwable failure) {
            Started s = started.get();
            if (s.running) {
                s.running = false;
                RUNNING.set(s.outer);
                s.outer = null;
            }
            Epoch e = countOut(s);
            // Gradient2 ignores drops, so a drop, fast as a shedding backend's refusal is, would read
            // as a healthy task (helper-141: the limit grew while the backend shed load): under it a
            // drop is a failure like any other, a sample only if slow.
            // Under AIMD a failure past the run timeout is a drop too: AIMD backs off on drops and
            // on slow windows only, and a backend that times out one call in ten left the window's
            // average below the timeout (helper-164: the limit grew with 30% of the calls timing out).
            boolean slow = failure != null && slow(runNanos);
            boolean drop = failure != null && algorithm != Algorithm.GRADIENT2
                    && (dropOn.test(failure) || (algorithm == Algorithm.AIMD && slow));
            // A task cancelled while it ran ends as a failure like any other: a sample only if slow.
            // (Counting every cancel as a sample of its run time so far took in invokeAny's losers
            // and a failing group's siblings, cut short, as healthy samples: helper-166.)
            if (e != null && (failure == null || drop || slow)) {
                sample(e.generation, s.inflight, runNanos, drop);
            }
        }

        /**
         * Whether a failure that is no drop is a sample still: one that ran past the pool's
         * runTimeout (a backend timing out is the overload AIMD watches for). A faster one is not
         * (concurrency-limits' onIgnore): its time says nothing of the backend's capacity, and the
         * fast failures of an outage (connection refused) set gradient2's average and vegas'
         * unloaded run time so low that, recovered, the backend's normal run time read as overload
         * for seconds to a minute.
         */
        private boolean slow(long runNanos) {
            Duration runTimeout = pool.config().runTimeout();
            // A run timeout of centuries (ChronoUnit.FOREVER's duration, for "none") overflows
            // toNanos(): no run time reaches it (helper-151: every failed task threw here).
            return runTimeout != null && runTimeout.compareTo(MAX_NANOS) <= 0 && runNanos >= runTimeout.toNanos();
        }

        @Override
        public void taskRejected(Pool p, RejectedExecutionException rejection) {
            // Not a sample: see the class comment.
        }
    }

    /**
     * Builds an {@link AdaptiveCapacity} and attaches it to a pool.
     */
    public static final class Builder {

        private static final int DEFAULT_MAX_CAPACITY = 200;

        private Algorithm algorithm = Algorithm.GRADIENT2;

        private int minCapacity = 1;

        /** 0 until set: then 200, or minCapacity if that is higher (as the starter's default). */
        private int maxCapacity;

        private Predicate<? super Throwable> dropOn = (t) -> false;

        private boolean enabled = true;

        private LongSupplier clock = System::nanoTime;

        private Builder() {
        }

        /**
         * Sets the algorithm; default {@link Algorithm#GRADIENT2}.
         * @param algorithm the algorithm; not null
         * @return this builder
         */
        public Builder algorithm(Algorithm algorithm) {
            this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
            return this;
        }

        /**
         * Sets the least capacity; default 1.
         * @param minCapacity at least 1
         * @return this builder
         * @throws IllegalArgumentException if below 1
         */
        public Builder minCapacity(int minCapacity) {
            if (minCapacity < 1) {
                throw new IllegalArgumentException("minCapacity must be at least 1, but was " + minCapacity);
            }
            this.minCapacity = minCapacity;
            return this;
        }

        /**
         * Sets the most capacity; default 200, or {@code minCapacity} if that is higher.
         * @param maxCapacity at least 1, and at least minCapacity (checked by {@link #attach})
         * @return this builder
         * @throws IllegalArgumentException if below 1
         */
        public Builder maxCapacity(int maxCapacity) {
            if (maxCapacity < 1) {
                throw new IllegalArgumentException("maxCapacity must be at least 1, but was " + maxCapacity);
            }
            this.maxCapacity = maxCapacity;
            return this;
        }

        /**
         * Sets which task failures count as drops (a timeout from the backend, say), making AIMD
         * and Vegas back off; by default none does.
         * @param dropOn true for a failure that means overload; not null
         * @return this builder
         */
        public Builder dropOn(Predicate<? super Throwable> dropOn) {
            this.dropOn = Objects.requireNonNull(dropOn, "dropOn");
            return this;
        }

        /**
         * Sets whether {@link #attach} switches it on; default true.
         * @param enabled false to attach it switched off, for {@link AdaptiveCapacity#enable()} later
         * @return this builder
         */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** The clock that dates samples (System.nanoTime by default); tests drive their own. */
        Builder clock(LongSupplier clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Makes the adaptive capacity of a pool and, unless {@code enabled(false)}, switches it on.
         * @param pool the pool to size; its capacity now is the configured capacity
         * @return the adaptive capacity
         * @throws IllegalArgumentException if maxCapacity is below minCapacity, the pool was
         *         built with {@code preAlloc(true)} (its capacity is fixed), or it is a
         *         {@link MultiPool} (attach one to each of its pools)
         */
        public AdaptiveCapacity attach(Pool pool) {
            Objects.requireNonNull(pool, "pool");
            if (pool instanceof MultiPool multi) {
                // Its capacity is the sum of its pools' and its tune sets each pool's: the bounds
                // would apply per pool, and every task would see a capacity not its limit.
                throw new IllegalArgumentException("pool '" + pool.name() + "' is a MultiPool of " + multi.size()
                        + " pools: attach one AdaptiveCapacity to each of them (multi.pool(i)), with bounds per pool");
            }
            int max = (this.maxCapacity == 0) ? Math.max(DEFAULT_MAX_CAPACITY, this.minCapacity) : this.maxCapacity;
            if (max < this.minCapacity) {
                throw new IllegalArgumentException("maxCapacity (" + max + ") must not be below minCapacity ("
                        + this.minCapacity + "), pool '" + pool.name() + "': raise maxCapacity or lower minCapacity");
            }
            if (pool.config().preAlloc()) {
                throw new IllegalArgumentException("pool '" + pool.name() + "' was built with preAlloc(true), so its "
                        + "capacity cannot change; build it without preAlloc to size it adaptively");
            }
            AdaptiveCapacity adaptive = new AdaptiveCapacity(this, pool, max);
            if (this.enabled) {
                adaptive.enable();
            }
            return adaptive;
        }
    }
}
