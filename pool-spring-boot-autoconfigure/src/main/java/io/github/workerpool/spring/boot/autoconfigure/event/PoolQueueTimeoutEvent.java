package io.github.workerpool.spring.boot.autoconfigure.event;

import java.time.Duration;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolStats;
import org.jspecify.annotations.Nullable;

/**
 * Event published when tasks of a pool started later than its {@code queueTimeout} after they
 * were submitted (they ran anyway). One event stands for every such task since the previous one
 * for the same pool.
 */
public class PoolQueueTimeoutEvent extends PoolEvent {

    private static final long serialVersionUID = 1L;

    private final Duration longestQueued;

    private final @Nullable Duration queueTimeout;

    /**
     * Creates a new {@link PoolQueueTimeoutEvent}.
     * @param pool the pool
     * @param poolName the pool's bean name
     * @param occurrences the late tasks this event stands for; at least 1
     * @param stats the pool's figures when the event is published
     * @param longestQueued the longest time from submit to start among those tasks
     * @param queueTimeout the pool's queue timeout when the event is published; null if it was cleared
     */
    public PoolQueueTimeoutEvent(Pool pool, String poolName, long occurrences, PoolStats stats,
            Duration longestQueued, @Nullable Duration queueTimeout) {
        super(pool, poolName, occurrences, stats, Kind.QUEUE_TIMEOUT);
        this.longestQueued = longestQueued;
        this.queueTimeout = queueTimeout;
    }

    /** Returns the longest time from submit to start among the late tasks this event stands for. */
    public Duration getLongestQueued() {
        return this.longestQueued;
    }

    /** Returns the pool's queue timeout when the event was published; null if it was cleared since. */
    public @Nullable Duration getQueueTimeout() {
        return this.queueTimeout;
    }

    @Override
    void describe(StringBuilder out) {
        out.append(", longestQueued=").append(this.longestQueued).append(", queueTimeout=").append(this.queueTimeout);
    }

}
