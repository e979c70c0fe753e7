package io.github.workerpool.spring.boot.autoconfigure.event;

import java.time.Duration;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for the pools' application events, bound to the {@code pools.events}
 * prefix. Read at startup; a change takes a restart.
 */
@ConfigurationProperties("pools.events")
public class PoolEventsProperties {

    /**
     * Whether to publish application events for the pools' rejections, saturations, queue and run
     * timeouts and closings, and count them in the pool.events meter.
     */
    private boolean enabled = true;

    /**
     * How long a bounded pool must stay saturated (every worker busy, and callers waiting or the
     * queue full) before a saturation event.
     */
    private Duration saturationAfter = Duration.ofSeconds(10);

    /**
     * Least time between two events of one kind for one pool; the occurrences in between are
     * counted in the next event of that kind.
     */
    private Duration minInterval = Duration.ofSeconds(10);

    /**
     * How often the pools are checked for saturation and closing, and pending events published.
     */
    private Duration checkInterval = Duration.ofSeconds(1);

    /** Returns whether pool events are published. */
    public boolean isEnabled() {
        return this.enabled;
    }

    /** Sets whether pool events are published. */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** Returns how long a pool must stay saturated before a saturation event. */
    public Duration getSaturationAfter() {
        return this.saturationAfter;
    }

    /** Sets how long a pool must stay saturated before a saturation event. */
    public void setSaturationAfter(Duration saturationAfter) {
        this.saturationAfter = saturationAfter;
    }

    /** Returns the least time between two events of one kind for one pool. */
    public Duration getMinInterval() {
        return this.minInterval;
    }

    /** Sets the least time between two events of one kind for one pool. */
    public void setMinInterval(Duration minInterval) {
        this.minInterval = minInterval;
    }

    /** Returns how often the pools are checked. */
    public Duration getCheckInterval() {
        return this.checkInterval;
    }

    /** Sets how often the pools are checked. */
    public void setCheckInterval(Duration checkInterval) {
        this.checkInterval = checkInterval;
    }

    /**
     * Checks the durations (at startup, and on a refresh to warn that a restart would fail).
     * @throws PoolConfigurationException naming the property, if one is negative or the check
     *         interval is not positive
     */
    public void check() {
        if (this.checkInterval == null || this.checkInterval.isNegative() || this.checkInterval.isZero()) {
            throw invalid("check-interval", this.checkInterval, "must be a positive duration",
                    "set it to a positive duration such as 1s");
        }
        if (this.minInterval == null || this.minInterval.isNegative()) {
            throw invalid("min-interval", this.minInterval, "must be 0 or more",
                    "set it to a duration of 0 or more, such as 10s");
        }
        if (this.saturationAfter == null || this.saturationAfter.isNegative()) {
            throw invalid("saturation-after", this.saturationAfter, "must be 0 or more",
                    "set it to a duration of 0 or more, such as 10s");
        }
    }

    private static PoolConfigurationException invalid(String property, Duration value, String reason, String fix) {
        String name = "pools.events." + property;
        return new PoolConfigurationException(name, value, property + " " + reason, "Update " + name + ": " + fix + ".");
    }

}
