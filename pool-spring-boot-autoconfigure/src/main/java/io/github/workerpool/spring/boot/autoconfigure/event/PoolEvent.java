package io.github.workerpool.spring.boot.autoconfigure.event;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolStats;

import org.springframework.context.ApplicationEvent;

/**
 * Base class for the application events published about a worker pool bean: a
 * {@link PoolRejectionEvent rejection}, a {@link PoolSaturationEvent saturation}, a
 * {@link PoolQueueTimeoutEvent queue timeout}, a {@link PoolRunTimeoutEvent run timeout} or a
 * {@link PoolClosedEvent pool closed} while the application runs.
 *
 * <p>Events are rate-limited per pool and kind ({@code pools.events.min-interval}): one event
 * stands for every occurrence of its kind since the previous event of that kind for that pool,
 * and says how many ({@link #getOccurrences()}). They are published from one background thread
 * ({@code pool-events}), never from a worker or a submitting caller; listeners run there unless
 * the application's event multicaster has an executor of its own.
 */
public abstract class PoolEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final String poolName;

    private final long occurrences;

    private final PoolStats stats;

    private final transient Kind kind;

    PoolEvent(Pool pool, String poolName, long occurrences, PoolStats stats, Kind kind) {
        super(pool);
        if (occurrences < 1) {
            throw new IllegalArgumentException("occurrences must be at least 1, but was " + occurrences);
        }
        this.poolName = poolName;
        this.occurrences = occurrences;
        this.stats = stats;
        this.kind = kind;
    }

    /** Returns the pool the event is about. */
    public Pool getPool() {
        return (Pool) getSource();
    }

    /**
     * Returns the pool's bean name: its name in the {@code pools} endpoint, the health contributor
     * and the meters' {@code name} tag.
     */
    public String getPoolName() {
        return this.poolName;
    }

    /**
     * Returns how many occurrences this event stands for: those since the previous event of the same
     * kind for the same pool; at least 1.
     */
    public long getOccurrences() {
        return this.occurrences;
    }

    /** Returns the pool's levels and totals when the event was published. */
    public PoolStats getStats() {
        return this.stats;
    }

    /** Returns the kind, as the {@code kind} tag of the {@code pool.events} meter. */
    Kind kind() {
        return this.kind;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(getClass().getSimpleName()).append("[pool=")
            .append(this.poolName)
            .append(", occurrences=")
            .append(this.occurrences);
        describe(out);
        return out.append(", stats=").append(this.stats).append(']').toString();
    }

    /** Appends the figures of this kind of event, each as {@code ", name=value"}. */
    void describe(StringBuilder out) {
    }

    /** The kinds of pool events, named as the {@code kind} tag of the {@code pool.events} meter. */
    enum Kind {

        REJECTION("rejection"), SATURATION("saturation"), QUEUE_TIMEOUT("queue-timeout"), RUN_TIMEOUT("run-timeout"),
        CLOSED("closed");

        private final String tag;

        Kind(String tag) {
            this.tag = tag;
        }

        /** Returns the value of the meter's {@code kind} tag. */
        String tag() {
            return this.tag;
        }

    }

}
