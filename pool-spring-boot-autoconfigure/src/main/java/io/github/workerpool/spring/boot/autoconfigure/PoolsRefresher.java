package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;
import io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsAutoConfiguration;
import io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.thread.Threading;
import org.springframework.boot.context.properties.bind.Binder;
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
     *   - for each pool bean made from pools.instances: the options whose configured value (its
     *     own, else pools.defaults) changed since the settings last applied (at startup, or by the
     *     last refresh of that pool) get it, in one reconfigure; an option removed from the
     *     configuration takes the pool's default. The others keep the pool's value, whatever set
     *     it (an endpoint tune, the code, a customizer): re-applying every property of a pool on
     *     any change to it undid those, and a customizer's value came back only on a restart. A
     *     value the pool refuses: one WARN naming the property; that pool unchanged (and its last
     *     applied settings kept, so the next refresh applies the change once fixed), the others go on;
     *   - a pool's key written in another form than the running pool's name (orderEvents for
     *     order-events: binding makes both keys, with the same values) is that pool;
     *   - every EnvironmentChangeEvent is looked at, whatever its keys: a pools.* value taken from
     *     a placeholder changes with the key it names (mail.threads), which is all the event says;
     *   - an option only a restart can change (pre-alloc, virtual-threads, the kind of queue, the
     *     await period), an instance added or removed, a new default-pool: one WARN each that it
     *     takes a restart, when its configured value changes.
     */

    private static final Log logger = LogFactory.getLog(PoolsRefresher.class);

    private final Environment environment;

    private final ListableBeanFactory beanFactory;

    /** The settings last applied to each pool, by bean name: at startup, then by each refresh; guarded by this. */
    private final Map<String, PoolSettings> applied = new HashMap<>();

    /** Instance names a WARN has told were added or removed (each takes a restart); guarded by this. */
    private final Set<String> announced = new HashSet<>();

    /** Instance names at startup, each to the name of its pool (another form of a key: its first form). */
    private final Map<String, String> startupInstances = new HashMap<>();

    /** Why a restart would fail, by pool name or global property, as last told (told again only when it changes); guarded by this. */
    private final Map<String, String> restartFailures = new HashMap<>();

    /** The name a restart would give each running pool, where it differs from the pool's name, as last told; guarded by this. */
    private final Map<String, String> renames = new HashMap<>();

    /** pools.default-pool and pools.propagate-context as last seen (at startup, then by each refresh); guarded by this. */
    private String defaultPool;

    private boolean propagateContext;

    /** pools.web-server.* and pools.events.* as last seen, by value (at startup, then by each refresh); guarded by this. */
    private Map<ConfigurationPropertyName, String> webServer = Map.of();

    private Map<ConfigurationPropertyName, String> events = Map.of();

    /**
     * The web server pool's rule, from the pools.web-server.* values the server was built with: a
     * refresh that changes them takes a restart (WARN), so a guard read afresh would let a pool be
     * switched adaptive down to the reserved threads the running server still keeps.
     */
    private final WebServerGuard webServerGuard;

    PoolsRefresher(Environment environment, ListableBeanFactory beanFactory) {
        this.environment = environment;
        this.beanFactory = beanFactory;
        this.webServerGuard = WebServerGuard.of(environment, beanFactory);
        rememberStartupSettings();
    }

    /** The settings the pools were built with, from the environment they were built from. */
    private void rememberStartupSettings() {
        try {
            PoolsProperties properties = PoolsPropertiesBinding.bind(this.environment);
            properties.getInstances().forEach((name, pool) -> this.applied.put(name,
                    new PoolSettings(name, pool, properties.getDefaults(), classLoader())));
            PoolsRegistrar.forms(properties.getInstances().keySet())
                .forEach((pool, names) -> names.forEach((key) -> this.startupInstances.put(key, pool)));
            this.defaultPool = properties.getDefaultPool();
            this.propagateContext = properties.isPropagateContext();
            this.webServer = PoolsPropertiesBinding.values(WEB_SERVER, this.environment);
            this.events = PoolsPropertiesBinding.values(EVENTS, this.environment);
        }
        catch (RuntimeException ex) {
            // Startup reports a bad value itself; without these, a refresh applies every option.
        }
    }

    /** The application's class loader, for adaptive.drop-on: refresh may run on any thread. */
    private ClassLoader classLoader() {
        return (this.beanFactory instanceof ConfigurableBeanFactory configurable)
                ? configurable.getBeanClassLoader() : null;
    }

    @Override
    public void onApplicationEvent(EnvironmentChangeEvent event) {
        refresh(); // whatever its keys: settings are compared by value (see the notes)
    }

    /** Applies the environment's pools.* to the running pools; see the notes. One refresh at a time. */
    synchronized void refresh() {
        PoolsProperties properties;
        try {
            properties = PoolsPropertiesBinding.bind(this.environment);
            PoolSettings.checkDefaults(properties.getDefaults(), classLoader());
        }
        catch (PoolConfigurationException ex) {
            // Nothing changes. Once the bad value is fixed, the next refresh applies the rest too,
            // whatever its own keys (ZooKeeper sends one event per node): pools are compared with
            // the settings last applied.
            logger.warn("Pools not refreshed: " + ex.getMessage() + " (" + ex.getAction() + ")");
            return;
        }
        catch (RuntimeException ex) {
            // Whatever else binding throws: a refresh never stops the application, nor the
            // refresh's other listeners (thrown from here, it would fail /actuator/refresh).
            logger.warn("Pools not refreshed, they keep their options: " + ex.getMessage(), ex);
            return;
        }
        Map<String, SpringPool> running = new LinkedHashMap<>(
                this.beanFactory.getBeansOfType(SpringPool.class, false, false));
        Set<String> configured = new HashSet<>();
        for (Map.Entry<String, PoolsProperties.Pool> instance : properties.getInstances().entrySet()) {
            String name = runningName(instance.getKey(), running.keySet());
            if (name == null) {
                // Another form of an entry there at startup is that entry (one pool with aliases,
                // or none if the application's bean shadows it).
                String atStartup = runningName(instance.getKey(), this.startupInstances.keySet());
                name = (atStartup != null) ? this.startupInstances.get(atStartup) : instance.getKey();
                if (!configured.add(name)) {
                    continue;
                }
                if (this.beanFactory.containsBean(name) && this.beanFactory.isTypeMatch(name, Pool.class)) {
                    // Startup checks the entry though the application's bean takes its place: a
                    // value it refuses (in any option, shutdown.* too) fails the next restart.
                    tellRestartFailure(name, addedPoolFailure(name, instance.getValue(), properties));
                }
                if (this.beanFactory.containsBean(name) && sameAsAtStartup(name, instance.getValue(), properties)) {
                    continue; // shadowed by the application's bean, as startup told, and unchanged since
                }
                if (this.beanFactory.containsBean(name)) {
                    if (this.announced.add(name)) {
                        // As at startup: the application's pool of that name wins, and these do nothing;
                        // a bean of that name that is no pool fails the next startup.
                        logger.warn("pools.instances." + name + " is not applied: the application defines a bean named '"
                                + name + "', which the starter leaves alone; rename the entry to have a pool of its own"
                                + (this.beanFactory.isTypeMatch(name, Pool.class) ? ""
                                        : " (that bean is no pool, so a restart with this entry would fail)"));
                    }
                    continue;
                }
                // Checked as startup will create it, at every refresh: an entry added whole, then
                // broken or mended by a later refresh, is told again (one WARN per new reason).
                String failure = addedPoolFailure(name, instance.getValue(), properties);
                if (this.announced.add(name)) {
                    if (failure == null) {
                        this.restartFailures.remove(name);
                        logger.warn("Pool '" + name + "' was added to pools.instances; it takes a restart to create it");
                    }
                    else {
                        this.restartFailures.put(name, failure);
                        logger.warn("Pool '" + name + "' was added to pools.instances, and a restart would fail: " + failure);
                    }
                }
                else if (failure == null && this.restartFailures.remove(name) != null) {
                    // Mended (an entry written key by key: one ZooKeeper node each): the all-clear.
                    logger.warn("Pool '" + name + "' in pools.instances would now be created by a restart; it takes "
                            + "a restart to create it");
                }
                else {
                    tellRestartFailure(name, failure);
                }
                continue;
            }
            if (!configured.add(name)) {
                continue; // the same pool under another spelling, bound with the same values
            }
            SpringPool pool = running.get(name);
            PoolSettings settings = new PoolSettings(name, instance.getValue(), properties.getDefaults(), classLoader());
            synchronized (pool.changes()) { // one refresh or endpoint tune at a time (see SpringPool)
                if (refresh(pool, settings, this.applied.get(name))) {
                    this.applied.put(name, settings);
                }
            }
        }
        tellRenames(properties, running.keySet());
        this.restartFailures.keySet().removeIf((subject) -> !subject.startsWith("pools.") && !configured.contains(subject));
        // A running pool configured again may be told removed again later; a name no longer
        // configured may be told added again.
        this.announced.removeIf((n) -> running.containsKey(n) == configured.contains(n));
        for (String name : running.keySet()) {
            if (!configured.contains(name) && this.announced.add(name)) {
                // Not harmless: what uses the pool by name fails once a restart has not created it.
                List<String> users = injectedInto(name);
                logger.warn("Pool '" + name + "' is no longer in pools.instances; it keeps running until a restart "
                        + "removes it. Then " + (users.isEmpty() ? "" : "beans that inject it (" + String.join(", ", users)
                        + ") fail startup, and ") + "@Async(\"" + name + "\") methods and lookups by its name fail "
                        + "when called: put the entry back (pools.instances." + name + ") if anything still uses it");
            }
        }
        // By value, not by key: a key in another form (pools.defaultPool) or a placeholder's own
        // key says as much.
        if (!Objects.equals(properties.getDefaultPool(), this.defaultPool)
                || properties.isPropagateContext() != this.propagateContext) {
            this.defaultPool = properties.getDefaultPool();
            this.propagateContext = properties.isPropagateContext();
            logger.warn("pools.default-pool and pools.propagate-context take a restart to change");
        }
        tellRestartFailure("pools.default-pool",
                missingPoolFailure("pools.default-pool", properties.getDefaultPool(), properties));
        tellRestartFailure("pools.propagate-context",
                failure(() -> PoolsRegistrar.checkContextPropagation(properties, classLoader())));
        String groups = failure(() -> PoolsPropertiesBinding.checkGroupsBoundElsewhere(this.environment));
        tellRestartFailure("pools.events and pools.web-server", groups);
        // The events' durations, where this application publishes them and a restart would too
        // (helper-168; not where nothing reads them, as at startup: helper-173, 175).
        tellRestartFailure("pools.events", (groups == null && PoolsPropertiesBinding.eventsEnabled(this.environment)
                && this.beanFactory.containsBean(PoolEventsAutoConfiguration.PUBLISHER_BEAN_NAME))
                        ? eventsRestartFailure() : null);
        String webServerPool = missingPoolFailure("pools.web-server.pool",
                PoolsPropertiesBinding.webServerPool(this.environment), properties);
        tellRestartFailure("pools.web-server.pool", webServerPool);
        // The web server's own rules on the pool the values name (helper-168), once the two above pass.
        tellRestartFailure("pools.web-server",
                (groups == null && webServerPool == null) ? this.webServerGuard.restartFailure() : null);
        // By value too (helper-140): a placeholder's key or an environment variable's form changes them as well.
        Map<ConfigurationPropertyName, String> webServer = PoolsPropertiesBinding.values(WEB_SERVER, this.environment);
        if (!webServer.equals(this.webServer)) {
            this.webServer = webServer;
            logger.warn("pools.web-server.* take a restart to change; the web server's pool itself changes live "
                    + "under pools.instances");
        }
        Map<ConfigurationPropertyName, String> events = PoolsPropertiesBinding.values(EVENTS, this.environment);
        if (!events.equals(this.events)) {
            this.events = events;
            logger.warn("pools.events.* take a restart to change; the events keep their settings until then");
        }
    }

    /**
     * Warns of a running pool that a restart would name otherwise: its key now also comes in
     * another form, from a source bound before the one it came from (a config engine's source
     * comes before application.yml), and a pool is named after its first key with a dash or a
     * capital (PoolsRegistrar.forms). Its endpoint path, meter tag and thread names would change.
     */
    private void tellRenames(PoolsProperties properties, Set<String> running) {
        Map<String, String> now = new HashMap<>();
        for (String next : PoolsRegistrar.forms(properties.getInstances().keySet()).keySet()) {
            String current = runningName(next, running);
            if (current != null && !current.equals(next) && this.startupInstances.containsKey(current)) {
                now.put(current, next);
                if (!next.equals(this.renames.get(current))) {
                    logger.warn("Pool '" + current + "': a restart would name it '" + next + "', after the key "
                            + PoolSettings.instance(next) + ", another form of its own that comes first now (a "
                            + "config engine's keys come before application.yml's); its /actuator/pools path, the "
                            + "name tag of its meters and its threads' names would change, and alerts on '" + current
                            + "' would fire. Write the key as " + PoolSettings.instance(current)
                            + " in every source, or rename the pool in all of them");
                }
            }
        }
        this.renames.clear();
        this.renames.putAll(now);
    }

    /** The application's beans that the pool was injected into (the starter's own left out). */
    private List<String> injectedInto(String name) {
        if (!(this.beanFactory instanceof ConfigurableListableBeanFactory factory)) {
            return List.of();
        }
        List<String> users = new ArrayList<>();
        for (String dependent : factory.getDependentBeans(name)) {
            Class<?> type;
            try {
                type = factory.getType(dependent, false);
            }
            catch (RuntimeException ex) { // an inner bean that has no definition of its own: unknown
                type = null;
            }
            boolean ours = type != null && (type.getName().startsWith("io.github.workerpool.")
                    || type.getName().startsWith("org.springframework."));
            if (!ours && (!factory.containsBeanDefinition(dependent)
                    || factory.getMergedBeanDefinition(dependent).getRole() == BeanDefinition.ROLE_APPLICATION)) {
                users.add(dependent);
            }
        }
        return users;
    }

    private static final ConfigurationPropertyName WEB_SERVER = ConfigurationPropertyName.of("pools.web-server");

    private static final ConfigurationPropertyName EVENTS = ConfigurationPropertyName.of("pools.events");

    /** Whether an entry was there at startup with the same configured values (refreshes that leave it alone tell nothing). */
    private boolean sameAsAtStartup(String name, PoolsProperties.Pool instance, PoolsProperties properties) {
        PoolSettings atStartup = this.applied.get(name);
        return this.startupInstances.containsKey(name) && atStartup != null && atStartup.configured()
            .equals(new PoolSettings(name, instance, properties.getDefaults(), classLoader()).configured());
    }

    /**
     * Why a restart would fail on a property that names a pool (pools.default-pool, or
     * pools.web-server.pool): it names no entry of pools.instances nor a pool of the application's
     * own (a running pool whose entry was removed goes with the restart); null if it names one.
     */
    private String missingPoolFailure(String property, String name, PoolsProperties properties) {
        if (name == null || properties.getInstances().containsKey(name)) { // as startup checks it
            return null;
        }
        if (this.beanFactory.containsBean(name) && !this.beanFactory.isTypeMatch(name, SpringPool.class)) {
            // A bean of the application's: for pools.default-pool, startup's own rules (a singleton
            // pool that runs Runnables; review helper-135: Boot's applicationTaskExecutor passed here).
            return property.equals("pools.default-pool")
                    ? failure(() -> PoolsAsyncConfigurer.checkDefaultPool(this.beanFactory, name)) : null;
        }
        Set<String> pools = properties.getInstances().keySet();
        return "there is no pool named '" + name + "' for " + property + "; pools: " + pools + " (Set " + property
                + " to one of them, or add pools.instances." + name + ".capacity to create it.)";
    }

    /** Why a restart would fail to create a pool added to pools.instances, by startup's own checks, or null. */
    private String addedPoolFailure(String name, PoolsProperties.Pool instance, PoolsProperties properties) {
        String failure = failure(() -> PoolsRegistrar.checkName(name));
        return (failure != null) ? failure
                : restartFailure(() -> new PoolSettings(name, instance, properties.getDefaults(), classLoader()));
    }

    /** A startup check's refusal, as tellRestartFailure tells it; null if it passes. */
    private static String failure(Runnable check) {
        try {
            check.run();
            return null;
        }
        catch (PoolConfigurationException ex) {
            return ex.getMessage() + " (" + ex.getAction() + ")";
        }
    }

    /** Why a restart with the environment's pools.events values would fail, or null. */
    private String eventsRestartFailure() {
        try {
            return failure(() -> Binder.get(this.environment).bindOrCreate("pools.events", PoolEventsProperties.class)
                .check());
        }
        catch (RuntimeException ex) {
            return null; // a value that cannot be bound: checkGroupsBoundElsewhere's to tell (it did, if in use)
        }
    }

    /** Why a restart with a pool's settings (made here: making them checks values too) would fail, by startup's own checks, or null. */
    private String restartFailure(Supplier<PoolSettings> made) {
        try {
            return failure(() -> {
                PoolSettings settings = made.get();
                settings.builder();
                PoolsRegistrar.checkAdaptive(settings, classLoader());
            });
        }
        catch (IllegalArgumentException | IllegalStateException ex) {
            return ex.getMessage();
        }
    }

    /**
     * Why a restart would fail by what a customizer sets, which the properties do not show: the
     * running pool tells it (review helper-135: the WARN said "takes a restart to apply").
     * preAlloc(true) without pre-alloc set is a customizer's, and fixes the capacity adaptive
     * sizing would change; a thread factory (only a customizer sets one) contradicts
     * virtual-threads set true. Null if neither.
     */
    private String customizedFailure(PoolSettings settings, PoolConfig running) {
        Map<PoolOption, Object> configured = settings.configured();
        if (running.preAlloc() && !Boolean.TRUE.equals(configured.get(PoolOption.PRE_ALLOC))
                && AdaptiveSupport.isPresent(classLoader())) {
            String failure = failure(() -> SpringPoolFactory.checkCustomizedPreAlloc(settings.name(), running,
                    settings.checkedAdaptive()));
            if (failure != null) {
                return failure;
            }
        }
        if (running.customThreadFactory() && Boolean.TRUE.equals(configured.get(PoolOption.VIRTUAL_THREADS))) {
            String property = PoolSettings.property(settings.name(), "virtual-threads");
            return property + "=true: virtual threads and the thread factory a WorkerPoolBuilderCustomizer sets on pool '"
                    + settings.name() + "' contradict each other (Set " + property + " to false or remove it, or change"
                    + " the customizer.)";
        }
        return null;
    }

    /**
     * Why a restart would fail by the web server's rules on the queue a refresh configured but
     * could not apply (another kind of queue takes a restart): live, the rules judged the queue the
     * pool keeps (review helper-135: a bounded queue below the connections the server keeps open
     * read "takes a restart to apply"). Null if it passes, or is no web server's pool.
     */
    private String webServerRestartFailure(PoolSettings settings, PoolConfig after) {
        if (!(settings.configured().get(PoolOption.QUEUE_CAPACITY) instanceof Integer queue)
                || queue == after.queueCapacity()) {
            return null;
        }
        try {
            return this.webServerGuard.configRefusal(settings.name(), after.withQueueCapacity(queue));
        }
        catch (IllegalArgumentException ex) {
            return null; // a value the pool refuses: the refresh said so already
        }
    }

    /** One WARN when the reason a restart would fail appears or changes; none while it stays. */
    private void tellRestartFailure(String subject, String failure) {
        if (failure == null) {
            this.restartFailures.remove(subject);
        }
        else if (!failure.equals(this.restartFailures.put(subject, failure))) {
            logger.warn((subject.startsWith("pools.") ? subject : "Pool '" + subject + "'")
                    + ": the application runs on, but a restart with this configuration would fail: " + failure);
        }
    }

    /**
     * The running pool a key of pools.instances configures: the one of that name, else one whose
     * name is the same but for its form (orderEvents, order-events and ORDER_EVENTS are one
     * property name to Spring Boot, which binds each form given as a key of its own); null if none.
     */
    static String runningName(String key, Set<String> running) {
        if (running.contains(key)) {
            return key;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
        for (String pool : running) {
            if (ConfigurationPropertyName.adapt(pool, '.').equals(name)) {
                return pool;
            }
        }
        return null;
    }

    /**
     * Refreshes one pool from its settings, against those last applied ({@code previous}, null:
     * every option); false if a value was refused (the pool keeps every option).
     */
    private boolean refresh(SpringPool pool, PoolSettings settings, PoolSettings previous) {
        String name = settings.name();
        Map<PoolOption, Object> configuredBefore = (previous != null) ? previous.configured() : null;
        List<String> restartOnly = new ArrayList<>();
        PoolConfig before = pool.config();
        PoolConfig after;
        AdaptiveSupport.Control adaptive = pool.adaptive();
        String adaptiveChange = "";
        // The options this refresh changed from, read where it changes them: a tune (adaptive
        // sizing's, the application's) between an earlier read and the change would show in the
        // log as the refresh's.
        AtomicReference<PoolConfig> changedFrom = new AtomicReference<>(before);
        String keptOffFailure = null; // see below: the web server's rule on bounds the pool does not use yet
        try {
            // Every check that can refuse the refresh comes before the first change: a refused
            // value leaves the pool with all its options.
            PoolSettings.AdaptiveSettings configuredAdaptive = settings.checkedAdaptive();
            // Adaptive sizing follows its settings and the configured capacity only when they
            // changed, each on its own: an operator's switch through the endpoint stays, as a tune
            // does, under new bounds too, until adaptive.enabled itself changes.
            boolean adaptiveConfigChanged = previous == null || !sameAdaptive(configuredAdaptive, previous.adaptive());
            boolean switchChanged = previous == null || configuredAdaptive.enabled() != previous.adaptive().enabled();
            PoolSettings.AdaptiveSettings nextAdaptive = (adaptive == null || switchChanged) ? configuredAdaptive
                    : configuredAdaptive.withEnabled(adaptive.enabled());
            boolean capacityConfigChanged = previous == null || !Objects.equals(settings.capacity(), previous.capacity());
            // Judged on both the configured switch and the one the pool will have: an operator's
            // "on" kept through a refresh of the bounds takes the new minimum live (helper-157).
            if (adaptive != null && (configuredAdaptive.enabled() || nextAdaptive.enabled()) && adaptiveConfigChanged) {
                String refusal = this.webServerGuard.adaptiveRefusal(name, configuredAdaptive.minCapacity());
                if (refusal != null) {
                    String property = PoolSettings.property(name, "adaptive.min-capacity");
                    PoolConfigurationException refused = new PoolConfigurationException(property,
                            configuredAdaptive.minCapacity(), refusal, "Update " + property + ".");
                    if (nextAdaptive.enabled()) {
                        throw refused;
                    }
                    // Kept off by the operator: nothing live goes there, but a restart switches it on
                    // as configured, and startup refuses it.
                    keptOffFailure = refused.getMessage();
                }
            }
            Duration awaitTerminationPeriod = settings.awaitTerminationPeriod();
            boolean adaptiveCapacity = adaptive != null
                    && (adaptive.enabled() || (adaptiveConfigChanged && nextAdaptive.enabled()));
            boolean virtualByDefault = Threading.VIRTUAL.isActive(this.environment);
            // The web server's rules judge the options the pool ends with. With adaptive sizing
            // taking part its capacity is applied after the rest (refreshAdaptive): bounded (up to
            // its max) while it is on, the configured one once it is off.
            boolean adaptiveAfter = adaptive != null && (adaptiveConfigChanged ? nextAdaptive.enabled() : adaptive.enabled());
            Integer finalCapacity = adaptiveAfter
                    ? Integer.valueOf((adaptiveConfigChanged ? nextAdaptive : adaptive.settings()).maxCapacity())
                    : adaptiveCapacity ? ((capacityConfigChanged && settings.capacity() != null) ? settings.capacity()
                            : Integer.valueOf(adaptive.configuredCapacity())) : null; // as refreshAdaptive applies it
            after = pool.reconfigure((current) -> {
                changedFrom.set(current);
                restartOnly.clear();
                PoolConfig next = settings.liveConfig(current, restartOnly, adaptiveCapacity, configuredBefore,
                        virtualByDefault);
                // Thrown in here, it refuses the whole refresh before anything changes, as a bad value does.
                next = aimdKeepsARunTimeout(pool, settings, nextAdaptive, adaptiveConfigChanged, next);
                refuseForTheWebServer(name, (finalCapacity != null) ? next.withCapacity(finalCapacity) : next);
                return next;
            });
            if (adaptiveConfigChanged || capacityConfigChanged) {
                if (adaptive == null && nextAdaptive.enabled() && adaptiveConfigChanged) {
                    restartOnly.add(nextAdaptive.enabledProperty() + "=true (the pool has no adaptive capacity: "
                            + (before.preAlloc() ? "pre-alloc fixes its capacity" : "add " + AdaptiveSupport.DEPENDENCY)
                            + ")");
                }
                adaptiveChange = refreshAdaptive(pool, settings, nextAdaptive, adaptiveCapacity, capacityConfigChanged,
                        adaptiveConfigChanged);
            }
            if ((previous == null || !Objects.equals(awaitTerminationPeriod, previous.awaitTerminationPeriod()))
                    && !Objects.equals(awaitTerminationPeriod, pool.awaitTerminationPeriod())) {
                restartOnly.add(settings.awaitTerminationPeriodProperty() + "="
                        + PoolConfigurationException.shown(awaitTerminationPeriod));
            }
        }
        catch (PoolConfigurationException ex) {
            logger.warn("Pool '" + name + "' not refreshed, it keeps its options: " + ex.getMessage() + " ("
                    + ex.getAction() + ")");
            return false;
        }
        catch (IllegalArgumentException | IllegalStateException ex) {
            logger.warn("Pool '" + name + "' not refreshed, it keeps its options: " + ex.getMessage());
            return false;
        }
        String changes = (changes(changedFrom.get(), after) + adaptiveChange).replaceFirst("^, ", "");
        if (!changes.isEmpty()) {
            logger.info("Pool '" + name + "' refreshed from pools.*: " + changes);
        }
        // A combination only startup checks (pre-alloc with an unbounded capacity, virtual threads
        // on Java 17, ...): live, the restart-only half waits, so nothing fails now. Told in one
        // line with the change's restart-only options (which of them it is about, the failure says).
        String failure = (settings.capacity() != null) ? restartFailure(() -> settings) : null;
        if (failure == null) {
            failure = keptOffFailure;
        }
        if (failure == null && !restartOnly.isEmpty()) {
            failure = customizedFailure(settings, before);
            if (failure == null) {
                failure = webServerRestartFailure(settings, after);
            }
        }
        if (!restartOnly.isEmpty() && failure != null && !failure.equals(this.restartFailures.get(name))) {
            this.restartFailures.put(name, failure);
            boolean one = restartOnly.size() == 1;
            logger.warn("Pool '" + name + "': " + String.join(", ", restartOnly) + (one ? " takes" : " take")
                    + " a restart to apply; the pool keeps " + (one ? "its value" : "its values")
                    + ", and the application runs on, but a restart with this configuration would fail: " + failure);
        }
        else {
            for (String property : restartOnly) {
                logger.warn("Pool '" + name + "': " + property + " takes a restart to apply; the pool keeps its value");
            }
        }
        if (settings.capacity() == null) {
            if (previous == null || previous.capacity() != null) {
                String property = PoolSettings.property(name, "capacity");
                logger.warn("Pool '" + name + "': " + property + " was removed; the pool keeps capacity "
                        + pool.config().capacity() + ", but a restart would fail without it (capacity is required). Set "
                        + property + " (or pools.defaults.capacity) again");
            }
        }
        else {
            tellRestartFailure(name, failure);
        }
        return true;
    }

    /**
     * The options {@code after}, refused if they would leave the pool sized by aimd without a
     * run-timeout (its capacity would only grow), as startup and the endpoint do: the
     * configuration alone cannot tell, since the endpoint may have switched adaptive sizing on, or
     * removed the run-timeout, since. A refresh that switches aimd on with a run-timeout configured
     * applies that run-timeout, unchanged in the configuration or not: it is what the
     * configuration asks aimd to go with.
     */
    private static PoolConfig aimdKeepsARunTimeout(SpringPool pool, PoolSettings settings,
            PoolSettings.AdaptiveSettings next, boolean adaptiveConfigChanged, PoolConfig after) {
        AdaptiveSupport.Control adaptive = pool.adaptive();
        if (adaptive == null || after.runTimeout() != null) {
            return after;
        }
        boolean on = adaptiveConfigChanged ? next.enabled() : adaptive.enabled();
        String algorithm = adaptiveConfigChanged ? next.algorithm() : adaptive.settings().algorithm();
        if (on && algorithm.equals("aimd")) {
            Duration configured = (Duration) settings.configured().get(PoolOption.RUN_TIMEOUT);
            if (adaptiveConfigChanged && configured != null) {
                return after.withRunTimeout(configured);
            }
            String runTimeout = PoolSettings.property(settings.name(), "run-timeout");
            throw new PoolConfigurationException(runTimeout, null, "the pool would be sized by aimd, which backs off "
                    + "only when a task runs longer than the run-timeout, so without one its capacity would only grow",
                    "Set " + runTimeout + " a little above the tasks' normal run time, or switch adaptive sizing off ("
                            + next.enabledProperty() + ": false, or {\"adaptive\": false} at the endpoint).");
        }
        return after;
    }

    /** Refuses options that break the web server's rules, if the pool is its pool, as startup does. */
    private void refuseForTheWebServer(String name, PoolConfig next) {
        String refusal = this.webServerGuard.configRefusal(name, next);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
    }

    /** Whether two adaptive settings are the same: on or off, bounds, algorithm and drop-on. */
    private static boolean sameAdaptive(PoolSettings.AdaptiveSettings a, PoolSettings.AdaptiveSettings b) {
        return a.enabled() == b.enabled() && a.sameLimiter(b);
    }

    /**
     * Gives a pool's adaptive sizing its refreshed settings: a changed capacity property as the
     * configured capacity (what switching it off restores) when it owns the capacity (an unchanged
     * one leaves what an operator tuned), then on or off, new bounds, a new algorithm or a
     * new drop-on (which start it afresh), if {@code switchAndLimits}: the adaptive settings
     * changed (else a switch through the endpoint stays as it is).
     * @return the change, as text for the log; empty if none
     */
    private static String refreshAdaptive(SpringPool pool, PoolSettings settings, PoolSettings.AdaptiveSettings next,
            boolean adaptiveCapacity, boolean capacityChanged, boolean switchAndLimits) {
        AdaptiveSupport.Control adaptive = pool.adaptive();
        if (adaptive == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        Integer configured = settings.capacity();
        boolean newConfigured = adaptiveCapacity && capacityChanged && configured != null
                && configured != adaptive.configuredCapacity();
        if (newConfigured) {
            out.append(", configured capacity ").append(adaptive.configuredCapacity()).append(" -> ").append(configured);
        }
        PoolSettings.AdaptiveSettings was = adaptive.settings();
        boolean wasEnabled = adaptive.enabled();
        if (switchAndLimits && (wasEnabled != next.enabled() || !next.sameLimiter(was))) {
            // In one step with the configured capacity: set before, it tuned a pool being switched
            // on to it (unbounded, say) until enable() clamped it.
            pool.adaptive(adaptive.apply(next, newConfigured ? configured : null));
            out.append(", adaptive ").append(describe(wasEnabled, was)).append(" -> ").append(describe(next.enabled(), next));
        }
        else if (newConfigured) {
            adaptive.configuredCapacity(configured);
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
