package io.github.workerpool.spring.boot.autoconfigure.event;

import java.time.Duration;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolStats;
import org.jspecify.annotations.Nullable;

/**
 * Event published when tasks of a pool ran longer than its {@code runTimeout} (they were not
 * interrupted). One event stands for every such task since the previous one for the same pool.
 */
public class PoolRunTimeoutEvent extends PoolEvent {

    private static final long serialVersionUID = 1L;

    private final Duration longestRun;

    private final @Nullable Duration runTimeout;

    /**
     * Creates a new {@link PoolRunTimeoutEvent}.
     * @param pool the pool
     * @param poolName the pool's bean name
     * @param occurrences the long tasks this event stands for; at least 1
     * @param stats the pool's figures when the event is published
     * @param longestRun the longest run time among those tasks
     * @param runTimeout the pool's run timeout when the event is published; null if it was cleared
     */
    public PoolRunTimeoutEvent(Pool pool, String poolName, long occurrences, PoolStats stats, Duration longestRun,
            @Nullable Duration runTimeout) {
        super(pool, poolName, occurrences, stats, Kind.RUN_TIMEOUT);
        this.longestRun = longestRun;
        this.runTimeout = runTimeout;
    }

    /** Returns the longest run time among the long tasks this event stands for. */
    public Duration getLongestRun() {
        return this.longestRun;
    }

    /** Returns the pool's run timeout when the event was published; null if it was cleared since. */
    public @Nullable Duration getRunTimeout() {
        return this.runTimeout;
    }

    @Override
    void describe(StringBuilder out) {
        out.append(", longestRun=").append(this.longestRun).append(", runTimeout=").append(this.runTimeout);
    }

}
