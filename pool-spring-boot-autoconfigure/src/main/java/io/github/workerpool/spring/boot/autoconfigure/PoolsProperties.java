package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for named worker pools, bound to the {@code pools} prefix.
 *
 * <p>Each entry of {@code pools.instances} becomes one pool bean named after its key; an option
 * left out of an instance is taken from {@code pools.defaults}, then from the pool's own default.
 */
@ConfigurationProperties("pools")
public class PoolsProperties {

    /**
     * Name of the pool that runs @Async methods without an executor name; none by default, so
     * plain @Async keeps using Spring Boot's applicationTaskExecutor.
     */
    private String defaultPool;

    /**
     * Whether tasks run with the submitter's context (Micrometer context-propagation: tracing,
     * Spring Security's context, any registered ThreadLocalAccessor; MDC only with an accessor for
     * it registered, such as context-propagation's Slf4jThreadLocalAccessor) as
     * spring.task.execution.propagate-context does for Spring Boot's executor. Needs
     * io.micrometer:context-propagation on the classpath.
     */
    private boolean propagateContext;

    /**
     * Options inherited by every pool in pools.instances.
     */
    private final Pool defaults = new Pool();

    /**
     * Pools to create, by bean name; every option of pools.defaults can be set per pool.
     */
    private final Map<String, Pool> instances = new LinkedHashMap<>();

    /** Returns the name of the pool behind plain {@code @Async}, or null. */
    public String getDefaultPool() {
        return this.defaultPool;
    }

    /** Sets the name of the pool behind plain {@code @Async}. */
    public void setDefaultPool(String defaultPool) {
        this.defaultPool = defaultPool;
    }

    /** Returns whether tasks run with the submitter's propagated context. */
    public boolean isPropagateContext() {
        return this.propagateContext;
    }

    /** Sets whether tasks run with the submitter's propagated context. */
    public void setPropagateContext(boolean propagateContext) {
        this.propagateContext = propagateContext;
    }

    /** Returns the options inherited by every pool. */
    public Pool getDefaults() {
        return this.defaults;
    }

    /** Returns the pools to create, by name. */
    public Map<String, Pool> getInstances() {
        return this.instances;
    }

    /**
     * Options of one pool; a null option is inherited from {@code pools.defaults}.
     */
    public static class Pool {

        /**
         * Most tasks that may run at once: at least 1, or -1 for an unbounded pool. Required,
         * here or in pools.defaults.
         */
        private Integer capacity;

        /**
         * How long a worker may stay idle before it stops. Default 60s.
         */
        private Duration expiry;

        /**
         * Whether idle workers never expire. Default false.
         */
        private Boolean disablePurge;

        /**
         * Whether to allocate the idle-worker ring for capacity workers up front and reuse idle
         * workers longest-idle first; needs a bounded capacity, and the pool cannot be tuned.
         * Default false.
         */
        private Boolean preAlloc;

        /**
         * Tasks held while every worker is busy; 0 hands each task straight to a worker, 2147483647
         * is unbounded. Default 0.
         */
        private Integer queueCapacity;

        /**
         * Whether a full pool rejects a task at once instead of making the caller wait. Default
         * false.
         */
        private Boolean nonblocking;

        /**
         * Most callers that may wait for a worker when the pool is full; 0 for no limit. Default 0.
         */
        private Integer maxBlockingTasks;

        /**
         * Longest a caller waits for a worker before its task is rejected; no limit by default.
         */
        private Duration blockingTimeout;

        /**
         * A task that starts later than this after it was submitted is counted
         * (pool.tasks.queue.timeout) and reported; it still runs. Not checked by default.
         */
        private Duration queueTimeout;

        /**
         * A task that runs longer than this is counted (pool.tasks.run.timeout) and reported; it
         * is not interrupted. Not checked by default.
         */
        private Duration runTimeout;

        /**
         * Whether workers are virtual threads; needs Java 21 or later. Default: on Java 21 or later,
         * spring.threads.virtual.enabled (false unless set); on Java 17, false.
         */
        private Boolean virtualThreads;

        /**
         * What happens to the pool when the application context closes.
         */
        private final Shutdown shutdown = new Shutdown();

        /**
         * Adaptive capacity: the capacity follows the tasks' run time (Netflix concurrency-limits).
         */
        private final Adaptive adaptive = new Adaptive();

        /** Returns the capacity, or null to inherit. */
        public Integer getCapacity() {
            return this.capacity;
        }

        /** Sets the capacity. */
        public void setCapacity(Integer capacity) {
            this.capacity = capacity;
        }

        /** Returns the idle worker lifetime, or null to inherit. */
        public Duration getExpiry() {
            return this.expiry;
        }

        /** Sets the idle worker lifetime. */
        public void setExpiry(Duration expiry) {
            this.expiry = expiry;
        }

        /** Returns whether idle workers never expire, or null to inherit. */
        public Boolean getDisablePurge() {
            return this.disablePurge;
        }

        /** Sets whether idle workers never expire. */
        public void setDisablePurge(Boolean disablePurge) {
            this.disablePurge = disablePurge;
        }

        /** Returns whether the idle-worker ring is allocated up front, or null to inherit. */
        public Boolean getPreAlloc() {
            return this.preAlloc;
        }

        /** Sets whether the idle-worker ring is allocated up front. */
        public void setPreAlloc(Boolean preAlloc) {
            this.preAlloc = preAlloc;
        }

        /** Returns the queue capacity, or null to inherit. */
        public Integer getQueueCapacity() {
            return this.queueCapacity;
        }

        /** Sets the queue capacity. */
        public void setQueueCapacity(Integer queueCapacity) {
            this.queueCapacity = queueCapacity;
        }

        /** Returns whether a full pool rejects at once, or null to inherit. */
        public Boolean getNonblocking() {
            return this.nonblocking;
        }

        /** Sets whether a full pool rejects at once. */
        public void setNonblocking(Boolean nonblocking) {
            this.nonblocking = nonblocking;
        }

        /** Returns the most callers that may wait, or null to inherit. */
        public Integer getMaxBlockingTasks() {
            return this.maxBlockingTasks;
        }

        /** Sets the most callers that may wait. */
        public void setMaxBlockingTasks(Integer maxBlockingTasks) {
            this.maxBlockingTasks = maxBlockingTasks;
        }

        /** Returns the longest a caller waits, or null to inherit. */
        public Duration getBlockingTimeout() {
            return this.blockingTimeout;
        }

        /** Sets the longest a caller waits. */
        public void setBlockingTimeout(Duration blockingTimeout) {
            this.blockingTimeout = blockingTimeout;
        }

        /** Returns the queue timeout, or null to inherit. */
        public Duration getQueueTimeout() {
            return this.queueTimeout;
        }

        /** Sets the queue timeout. */
        public void setQueueTimeout(Duration queueTimeout) {
            this.queueTimeout = queueTimeout;
        }

        /** Returns the run timeout, or null to inherit. */
        public Duration getRunTimeout() {
            return this.runTimeout;
        }

        /** Sets the run timeout. */
        public void setRunTimeout(Duration runTimeout) {
            this.runTimeout = runTimeout;
        }

        /** Returns whether workers are virtual threads, or null to inherit. */
        public Boolean getVirtualThreads() {
            return this.virtualThreads;
        }

        /** Sets whether workers are virtual threads. */
        public void setVirtualThreads(Boolean virtualThreads) {
            this.virtualThreads = virtualThreads;
        }

        /** Returns the shutdown options. */
        public Shutdown getShutdown() {
            return this.shutdown;
        }

        /** Returns the adaptive capacity options. */
        public Adaptive getAdaptive() {
            return this.adaptive;
        }

    }

    /**
     * Adaptive capacity of a pool: while enabled, the capacity follows a limit computed from the
     * tasks' run time (and, with drop-on, their failures), within [min-capacity, max-capacity];
     * capacity is where it starts and what switching it off restores. Needs
     * io.github.workerpool:pool-adaptive (the starter has it).
     */
    public static class Adaptive {

        /**
         * Whether the pool sizes itself from its tasks' run time. Default false.
         */
        private Boolean enabled;

        /**
         * Least capacity adaptive sizing sets. Default 1.
         */
        private Integer minCapacity;

        /**
         * Most capacity adaptive sizing sets. Default 200, or min-capacity if that is higher.
         */
        private Integer maxCapacity;

        /**
         * How the limit is found: gradient2, aimd (needs run-timeout) or vegas. Default gradient2.
         */
        private String algorithm;

        /**
         * Failures that mean the backend is overloaded, by exception class name (such as
         * java.util.concurrent.TimeoutException): a task that fails with one of them, or with an
         * exception caused by one (subclasses match too), makes aimd and vegas back off (other
         * failures faster than run-timeout are no samples); with
         * gradient2, which ignores failures, startup refuses it. An empty value clears what
         * pools.defaults sets. Default none.
         */
        private List<String> dropOn;

        /** Returns whether adaptive sizing is on, or null to inherit. */
        public Boolean getEnabled() {
            return this.enabled;
        }

        /** Sets whether adaptive sizing is on. */
        public void setEnabled(Boolean enabled) {
            this.enabled = enabled;
        }

        /** Returns the least capacity, or null to inherit. */
        public Integer getMinCapacity() {
            return this.minCapacity;
        }

        /** Sets the least capacity. */
        public void setMinCapacity(Integer minCapacity) {
            this.minCapacity = minCapacity;
        }

        /** Returns the most capacity, or null to inherit. */
        public Integer getMaxCapacity() {
            return this.maxCapacity;
        }

        /** Sets the most capacity. */
        public void setMaxCapacity(Integer maxCapacity) {
            this.maxCapacity = maxCapacity;
        }

        /** Returns the algorithm, or null to inherit. */
        public String getAlgorithm() {
            return this.algorithm;
        }

        /** Sets the algorithm. */
        public void setAlgorithm(String algorithm) {
            this.algorithm = algorithm;
        }

        /** Returns the exception classes that mean overload, or null to inherit. */
        public List<String> getDropOn() {
            return this.dropOn;
        }

        /** Sets the exception classes that mean overload. */
        public void setDropOn(List<String> dropOn) {
            this.dropOn = dropOn;
        }

    }

    /**
     * What happens to a pool when the application context closes.
     */
    public static class Shutdown {

        /**
         * How long context close waits for queued and running tasks before interrupting them
         * and cancelling the tasks that never started. Default 30s.
         */
        private Duration awaitTerminationPeriod;

        /** Returns the await period, or null to inherit. */
        public Duration getAwaitTerminationPeriod() {
            return this.awaitTerminationPeriod;
        }

        /** Sets the await period. */
        public void setAwaitTerminationPeriod(Duration awaitTerminationPeriod) {
            this.awaitTerminationPeriod = awaitTerminationPeriod;
        }

    }

}
