package io.github.workerpool.spring.boot.autoconfigure.event;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolStats;

/**
 * Event published when a pool was closed ({@code release}, {@code shutdown}, {@code close}...)
 * while the application runs: from then on it refuses every task until it is rebooted. Pools
 * closed by the application context's stop or close publish no event.
 */
public class PoolClosedEvent extends PoolEvent {

    private static final long serialVersionUID = 1L;

    /**
     * Creates a new {@link PoolClosedEvent}.
     * @param pool the pool
     * @param poolName the pool's bean name
     * @param occurrences the closings this event stands for (a pool rebooted and closed again
     * within {@code min-interval} counts twice); at least 1
     * @param stats the pool's figures when the event is published
     */
    public PoolClosedEvent(Pool pool, String poolName, long occurrences, PoolStats stats) {
        super(pool, poolName, occurrences, stats, Kind.CLOSED);
    }

}
