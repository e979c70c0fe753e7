package io.github.workerpool.spring.boot.autoconfigure.event;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.github.workerpool.Pool;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Counts the published {@link PoolEvent}s in the {@code pool.events} counter, tagged {@code name}
 * (the pool's bean name) and {@code kind} ({@code rejection}, {@code saturation},
 * {@code queue-timeout}, {@code run-timeout}, {@code closed}). Every pool bean has one counter per
 * kind from the start, at 0, so that a rate over it is defined before the first event; they are
 * removed when the pool's bean is destroyed. It hears an event before any listener with an
 * ordinary order ({@code @Order}, {@code Ordered}; a {@code PriorityOrdered} one comes first), so
 * that one that throws (Spring's multicaster stops at it) does not keep the event from its count.
 */
@Order(Ordered.HIGHEST_PRECEDENCE) // before the listeners: one that throws stops those after it
final class PoolEventsMeterBinder
        implements MeterBinder, ApplicationListener<PoolEvent>, DestructionAwareBeanPostProcessor, BeanFactoryAware {

    /*
     * The meters follow the pool beans as PoolsMeterBinder's do: bindTo() registers the counters
     * of the pools that exist when a registry is ready, postProcessAfterInitialization() those of
     * pools made later, postProcessBeforeDestruction() removes a pool's. bound maps each pool's
     * bean name to its counters, by registry (by identity). Events are few (rate-limited), so every method
     * simply holds this object's monitor.
     */

    static final String METER = "pool.events";

    private final List<MeterRegistry> registries = new ArrayList<>();

    private final Map<String, Map<MeterRegistry, Map<PoolEvent.Kind, Counter>>> bound = new HashMap<>();

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
        this.beanFactory.getBeansOfType(Pool.class, false, true).keySet().forEach((name) -> bind(name, registry));
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        if (bean instanceof Pool && singleton(this.beanFactory, beanName)) {
            List<MeterRegistry> current;
            synchronized (this) {
                current = List.copyOf(this.registries);
            }
            current.forEach((registry) -> bind(beanName, registry));
        }
        return bean;
    }

    /**
     * Whether a pool initialized under that name is a singleton bean, as the endpoint, health and
     * PoolsMeterBinder count pools: the instances of a prototype or scoped pool bean, or pools
     * with no bean of that name (createBean(), inner beans), would share one name's counters and
     * watch, and the container never destroys them, so they would be kept for good. With no bean
     * factory (made by hand), every pool counts.
     */
    static boolean singleton(BeanFactory beanFactory, String beanName) {
        return beanFactory == null || (beanFactory.containsBean(beanName) && beanFactory.isSingleton(beanName));
    }

    @Override
    public synchronized void postProcessBeforeDestruction(Object bean, String beanName) throws BeansException {
        if (bean instanceof Pool) {
            Map<MeterRegistry, Map<PoolEvent.Kind, Counter>> removed = this.bound.remove(beanName);
            if (removed != null) {
                removed.forEach((registry, counters) -> counters.values().forEach(registry::remove));
            }
        }
    }

    @Override
    public boolean requiresDestruction(Object bean) {
        return bean instanceof Pool;
    }

    @Override
    public synchronized void onApplicationEvent(PoolEvent event) {
        this.bound.getOrDefault(event.getPoolName(), Map.of())
            .values()
            .forEach((counters) -> counters.get(event.kind()).increment());
    }

    /** Registers the pool's counters in the registry, unless they are there. */
    private synchronized void bind(String beanName, MeterRegistry registry) {
        Map<MeterRegistry, Map<PoolEvent.Kind, Counter>> poolBound = this.bound.computeIfAbsent(beanName,
                (n) -> new IdentityHashMap<>());
        if (poolBound.containsKey(registry)) {
            return;
        }
        Map<PoolEvent.Kind, Counter> counters = new EnumMap<>(PoolEvent.Kind.class);
        for (PoolEvent.Kind kind : PoolEvent.Kind.values()) {
            counters.put(kind, Counter.builder(METER)
                .tag("name", beanName)
                .tag("kind", kind.tag())
                .baseUnit(BaseUnits.EVENTS)
                .description("The number of pool events published; one event stands for one or more occurrences")
                .register(registry));
        }
        poolBound.put(registry, counters);
    }

}
