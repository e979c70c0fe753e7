package io.github.workerpool.spring.boot.autoconfigure.event;

import java.time.Duration;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolStats;

/**
 * Event published when a bounded pool stayed saturated for {@code pools.events.saturation-after}:
 * every worker busy, and callers waiting in submit or the queue full, at every check
 * ({@code pools.events.check-interval}) in that time. One saturation, however long it lasts, is
 * one occurrence; the pool must be seen unsaturated before it can saturate again.
 */
public class PoolSaturationEvent extends PoolEvent {

    private static final long serialVersionUID = 1L;

    private final Duration saturatedFor;

    /**
     * Creates a new {@link PoolSaturationEvent}.
     * @param pool the pool
     * @param poolName the pool's bean name
     * @param occurrences the saturations this event stands for; at least 1
     * @param stats the pool's figures when the event is published
     * @param saturatedFor how long the pool had been saturated when it was found to have lasted
     * {@code saturation-after}; the longest of those, when the event stands for several
     */
    public PoolSaturationEvent(Pool pool, String poolName, long occurrences, PoolStats stats, Duration saturatedFor) {
        super(pool, poolName, occurrences, stats, Kind.SATURATION);
        this.saturatedFor = saturatedFor;
    }

    /**
     * Returns how long the pool had been saturated, from the first check that saw it saturated to
     * the check that found it still saturated {@code saturation-after} later (at least that long);
     * the longest, when the event stands for several saturations.
     */
    public Duration getSaturatedFor() {
        return this.saturatedFor;
    }

    @Override
    void describe(StringBuilder out) {
        out.append(", saturatedFor=").append(this.saturatedFor);
    }

}
