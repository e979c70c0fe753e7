package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.github.workerpool.PoolConfig;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Applies changed {@code pools.*} properties to the running pools when Spring Cloud publishes an
 * {@link EnvironmentChangeEvent} (Config Server with {@code /actuator/refresh} or Spring Cloud
 * Bus, ZooKeeper, Consul and Kubernetes watchers): each pool from {@code pools.instances} is
 * reconfigured live, as one atomic change, the same bean.
 */
final class PoolsRefresher implements ApplicationListener<EnvironmentChangeEvent> {

    /*
     * What a refresh does, pool by pool, so that one bad value never takes down the application
     * or a half-applied pool:
     *   - the whole pools.* tree is bound again; a value that cannot be bound: one WARN naming
     *     the property, the value and the fix; no pool changes;
     *   - for each pool bean made from pools.instances: its live options get their new values
     *     (an option left out takes the pool's default) in one reconfigure; a value the pool
     *     refuses: one WARN naming the property; that pool unchanged, the others go on;
     *   - an option only a restart can change (pre-alloc, virtual-threads, the kind of queue, the
     *     await period), an instance added or removed, a new default-pool: one WARN each that it
     *     takes a restart.
     */

    private static final Log logger = LogFactory.getLog(PoolsRefresher.class);

    private static final ConfigurationPropertyName DEFAULTS = ConfigurationPropertyName.of("pools.defaults");

    private static final ConfigurationPropertyName INSTANCES = ConfigurationPropertyName.of("pools.instances");

    private final Environment environment;

    private final ListableBeanFactory beanFactory;

    /** Changed keys not applied yet: those of refreshes refused as a whole; guarded by this. */
    private final Set<String> pending = new LinkedHashSet<>();

    /**
     * The web server pool's rule, from the pools.web-server.* values the server was built with: a
     * refresh that changes them takes a restart (WARN), so a guard read afresh would let a pool be
     * switched adaptive down to the reserved threads the running server still keeps.
     */
    private final AdaptiveGuard adaptiveGuard;

    PoolsRefresher(Environment environment, ListableBeanFactory beanFactory) {
        this.environment = environment;
        this.beanFactory = beanFactory;
        this.adaptiveGuard = AdaptiveGuard.of(environment);
    }

    /** The application's class loader, for adaptive.drop-on: refresh may run on any thread. */
    private ClassLoader classLoader() {
        return (this.beanFactory instanceof ConfigurableBeanFactory configurable)
                ? configurable.getBeanClassLoader() : null;
    }

    @Override
    public void onApplicationEvent(EnvironmentChangeEvent event) {
        if (event.getKeys().stream().anyMatch((key) -> key.startsWith("pools."))) {
            refresh(event.getKeys());
        }
    }

    /**
     * Applies the environment's pools.* to the running pools; see the notes. One refresh at a
     * time: the keys a refused refresh leaves pending belong to the next.
     */
    synchronized void refresh(Set<String> changed) {
        PoolsProperties properties;
        this.pending.addAll(changed);
        try {
            properties = PoolsPropertiesBinding.bind(this.environment);
            PoolSettings.checkDefaults(properties.getDefaults(), classLoader());
        }
        catch (PoolConfigurationException ex) {
            // The keys stay pending: once the bad value is fixed, a refresh whose own keys name
            // only the fix (ZooKeeper sends one event per node) applies the rest too.
            logger.warn("Pools not refreshed: " + ex.getMessage() + " (" + ex.getAction() + ")");
            return;
        }
        Set<String> keys = new LinkedHashSet<>(this.pending);
        this.pending.clear();
        Map<String, SpringPool> running = new LinkedHashMap<>(
                this.beanFactory.getBeansOfType(SpringPool.class, false, false));
        for (Map.Entry<String, PoolsProperties.Pool> instance : properties.getInstances().entrySet()) {
            String name = instance.getKey();
            SpringPool pool = running.remove(name);
            if (pool == null) {
                try {
                    PoolsRegistrar.checkName(name);
                    logger.warn("Pool '" + name + "' was added to pools.instances; it takes a restart to create it");
                }
                catch (PoolConfigurationException ex) {
                    logger.warn("Pool '" + name + "' was added to pools.instances, and a restart would fail: "
                            + ex.getMessage() + " (" + ex.getAction() + ")");
                }
                continue;
            }
            if (touches(keys, name)) { // else it keeps its options, a tune from the endpoint among them
                synchronized (pool.changes()) { // one refresh or endpoint tune at a time (see SpringPool)
                    refresh(pool, new PoolSettings(name, instance.getValue(), properties.getDefaults(), classLoader()));
                }
            }
        }
        for (String removed : running.keySet()) {
            logger.warn("Pool '" + removed + "' is no longer in pools.instances; it keeps running until a restart "
                    + "removes it");
        }
        if (keys.stream().anyMatch((key) -> key.equals("pools.default-pool") || key.equals("pools.propagate-context"))) {
            logger.warn("pools.default-pool and pools.propagate-context take a restart to change");
        }
        if (keys.stream().anyMatch((key) -> key.startsWith("pools.web-server."))) {
            logger.warn("pools.web-server.* take a restart to change; the web server's pool itself changes live "
                    + "under pools.instances");
        }
        if (keys.stream().anyMatch((key) -> key.startsWith("pools.events."))) {
            logger.warn("pools.events.* take a restart to change; the events keep their settings until then");
        }
    }

    /**
     * Whether a changed key sets the pool's options: one under its {@code pools.instances.NAME},
     * or under {@code pools.defaults}. (A key under {@code pools} that is no option of any group
     * never gets here: binding refuses it.) The name is compared as binding made the map's key,
     * in its original form: {@code order-events} and {@code mailSender} are kept as written.
     */
    static boolean touches(Set<String> keys, String pool) {
        for (String key : keys) {
            ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
            if (DEFAULTS.isAncestorOf(name)) {
                return true;
            }
            if (name.getNumberOfElements() > 2 && INSTANCES.equals(name.chop(2))
                    && name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL).equals(pool)) {
                return true;
            }
        }
        return false;
    }

    private void refresh(SpringPool pool, PoolSettings settings) {
        String name = settings.name();
        List<String> restartOnly = new ArrayList<>();
        PoolConfig before = pool.config();
        PoolConfig after;
        AdaptiveSupport.Control adaptive = pool.adaptive();
        String adaptiveChange;
        try {
            // Every check that can refuse the refresh comes before the first change: a refused
            // value leaves the pool with all its options.
            PoolSettings.AdaptiveSettings nextAdaptive = settings.checkedAdaptive();
            if (adaptive != null && nextAdaptive.enabled()) {
                String refusal = this.adaptiveGuard.refusal(name, nextAdaptive.minCapacity());
                if (refusal != null) {
                    String property = PoolSettings.property(name, "adaptive.min-capacity");
                    throw new PoolConfigurationException(property, nextAdaptive.minCapacity(), refusal,
                            "Update " + property + ".");
                }
            }
            Duration awaitTerminationPeriod = settings.awaitTerminationPeriod();
            boolean adaptiveCapacity = adaptive != null && (adaptive.enabled() || nextAdaptive.enabled());
            after = pool.reconfigure((current) -> {
                restartOnly.clear();
                return settings.liveConfig(current, restartOnly, adaptiveCapacity);
            });
            if (adaptive == null && nextAdaptive.enabled()) {
                restartOnly.add(nextAdaptive.enabledProperty() + "=true (the pool has no adaptive capacity: "
                        + (before.preAlloc() ? "pre-alloc fixes its capacity" : "add " + AdaptiveSupport.DEPENDENCY)
                        + ")");
            }
            adaptiveChange = refreshAdaptive(pool, settings, nextAdaptive, adaptiveCapacity);
            if (!Objects.equals(awaitTerminationPeriod, pool.awaitTerminationPeriod())) {
                restartOnly.add(PoolSettings.property(name, PoolSettings.AWAIT_TERMINATION_PERIOD) + "="
                        + PoolConfigurationException.shown(awaitTerminationPeriod));
            }
        }
        catch (PoolConfigurationException ex) {
            logger.warn("Pool '" + name + "' not refreshed, it keeps its options: " + ex.getMessage() + " ("
                    + ex.getAction() + ")");
            return;
        }
        catch (IllegalArgumentException | IllegalStateException ex) {
            logger.warn("Pool '" + name + "' not refreshed, it keeps its options: " + ex.getMessage());
            return;
        }
        String changes = (changes(before, after) + adaptiveChange).replaceFirst("^, ", "");
        if (!changes.isEmpty()) {
            logger.info("Pool '" + name + "' refreshed from pools.*: " + changes);
        }
        for (String property : restartOnly) {
            logger.warn("Pool '" + name + "': " + property + " takes a restart to apply; the pool keeps its value");
        }
        if (settings.capacity() == null) {
            String property = PoolSettings.property(name, "capacity");
            logger.warn("Pool '" + name + "': " + property + " was removed; the pool keeps capacity "
                    + pool.config().capacity() + ", but a restart would fail without it (capacity is required). Set "
                    + property + " (or pools.defaults.capacity) again");
        }
    }

    /**
     * Gives a pool's adaptive sizing its refreshed settings: the configured capacity (what switching
     * it off restores) when it owns the capacity, then on or off, new bounds, a new algorithm or a
     * new drop-on (which start it afresh).
     * @return the change, as text for the log; empty if none
     */
    private static String refreshAdaptive(SpringPool pool, PoolSettings settings, PoolSettings.AdaptiveSettings next,
            boolean adaptiveCapacity) {
        AdaptiveSupport.Control adaptive = pool.adaptive();
        if (adaptive == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        Integer configured = settings.capacity();
        if (adaptiveCapacity && configured != null && configured != adaptive.configuredCapacity()) {
            out.append(", configured capacity ").append(adaptive.configuredCapacity()).append(" -> ").append(configured);
            adaptive.configuredCapacity(configured);
        }
        PoolSettings.AdaptiveSettings was = adaptive.settings();
        boolean wasEnabled = adaptive.enabled();
        if (wasEnabled != next.enabled() || !next.sameLimiter(was)) {
            pool.adaptive(adaptive.apply(next));
            out.append(", adaptive ").append(describe(wasEnabled, was)).append(" -> ").append(describe(next.enabled(), next));
        }
        return out.toString();
    }

    private static String describe(boolean enabled, PoolSettings.AdaptiveSettings settings) {
        String dropOn = settings.dropOn().isEmpty() ? "" : ", drop-on " + String.join(", ", settings.dropOnNames());
        return (enabled ? "on" : "off") + " (" + settings.algorithm() + " [" + settings.minCapacity() + ", "
                + settings.maxCapacity() + "]" + dropOn + ")";
    }

    private static String changes(PoolConfig before, PoolConfig after) {
        StringBuilder out = new StringBuilder();
        for (PoolOption option : PoolOption.values()) {
            // As application.yml writes them ("expiry 1m -> 2m"): the log reads against the properties.
            String was = PoolConfigurationException.shown(option.read(before));
            String now = PoolConfigurationException.shown(option.read(after));
            if (!Objects.equals(was, now)) {
                out.append((out.length() > 0) ? ", " : "").append(option.field()).append(' ').append(was)
                    .append(" -> ").append(now);
            }
        }
        return out.toString();
    }

}
