package io.github.workerpool.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import io.github.workerpool.PoolStats;
import io.github.workerpool.Pool;
import io.github.workerpool.PoolListener;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;

/**
 * Binds the meters of every worker pool bean, tagged {@code name}: the
 * {@code ExecutorServiceMetrics} names where a meter means the same ({@code executor.*}), and
 * {@code pool.*} for the ants figures. Pools created after binding are bound when they are made;
 * a pool's meters are removed when its bean is destroyed.
 */
class PoolsMeterBinder implements MeterBinder, DestructionAwareBeanPostProcessor, BeanFactoryAware {

    /*
     * This is a bean post-processor so that it sees pools come and go: bindTo() binds the pools
     * that exist when a registry is ready, postProcessAfterInitialization() binds any made later,
     * and postProcessBeforeDestruction() removes a pool's meters (and stops its timers) before the
     * pool shuts down. bound maps each pool (by identity) to its meters in every registry.
     */

    private final List<MeterRegistry> registries = new ArrayList<>();

    private final Map<Pool, List<Registered>> bound = new IdentityHashMap<>();

    private ListableBeanFactory beanFactory;

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
        Pools.in(this.beanFactory).values().forEach((pool) -> bind(pool, registry));
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        if (bean instanceof Pool pool) {
            List<MeterRegistry> current;
            synchronized (this) {
                current = List.copyOf(this.registries);
            }
            current.forEach((registry) -> bind(pool, registry));
        }
        return bean;
    }

    @Override
    public void postProcessBeforeDestruction(Object bean, String beanName) throws BeansException {
        if (bean instanceof Pool pool) {
            unbind(pool);
        }
    }

    @Override
    public boolean requiresDestruction(Object bean) {
        return bean instanceof Pool;
    }

    /** Removes every meter of the pool from every registry. */
    synchronized void unbind(Pool pool) {
        List<Registered> registered = this.bound.remove(pool);
        if (registered == null) {
            return;
        }
        for (Registered r : registered) {
            pool.removeListener(r.timers);
            r.meters.forEach(r.registry::remove);
        }
    }

    private synchronized void bind(Pool pool, MeterRegistry registry) {
        List<Registered> registered = this.bound.computeIfAbsent(pool, (p) -> new ArrayList<>());
        if (registered.stream().anyMatch((r) -> r.registry == registry)) {
            return;
        }
        Tags tags = Tags.of("name", pool.name());
        List<Meter> meters = new ArrayList<>();
        meters.add(gauge(registry, "executor.pool.max", pool, Pool::capacity, tags, BaseUnits.THREADS,
                "The maximum allowed number of threads in the pool; -1 when unbounded"));
        meters.add(gauge(registry, "executor.pool.size", pool, (p) -> p.running() + p.idle(), tags,
                BaseUnits.THREADS, "The current number of threads in the pool"));
        meters.add(gauge(registry, "executor.active", pool, Pool::running, tags, BaseUnits.THREADS,
                "The approximate number of threads that are actively executing tasks"));
        meters.add(gauge(registry, "executor.queued", pool, Pool::queued, tags, BaseUnits.TASKS,
                "The approximate number of tasks that are queued for execution"));
        meters.add(gauge(registry, "executor.queue.remaining", pool,
                (p) -> Math.max(0, p.config().queueCapacity() - p.queued()), tags, BaseUnits.TASKS,
                "The number of additional elements that this queue can ideally accept without blocking"));
        meters.add(gauge(registry, "pool.waiting", pool, Pool::waiting, tags, BaseUnits.THREADS,
                "The number of callers blocked in submit waiting for a free worker"));
        meters.add(gauge(registry, "pool.idle", pool, Pool::idle, tags, BaseUnits.THREADS,
                "The number of live workers waiting for work"));
        meters.add(counter(registry, "executor.completed", pool, PoolStats::completed, tags,
                "The approximate total number of tasks that have completed execution"));
        meters.add(counter(registry, "pool.tasks.failed", pool, PoolStats::failed, tags,
                "The total number of tasks that ended by throwing"));
        meters.add(counter(registry, "pool.tasks.rejected", pool, PoolStats::rejected, tags,
                "The total number of tasks the pool refused"));
        meters.add(counter(registry, "pool.tasks.cancelled", pool, PoolStats::cancelled, tags,
                "The total number of accepted tasks that never ran"));
        Timer wait = Timer.builder("pool.task.wait")
            .tags(tags)
            .description("Time from a task's submission to its start")
            .register(registry);
        Timer duration = Timer.builder("pool.task.duration")
            .tags(tags)
            .description("Time a task ran")
            .register(registry);
        meters.add(wait);
        meters.add(duration);
        PoolListener timers = new PoolListener() {

            @Override
            public void taskStarted(Pool p, long queuedNanos) {
                wait.record(queuedNanos, TimeUnit.NANOSECONDS);
            }

            @Override
            public void taskEnded(Pool p, long runNanos, Throwable failure) {
                duration.record(runNanos, TimeUnit.NANOSECONDS);
            }

        };
        pool.addListener(timers);
        registered.add(new Registered(registry, meters, timers));
    }

    private static Gauge gauge(MeterRegistry registry, String name, Pool pool, ToDoubleFunction<Pool> f,
            Tags tags, String unit, String description) {
        return Gauge.builder(name, pool, f).tags(tags).baseUnit(unit).description(description).register(registry);
    }

    private static FunctionCounter counter(MeterRegistry registry, String name, Pool pool,
            ToDoubleFunction<PoolStats> f, Tags tags, String description) {
        return FunctionCounter.builder(name, pool, (p) -> f.applyAsDouble(p.stats()))
            .tags(tags)
            .baseUnit(BaseUnits.TASKS)
            .description(description)
            .register(registry);
    }

    private record Registered(MeterRegistry registry, List<Meter> meters, PoolListener timers) {
    }

}
