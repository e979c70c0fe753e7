package io.github.workerpool;

import java.time.Duration;
import java.util.Objects;

/**
 * The options of a {@link Pool}: an immutable value, as built and as changed live.
 *
 * <p>{@link Pool#config()} returns the current options. {@link Pool#reconfigure} takes a function
 * from the current options to the new ones, built with the {@code with...} methods, one per live
 * option:
 *
 * <pre>{@code
 * pool.reconfigure(c -> c.withCapacity(50).withQueueCapacity(200).withBlockingTimeout(Duration.ofSeconds(2)));
 * }</pre>
 *
 * <p>Live: {@code capacity}, {@code queueCapacity} (within its kind: a hand-off pool stays
 * hand-off, a bounded queue stays bounded, an unbounded one unbounded), {@code expiry},
 * {@code disablePurge}, {@code nonblocking}, {@code maxBlockingTasks}, {@code blockingTimeout},
 * {@code queueTimeout} and {@code runTimeout}. Fixed when the pool is built: {@code name},
 * {@code preAlloc} (and with it the capacity of a {@code preAlloc} pool), {@code virtualThreads}
 * and the thread factory.
 *
 * <p>Every value is checked when it is set, and the options as a whole when a pool is built or
 * reconfigured; each check throws {@link IllegalArgumentException} naming the option, the value
 * and the fix.
 *
 * @param name                the pool's name, used in thread names, errors and meters
 * @param capacity            most tasks that may run at once, at least 1; -1 when unbounded
 * @param expiry              how long a worker may stay idle before it stops
 * @param disablePurge        whether idle workers never expire
 * @param preAlloc            whether the idle-worker ring is allocated up front (idle workers reused FIFO)
 * @param queueCapacity       tasks held while every worker is busy; 0 = hand-off;
 *                            {@link Integer#MAX_VALUE} = unbounded
 * @param nonblocking         whether a full pool rejects at once instead of making the caller wait
 * @param maxBlockingTasks    most callers that may wait when the pool is full; 0 = no limit
 * @param blockingTimeout     longest a caller waits for a worker; null = no limit
 * @param queueTimeout        a task that waited longer than this from submit to start is counted
 *                            and reported (it still runs); null = not checked
 * @param runTimeout          a task that ran longer than this is counted and reported (it is not
 *                            interrupted); null = not checked
 * @param virtualThreads      whether workers are virtual threads
 * @param customThreadFactory whether the pool was built with its own thread factory
 */
public record PoolConfig(String name, int capacity, Duration expiry, boolean disablePurge, boolean preAlloc,
        int queueCapacity, boolean nonblocking, int maxBlockingTasks, Duration blockingTimeout,
        Duration queueTimeout, Duration runTimeout, boolean virtualThreads, boolean customThreadFactory) {

    /** The options of a new builder: capacity 1 stands for "not set yet". */
    static final PoolConfig DEFAULTS = new PoolConfig("pool", 1, Duration.ofSeconds(60), false, false, 0, false, 0,
            null, null, null, false, false);

    /**
     * Checks every value on its own.
     * @throws IllegalArgumentException naming the first invalid option and its value
     */
    public PoolConfig {
        checkName(name);
        checkCapacity(capacity);
        checkExpiry(expiry);
        checkQueueCapacity(queueCapacity);
        checkMaxBlockingTasks(maxBlockingTasks);
        checkTimeout("blockingTimeout", blockingTimeout, true);
        checkTimeout("queueTimeout", queueTimeout, false);
        checkTimeout("runTimeout", runTimeout, false);
    }

    /** A copy with another capacity: at least 1, or -1 for unbounded. */
    public PoolConfig withCapacity(int capacity) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    /** A copy with another queue capacity: 0 or more; {@link Integer#MAX_VALUE} is unbounded. */
    public PoolConfig withQueueCapacity(int queueCapacity) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    /** A copy with another idle-worker lifetime: a positive duration. */
    public PoolConfig withExpiry(Duration expiry) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    /** A copy that keeps idle workers forever (true) or lets them expire (false). */
    public PoolConfig withDisablePurge(boolean disablePurge) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    /** A copy in which a full pool rejects at once (true) or makes callers wait (false). */
    public PoolConfig withNonblocking(boolean nonblocking) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    /** A copy with another limit on waiting callers: 0 (no limit) or more. */
    public PoolConfig withMaxBlockingTasks(int maxBlockingTasks) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    /** A copy with another longest wait for a worker: zero or more, or null for no limit. */
    public PoolConfig withBlockingTimeout(Duration blockingTimeout) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    /** A copy with another queue timeout: a positive duration, or null to stop checking. */
    public PoolConfig withQueueTimeout(Duration queueTimeout) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    /** A copy with another run timeout: a positive duration, or null to stop checking. */
    public PoolConfig withRunTimeout(Duration runTimeout) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    PoolConfig withName(String name) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    PoolConfig withPreAlloc(boolean preAlloc) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    PoolConfig withVirtualThreads(boolean virtualThreads) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    PoolConfig withCustomThreadFactory(boolean customThreadFactory) {
        return new PoolConfig(name, capacity, expiry, disablePurge, preAlloc, queueCapacity, nonblocking,
                maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, virtualThreads, customThreadFactory);
    }

    /** Whether the queue is unbounded. */
    boolean unboundedQueue() {
        return queueCapacity == Integer.MAX_VALUE;
    }

    // ---------------------------------------------------------------- validation, in one place

    /** Checks the options that depend on each other, for a new pool. */
    void checkWhole() {
        if (preAlloc && capacity < 0) {
            throw new IllegalArgumentException("preAlloc needs a bounded capacity, but capacity is -1 (pool '"
                    + name + "'): set a capacity >= 1 or turn preAlloc off");
        }
        if (virtualThreads && customThreadFactory) {
            throw new IllegalArgumentException("virtualThreads(true) and threadFactory(...) both set (pool '"
                    + name + "'): the thread factory decides the kind of thread; set only one");
        }
    }

    /**
     * Checks that {@code next} only changes what may change on a running pool that has these options.
     * @throws IllegalArgumentException naming the first option that is fixed and the fix
     * @throws IllegalStateException if the capacity of a preAlloc pool would change
     */
    void checkLiveChange(PoolConfig next) {
        Objects.requireNonNull(next, "the reconfiguration returned null instead of a PoolConfig");
        fixed("name", name, next.name);
        fixed("preAlloc", preAlloc, next.preAlloc);
        fixed("virtualThreads", virtualThreads, next.virtualThreads);
        fixed("threadFactory", customThreadFactory, next.customThreadFactory);
        if (kind(queueCapacity) != kind(next.queueCapacity)) {
            throw new IllegalArgumentException("queueCapacity of pool '" + name + "' cannot change from "
                    + queueCapacity + " to " + next.queueCapacity + " on a running pool: a pool keeps its kind of "
                    + "queue (0 = hand-off, 1.." + (Integer.MAX_VALUE - 1) + " = bounded, " + Integer.MAX_VALUE
                    + " = unbounded); change it within its kind, or build a new pool");
        }
        if (preAlloc && capacity != next.capacity) {
            throw preAllocFixed(name, capacity);
        }
    }

    static IllegalStateException preAllocFixed(String name, int capacity) {
        return new IllegalStateException("pool '" + name + "' was built with preAlloc(true): its idle-worker ring "
                + "is allocated for exactly " + capacity + " workers, so its capacity cannot be tuned; "
                + "build it without preAlloc to tune it");
    }

    private static int kind(int queueCapacity) {
        return queueCapacity == 0 ? 0 : queueCapacity == Integer.MAX_VALUE ? 2 : 1;
    }

    private void fixed(String option, Object was, Object now) {
        if (!Objects.equals(was, now)) {
            throw new IllegalArgumentException(option + " of pool '" + name + "' is fixed when the pool is built ("
                    + was + ", asked for " + now + "); build a new pool to change it");
        }
    }

    static void checkName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank, but was "
                    + (name == null ? "null" : "'" + name + "'"));
        }
    }

    static void checkCapacity(int capacity) {
        if (capacity == 0 || capacity < -1) {
            throw new IllegalArgumentException("capacity must be at least 1, or -1 for unbounded, but was " + capacity);
        }
    }

    static void checkExpiry(Duration expiry) {
        if (expiry == null || expiry.isNegative() || expiry.isZero()) {
            throw new IllegalArgumentException("expiry must be a positive duration, but was " + expiry
                    + "; to keep idle workers forever use disablePurge(true)");
        }
    }

    static void checkQueueCapacity(int queueCapacity) {
        if (queueCapacity < 0) {
            throw new IllegalArgumentException("queueCapacity must be 0 or more, but was " + queueCapacity);
        }
    }

    static void checkMaxBlockingTasks(int maxBlockingTasks) {
        if (maxBlockingTasks < 0) {
            throw new IllegalArgumentException("maxBlockingTasks must be 0 (no limit) or more, but was "
                    + maxBlockingTasks);
        }
    }

    static void checkTimeout(String option, Duration timeout, boolean zeroAllowed) {
        if (timeout != null && (timeout.isNegative() || (!zeroAllowed && timeout.isZero()))) {
            throw new IllegalArgumentException(option + (zeroAllowed ? " must not be negative"
                    : " must be positive, or null for none") + ", but was " + timeout);
        }
    }

    /** The duration in nanoseconds, saturated; -1 for null; beyond ~146 years (no limit in practice) also -1. */
    static long nanosOrNone(Duration d) {
        if (d == null) {
            return -1;
        }
        long n = saturatedNanos(d);
        return n > Long.MAX_VALUE / 2 ? -1 : n;
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException overflow) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE; // a wait of minus ages ends at once
        }
    }
}
