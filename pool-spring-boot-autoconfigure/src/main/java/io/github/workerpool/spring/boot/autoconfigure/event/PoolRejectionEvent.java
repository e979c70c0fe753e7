package io.github.workerpool.spring.boot.autoconfigure.event;

import java.util.concurrent.RejectedExecutionException;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolStats;

/**
 * Event published when a pool refused tasks: it was full and did not make the caller wait (or
 * the wait ended), or it was closed. One event stands for every rejection since the previous one
 * for the same pool.
 */
public class PoolRejectionEvent extends PoolEvent {

    private static final long serialVersionUID = 1L;

    private final RejectedExecutionException lastRejection;

    /**
     * Creates a new {@link PoolRejectionEvent}.
     * @param pool the pool
     * @param poolName the pool's bean name
     * @param occurrences the rejections this event stands for; at least 1
     * @param stats the pool's figures when the event is published
     * @param lastRejection the last of those rejections, as its caller got it
     */
    public PoolRejectionEvent(Pool pool, String poolName, long occurrences, PoolStats stats,
            RejectedExecutionException lastRejection) {
        super(pool, poolName, occurrences, stats, Kind.REJECTION);
        this.lastRejection = lastRejection;
    }

    /**
     * Returns the last rejection this event stands for, as its caller got it: a
     * {@link io.github.workerpool.PoolOverloadException} for a full pool, a
     * {@link io.github.workerpool.PoolClosedException} for a closed one.
     */
    public RejectedExecutionException getLastRejection() {
        return this.lastRejection;
    }

    @Override
    void describe(StringBuilder out) {
        out.append(", lastRejection=").append(this.lastRejection);
    }

}
