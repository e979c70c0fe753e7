package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.workerpool.WorkerPool;

/**
 * The options of one configured pool after inheritance from {@code pools.defaults}, each with the
 * property it came from so that errors can name it.
 */
final class PoolSettings {

    static final Duration DEFAULT_AWAIT_TERMINATION_PERIOD = Duration.ofSeconds(30);

    private final String name;

    private final PoolsProperties.Pool instance;

    private final PoolsProperties.Pool defaults;

    PoolSettings(String name, PoolsProperties.Pool instance, PoolsProperties.Pool defaults) {
        this.name = name;
        this.instance = (instance != null) ? instance : new PoolsProperties.Pool();
        this.defaults = defaults;
    }

    String name() {
        return this.name;
    }

    /**
     * Returns a builder with every configured option applied, checked the way the builder checks
     * them, but reported against the property.
     * @throws PoolConfigurationException if an option is invalid
     */
    WorkerPool.Builder builder() {
        WorkerPool.Builder builder = WorkerPool.builder();
        try {
            builder.name(this.name);
        }
        catch (IllegalArgumentException ex) {
            throw new PoolConfigurationException("pools.instances", this.name, ex.getMessage(),
                    "Give every entry of pools.instances a name that is not blank.");
        }
        Integer capacity = value(PoolsProperties.Pool::getCapacity);
        if (capacity == null) {
            throw new PoolConfigurationException(property("capacity"), null, "capacity is required",
                    "Set " + property("capacity") + " (or pools.defaults.capacity) to a number >= 1, "
                            + "or -1 for an unbounded pool.");
        }
        apply("capacity", PoolsProperties.Pool::getCapacity, builder::capacity,
                "set it to a number >= 1, or -1 for an unbounded pool");
        apply("expiry", PoolsProperties.Pool::getExpiry, builder::expiry,
                "set it to a positive duration such as 60s; to keep idle workers forever set disable-purge: true");
        apply("disable-purge", PoolsProperties.Pool::getDisablePurge, builder::disablePurge, "set true or false");
        apply("queue-capacity", PoolsProperties.Pool::getQueueCapacity, builder::queueCapacity,
                "set it to 0 (hand tasks straight to workers) or more");
        apply("nonblocking", PoolsProperties.Pool::getNonblocking, builder::nonblocking, "set true or false");
        apply("max-blocking-tasks", PoolsProperties.Pool::getMaxBlockingTasks, builder::maxBlockingTasks,
                "set it to 0 (no limit) or more");
        apply("blocking-timeout", PoolsProperties.Pool::getBlockingTimeout, builder::blockingTimeout,
                "set it to a duration of 0 or more, or leave it out to wait as long as it takes");
        Boolean preAlloc = value(PoolsProperties.Pool::getPreAlloc);
        if (Boolean.TRUE.equals(preAlloc) && capacity < 0) {
            throw new PoolConfigurationException(source("pre-alloc", PoolsProperties.Pool::getPreAlloc), true,
                    "pre-alloc needs a bounded capacity, but " + property("capacity") + " is -1",
                    "Set " + property("capacity") + " to a number >= 1, or set " + property("pre-alloc")
                            + " to false.");
        }
        apply("pre-alloc", PoolsProperties.Pool::getPreAlloc, builder::preAlloc, "set true or false");
        Boolean virtualThreads = value(PoolsProperties.Pool::getVirtualThreads);
        if (Boolean.TRUE.equals(virtualThreads) && Runtime.version().feature() < 21) {
            throw new PoolConfigurationException(source("virtual-threads", PoolsProperties.Pool::getVirtualThreads), true,
                    "virtual threads need Java 21 or later, but this JVM is Java " + Runtime.version().feature(),
                    "Run the application on Java 21 or later, or set " + property("virtual-threads") + " to false.");
        }
        apply("virtual-threads", PoolsProperties.Pool::getVirtualThreads, builder::virtualThreads,
                "set true or false");
        awaitTerminationPeriod();
        return builder;
    }

    /** How long context close waits for the pool's tasks. */
    Duration awaitTerminationPeriod() {
        Duration period = value((p) -> p.getShutdown().getAwaitTerminationPeriod());
        if (period == null) {
            return DEFAULT_AWAIT_TERMINATION_PERIOD;
        }
        if (period.isNegative()) {
            String property = source("shutdown.await-termination-period",
                    (p) -> p.getShutdown().getAwaitTerminationPeriod());
            throw new PoolConfigurationException(property, period, "the await period must not be negative",
                    "Set " + property + " to a duration of 0 or more, such as 30s.");
        }
        return period;
    }

    private <T> T value(Function<PoolsProperties.Pool, T> getter) {
        T own = getter.apply(this.instance);
        return (own != null) ? own : getter.apply(this.defaults);
    }

    /** The property a value of this pool was read from: its own, or the inherited default. */
    private String property(String option) {
        return "pools.instances." + this.name + "." + option;
    }

    private String source(String option, Function<PoolsProperties.Pool, ?> getter) {
        return (getter.apply(this.instance) == null && getter.apply(this.defaults) != null)
                ? "pools.defaults." + option : property(option);
    }

    private <T> void apply(String option, Function<PoolsProperties.Pool, T> getter, Consumer<T> setter,
            String fix) {
        T value = value(getter);
        if (value == null) {
            return;
        }
        try {
            setter.accept(value);
        }
        catch (IllegalArgumentException | IllegalStateException ex) {
            String property = source(option, getter);
            throw new PoolConfigurationException(property, value, ex.getMessage(),
                    "Update " + property + ": " + fix + ".");
        }
    }

}
