package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolStats;
import io.github.workerpool.PoolListener;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;

/**
 * Binds the meters of every worker pool bean, tagged {@code name}: the
 * {@code ExecutorServiceMetrics} names where a meter means the same ({@code executor.*}), the
 * {@code TimedExecutorService} timers {@code executor} (run time) and {@code executor.idle}
 * (submit to start), and {@code pool.*} for the ants figures. Pools created after binding are
 * bound when they are made; a pool's meters are removed when its bean is destroyed. Like the
 * endpoint and health, only singleton pool beans have meters, not prototype or scoped ones; a
 * scoped proxy is a singleton, whose timers listen to each new instance behind it.
 */
class PoolsMeterBinder implements MeterBinder, DestructionAwareBeanPostProcessor, BeanFactoryAware {

    /*
     * This is a bean post-processor so that it sees pools come and go: bindTo() binds the pools
     * that exist when a registry is ready, postProcessAfterInitialization() binds any made later,
     * and postProcessBeforeDestruction() removes a pool's meters (and stops its timers) before the
     * pool shuts down. bound maps each pool (by identity) to its snapshot and its meters in every
     * registry; it also keeps the snapshot alive, which the meters hold only weakly.
     *
     * Cost of a scrape. Every gauge and counter reads one figure of the pool's stats(), and
     * stats() is not free: it takes the pool's lock and sums the counts of every worker. Calling
     * it once per meter would cost a scrape 13 such reads per pool. So the meters of a pool read a
     * Snapshot that calls stats() (and config(), for the queue's capacity) at most once per
     * SNAPSHOT_LIFETIME, shared by every meter and every registry: a scrape, which reads all the
     * meters within a few milliseconds, reads each pool once, and the figures it reports for a
     * pool mostly come from one read (a scrape over SNAPSHOT_LIFETIME, or one that begins near
     * the end of a snapshot's life, mixes two: the board filters nothing on a sum of two
     * meters). A meter read on its own
     * (/actuator/metrics/...) is at most SNAPSHOT_LIFETIME old. The timers cost nothing on a
     * scrape: the pool's listener records them as tasks start and end.
     */

    private static final Log logger = LogFactory.getLog(PoolsMeterBinder.class);

    /** How long one read of a pool's stats() serves its meters. */
    static final Duration SNAPSHOT_LIFETIME = Duration.ofMillis(100);

    private final List<MeterRegistry> registries = new ArrayList<>();

    private final Map<Pool, Bound> bound = new IdentityHashMap<>();

    /** The bound pools by bean name; guarded by this. */
    private final Map<String, Pool> boundByName = new HashMap<>();

    private final LongSupplier nanoClock;

    private final long snapshotLifetimeNanos;

    private ListableBeanFactory beanFactory;

    PoolsMeterBinder() {
        this(System::nanoTime, SNAPSHOT_LIFETIME);
    }

    /** With a clock of its own, for tests. */
    PoolsMeterBinder(LongSupplier nanoClock, Duration snapshotLifetime) {
        this.nanoClock = nanoClock;
        this.snapshotLifetimeNanos = snapshotLifetime.toNanos();
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        this.beanFactory = (ListableBeanFactory) beanFactory;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        synchronized (this) {
            if (this.registries.contains(registry)) {
                return;
            }
            this.registries.add(registry);
        }
        Pools.in(this.beanFactory).forEach((name, pool) -> bind(name, pool, registry));
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        if (bean instanceof Pool pool && Pools.isListed(this.beanFactory, beanName)) {
            List<MeterRegistry> current;
            synchronized (this) {
                current = List.copyOf(this.registries);
            }
            current.forEach((registry) -> bind(beanName, pool, registry));
        }
        else if (bean instanceof Pool target && ScopedProxyUtils.isScopedTarget(beanName)) {
            timeNewTarget(ScopedProxyUtils.getOriginalBeanName(beanName), target);
        }
        return bean;
    }

    /**
     * A new instance behind a scoped pool bean (@RefreshScope, say): the bean, a proxy, is bound
     * once, and its gauges read the instance of the moment; its timers listen to each instance,
     * or they would stop at the first one's end. The first instance, made by the bind's
     * addListener through the proxy, is not yet recorded in bound and gets no second listener.
     */
    private synchronized void timeNewTarget(String name, Pool target) {
        Pool proxy = this.boundByName.get(name);
        Bound proxyBound = (proxy != null) ? this.bound.get(proxy) : null;
        if (proxyBound != null) {
            proxyBound.registered.forEach((r) -> target.addListener(r.timers));
        }
    }

    @Override
    public void postProcessBeforeDestruction(Object bean, String beanName) throws BeansException {
        if (bean instanceof Pool pool) {
            unbind(pool, beanName);
        }
    }

    /**
     * The bean destroyed is the raw one, while the one bound may be what a post-processor made of
     * it (an AOP proxy): then it is found by its name (helper-148: its meters stayed, holding the
     * closed pool).
     */
    private synchronized void unbind(Pool pool, String beanName) {
        Pool byName = this.boundByName.get(beanName);
        unbind((this.bound.containsKey(pool) || byName == null) ? pool : byName);
    }

    @Override
    public boolean requiresDestruction(Object bean) {
        return bean instanceof Pool;
    }

    /** Removes every meter of the pool from every registry. */
    synchronized void unbind(Pool pool) {
        Bound removed = this.bound.remove(pool);
        if (removed == null) {
            return;
        }
        this.boundByName.values().removeIf((p) -> p == pool);
        for (Registered r : removed.registered) {
            r.meters.forEach(r.registry::remove);
            try {
                pool.removeListener(r.timers);
            }
            catch (RuntimeException ex) {
                // The meters are gone already; a pool that cannot be reached records nothing more.
                logger.debug("Pool's timers not removed from it", ex);
            }
        }
    }

    /** Binds the pool's meters, tagged with its bean name: the name it has in the pools endpoint too. */
    private synchronized void bind(String beanName, Pool pool, MeterRegistry registry) {
        this.boundByName.put(beanName, pool);
        Bound poolBound = this.bound.computeIfAbsent(pool,
                (p) -> new Bound(new Snapshot(p, this.nanoClock, this.snapshotLifetimeNanos), new ArrayList<>()));
        if (poolBound.registered.stream().anyMatch((r) -> r.registry == registry)) {
            return;
        }
        Snapshot snapshot = poolBound.snapshot;
        Tags tags = Tags.of("name", beanName);
        List<Meter> meters = new ArrayList<>();
        meters.add(gauge(registry, "executor.pool.max", snapshot, PoolStats::capacity, tags, BaseUnits.THREADS,
                "The maximum allowed number of threads in the pool; -1 when unbounded"));
        meters.add(gauge(registry, "executor.pool.size", snapshot, PoolStats::workers, tags, BaseUnits.THREADS,
                "The current number of threads in the pool"));
        meters.add(gauge(registry, "executor.active", snapshot, PoolStats::running, tags, BaseUnits.THREADS,
                "The approximate number of threads that are actively executing tasks"));
        meters.add(gauge(registry, "executor.queued", snapshot, PoolStats::queued, tags, BaseUnits.TASKS,
                "The approximate number of tasks that are queued for execution"));
        meters.add(Gauge.builder("executor.queue.remaining", snapshot, Snapshot::queueRemaining)
            .tags(tags)
            .baseUnit(BaseUnits.TASKS)
            .description("The number of additional elements that this queue can ideally accept without blocking")
            .register(registry));
        meters.add(gauge(registry, "pool.waiting", snapshot, PoolStats::waiting, tags, BaseUnits.THREADS,
                "The number of callers blocked in submit waiting for a free worker"));
        meters.add(gauge(registry, "pool.idle", snapshot, PoolStats::idle, tags, BaseUnits.THREADS,
                "The number of live workers waiting for work"));
        // ThreadPoolExecutor's meaning, which Micrometer's meter of this name reads: a task that
        // threw has completed execution too (stock dashboards plot it as the tasks run).
        meters.add(counter(registry, "executor.completed", snapshot, (s) -> s.completed() + s.failed(), tags,
                "The approximate total number of tasks that have completed execution"));
        meters.add(counter(registry, "pool.tasks.failed", snapshot, PoolStats::failed, tags,
                "The total number of tasks that ended by throwing"));
        meters.add(counter(registry, "pool.tasks.rejected", snapshot, PoolStats::rejected, tags,
                "The total number of tasks the pool refused"));
        meters.add(counter(registry, "pool.tasks.cancelled", snapshot, PoolStats::cancelled, tags,
                "The total number of accepted tasks that never ran, or whose future was cancelled while they ran"));
        meters.add(counter(registry, "pool.tasks.queue.timeout", snapshot, PoolStats::queueTimeouts, tags,
                "The total number of tasks that started later than the pool's queue timeout after their submission"));
        meters.add(counter(registry, "pool.tasks.run.timeout", snapshot, PoolStats::runTimeouts, tags,
                "The total number of tasks that ran longer than the pool's run timeout"));
        // The names, tags and (registry-chosen) base unit of Micrometer's TimedExecutorService, which
        // registers them without a description; one is added here, it is not part of a meter's identity.
        Timer run = Timer.builder("executor")
            .tags(tags)
            .description("Time tasks took to run")
            .register(registry);
        Timer idle = Timer.builder("executor.idle")
            .tags(tags)
            .description("Time tasks waited from their submission to their start")
            .register(registry);
        meters.add(run);
        meters.add(idle);
        PoolListener timers = new PoolListener() {

            @Override
            public void taskStarted(Pool p, long queuedNanos) {
                idle.record(queuedNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void taskEnded(Pool p, long runNanos, Throwable failure) {
                run.record(runNanos, TimeUnit.NANOSECONDS);
            }

        };
        pool.addListener(timers);
        poolBound.registered.add(new Registered(registry, meters, timers));
    }

    private static Gauge gauge(MeterRegistry registry, String name, Snapshot snapshot, ToDoubleFunction<PoolStats> f,
            Tags tags, String unit, String description) {
        return Gauge.builder(name, snapshot, (s) -> s.gauge(f))
            .tags(tags)
            .baseUnit(unit)
            .description(description)
            .register(registry);
    }

    private static FunctionCounter counter(MeterRegistry registry, String name, Snapshot snapshot,
            ToDoubleFunction<PoolStats> f, Tags tags, String description) {
        return FunctionCounter.builder(name, snapshot, (s) -> s.counter(f))
            .tags(tags)
            .baseUnit(BaseUnits.TASKS)
            .description(description)
            .register(registry);
    }

    /**
     * A pool's stats() and queueCapacity(), read at most once per lifetime however many meters ask.
     * A read that throws fails no scrape (Micrometer catches a gauge's failure, not a counter's,
     * and one counter that threw made /actuator/prometheus answer 500 for every meter of the
     * application): until the pool can be read again its gauges read NaN and its counters keep
     * their last values, as counters must never go backwards.
     */
    static final class Snapshot {

        private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

        private final Pool pool;

        private final LongSupplier nanoClock;

        private final long lifetimeNanos;

        private PoolStats stats;

        private int queueCapacity;

        private long readAt;

        private boolean tried;

        private boolean failing;

        private long warnedAt;

        private boolean warned;

        Snapshot(Pool pool, LongSupplier nanoClock, long lifetimeNanos) {
            this.pool = pool;
            this.nanoClock = nanoClock;
            this.lifetimeNanos = lifetimeNanos;
        }

        synchronized double gauge(ToDoubleFunction<PoolStats> f) {
            refresh();
            return this.failing ? Double.NaN : f.applyAsDouble(this.stats);
        }

        synchronized double counter(ToDoubleFunction<PoolStats> f) {
            refresh();
            return (this.stats != null) ? f.applyAsDouble(this.stats) : 0;
        }

        synchronized double queueRemaining() {
            refresh();
            // The pool's queueCapacity(), not config()'s: a MultiPool's config is one sub-pool's,
            // while its stats count every sub-pool's queue.
            return this.failing ? Double.NaN : Math.max(0, (long) this.queueCapacity - this.stats.queued());
        }

        private void refresh() {
            long now = this.nanoClock.getAsLong();
            if (this.tried && now - this.readAt < this.lifetimeNanos) {
                return;
            }
            this.tried = true;
            this.readAt = now; // a failed read is tried again a lifetime later, like any other
            // Failing until the read has worked: an Error thrown through here (out of memory) leaves
            // the gauges NaN, not reading stats that were never taken.
            this.failing = true;
            try {
                PoolStats read = this.pool.stats();
                this.queueCapacity = this.pool.queueCapacity();
                this.stats = read;
                this.failing = false;
            }
            catch (RuntimeException ex) {
                if (!this.warned || now - this.warnedAt >= WARN_EVERY_NANOS) {
                    this.warned = true;
                    this.warnedAt = now;
                    logger.warn("Pool " + name() + " could not be read for its meters: its gauges read NaN and its "
                            + "counters keep their last values until it can (logged at most once a minute)", ex);
                }
            }
        }

        private String name() {
            try {
                return "'" + this.pool.name() + "'";
            }
            catch (RuntimeException ex) {
                return "(its name could not be read either)";
            }
        }

    }

    private record Bound(Snapshot snapshot, List<Registered> registered) {
    }

    private record Registered(MeterRegistry registry, List<Meter> meters, PoolListener timers) {
    }

}
