package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

import io.github.workerpool.PoolConfig;
import io.github.workerpool.WorkerPool;

import org.springframework.util.ClassUtils;

/**
 * The options of one configured pool after inheritance from {@code pools.defaults}, each with the
 * property it came from so that errors can name it.
 */
final class PoolSettings {

    static final Duration DEFAULT_AWAIT_TERMINATION_PERIOD = Duration.ofSeconds(30);

    /** The option of the starter itself, besides the pool's own ({@link PoolOption}). */
    static final String AWAIT_TERMINATION_PERIOD = "shutdown.await-termination-period";

    /** How to fix each option of a pool, by its name under {@code pools.defaults}: from {@link PoolOption}. */
    static final Map<String, String> FIXES;

    static {
        Map<String, String> fixes = new LinkedHashMap<>();
        for (PoolOption option : PoolOption.values()) {
            fixes.put(option.property(), option.fix());
        }
        fixes.put(AWAIT_TERMINATION_PERIOD, "set it to a duration of 0 or more, such as 30s");
        fixes.put("adaptive.enabled", "set true or false");
        fixes.put("adaptive.min-capacity", "set it to a number >= 1");
        fixes.put("adaptive.max-capacity", "set it to a number >= 1 and >= adaptive.min-capacity");
        fixes.put("adaptive.algorithm", "set it to gradient2, aimd or vegas");
        fixes.put("adaptive.drop-on", "list exception classes by their full names, such as "
                + "java.util.concurrent.TimeoutException");
        FIXES = Collections.unmodifiableMap(fixes);
    }

    /** A pool name that can stand in a property name without brackets. */
    private static final Pattern PLAIN_NAME = Pattern.compile("[a-z0-9][a-z0-9-]*");

    private final String name;

    private final PoolsProperties.Pool instance;

    private final PoolsProperties.Pool defaults;

    /** Loads the classes of adaptive.drop-on: the application's (the bean class loader). */
    private final ClassLoader classLoader;

    PoolSettings(String name, PoolsProperties.Pool instance, PoolsProperties.Pool defaults, ClassLoader classLoader) {
        this.name = name;
        this.instance = (instance != null) ? instance : new PoolsProperties.Pool();
        this.defaults = defaults;
        this.classLoader = (classLoader != null) ? classLoader : ClassUtils.getDefaultClassLoader();
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
        options(builder);
        Boolean preAlloc = value(PoolsProperties.Pool::getPreAlloc);
        if (Boolean.TRUE.equals(preAlloc) && capacity < 0) {
            String capacitySource = source("capacity", PoolsProperties.Pool::getCapacity);
            String preAllocSource = source("pre-alloc", PoolsProperties.Pool::getPreAlloc);
            throw new PoolConfigurationException(preAllocSource, true,
                    "pre-alloc needs a bounded capacity, but " + capacitySource + " is -1",
                    "Set " + capacitySource + " to a number >= 1, or set " + preAllocSource + " to false.");
        }
        if (Boolean.TRUE.equals(preAlloc) && !ringFits(capacity)) {
            String capacitySource = source("capacity", PoolsProperties.Pool::getCapacity);
            String preAllocSource = source("pre-alloc", PoolsProperties.Pool::getPreAlloc);
            throw new PoolConfigurationException(capacitySource, capacity,
                    "pre-alloc reserves an idle-worker slot for each unit of capacity up front, about "
                            + (ringBytes(capacity) >> 20) + " MB here, more than half of this JVM's maximum heap ("
                            + (Runtime.getRuntime().maxMemory() >> 20) + " MB)",
                    "Lower " + capacitySource + ", or set " + preAllocSource
                            + " to false (workers are then still started only on demand).");
        }
        Boolean virtualThreads = value(PoolsProperties.Pool::getVirtualThreads);
        if (Boolean.TRUE.equals(virtualThreads) && Runtime.version().feature() < 21) {
            String source = source("virtual-threads", PoolsProperties.Pool::getVirtualThreads);
            throw new PoolConfigurationException(source, true,
                    "virtual threads need Java 21 or later, but this JVM is Java " + Runtime.version().feature(),
                    "Run the application on Java 21 or later, or set " + source + " to false.");
        }
        awaitTerminationPeriod();
        checkedAdaptive();
        return builder;
    }

    /**
     * The adaptive capacity options, checked on their own and against the pool's other options.
     * @throws PoolConfigurationException naming the property if a value is invalid
     */
    AdaptiveSettings checkedAdaptive() {
        AdaptiveSettings adaptive = adaptive();
        Boolean preAlloc = value(PoolsProperties.Pool::getPreAlloc);
        if (adaptive.enabled()) {
            if (Boolean.TRUE.equals(preAlloc)) {
                String preAllocSource = source("pre-alloc", PoolsProperties.Pool::getPreAlloc);
                throw new PoolConfigurationException(adaptive.enabledProperty(), true,
                        "adaptive capacity changes the capacity, but " + preAllocSource + " is true, which fixes it",
                        "Set " + preAllocSource + " to false, or set " + adaptive.enabledProperty() + " to false.");
            }
            if (!adaptive.dropOn().isEmpty() && adaptive.algorithm().equals("gradient2")) {
                String dropOn = source(ADAPTIVE + "drop-on", (p) -> p.getAdaptive().getDropOn());
                String remove = dropOn.equals(property(ADAPTIVE + "drop-on")) ? "remove " + dropOn
                        : "set " + property(ADAPTIVE + "drop-on") + " to an empty value (it comes from " + dropOn + ")";
                List<String> names = value((p) -> p.getAdaptive().getDropOn());
                throw new PoolConfigurationException(dropOn, String.join(",", names),
                        "drop-on needs aimd or vegas, but this pool's algorithm is gradient2 ("
                                + adaptive.algorithmProperty() + "), which follows the run time alone and never "
                                + "backs off on a failure",
                        "Set " + adaptive.algorithmProperty() + " to aimd or vegas, or " + remove + ".");
            }
            if (adaptive.algorithm().equals("aimd") && value(PoolsProperties.Pool::getRunTimeout) == null) {
                String runTimeout = property("run-timeout");
                throw new PoolConfigurationException(adaptive.algorithmProperty(), "aimd",
                        "aimd backs off only when a task runs longer than the pool's run-timeout, and " + runTimeout
                                + " is not set, so the capacity would only grow",
                        "Set " + runTimeout + " a little above the tasks' normal run time (1.5x, say), or set "
                                + adaptive.algorithmProperty() + " to gradient2 or vegas.");
            }
        }
        return adaptive;
    }

    /** Where the adaptive options live, under a pool's properties. */
    static final String ADAPTIVE = "adaptive.";

    /** Default of adaptive.max-capacity (Netflix Gradient2's own). */
    static final int DEFAULT_ADAPTIVE_MAX = 200;

    /**
     * The adaptive capacity options, checked on their own (the combinations with other options are
     * checked by {@link #builder()}).
     * @throws PoolConfigurationException naming the property if a value is invalid
     */
    AdaptiveSettings adaptive() {
        Boolean enabled = value((p) -> p.getAdaptive().getEnabled());
        Integer min = value((p) -> p.getAdaptive().getMinCapacity());
        Integer max = value((p) -> p.getAdaptive().getMaxCapacity());
        String algorithm = value((p) -> p.getAdaptive().getAlgorithm());
        String minProperty = source(ADAPTIVE + "min-capacity", (p) -> p.getAdaptive().getMinCapacity());
        String maxProperty = source(ADAPTIVE + "max-capacity", (p) -> p.getAdaptive().getMaxCapacity());
        String algorithmProperty = source(ADAPTIVE + "algorithm", (p) -> p.getAdaptive().getAlgorithm());
        String enabledProperty = source(ADAPTIVE + "enabled", (p) -> p.getAdaptive().getEnabled());
        if (min != null && min < 1) {
            throw new PoolConfigurationException(minProperty, min, "the least adaptive capacity must be at least 1",
                    "Update " + minProperty + ": " + FIXES.get(ADAPTIVE + "min-capacity") + ".");
        }
        int least = (min != null) ? min : 1;
        if (max != null && (max < 1 || max < least)) {
            throw new PoolConfigurationException(maxProperty, max, "the most adaptive capacity must be at least 1 and "
                    + "at least " + ((min != null) ? minProperty + " (" + min + ")" : "the least capacity (1)"),
                    "Update " + maxProperty + ": " + FIXES.get(ADAPTIVE + "max-capacity") + ".");
        }
        String name = (algorithm != null) ? algorithm.trim().toLowerCase(Locale.ROOT) : "gradient2";
        if (!ALGORITHMS.contains(name)) {
            throw new PoolConfigurationException(algorithmProperty, algorithm,
                    "there is no adaptive algorithm named '" + algorithm + "'",
                    "Update " + algorithmProperty + ": " + FIXES.get(ADAPTIVE + "algorithm") + ".");
        }
        return new AdaptiveSettings(Boolean.TRUE.equals(enabled), least,
                (max != null) ? max : Math.max(DEFAULT_ADAPTIVE_MAX, least), name, dropOn(), enabledProperty,
                algorithmProperty);
    }

    /**
     * The exception classes of adaptive.drop-on, loaded.
     * @throws PoolConfigurationException naming the property if an entry is not an exception class
     */
    private List<Class<? extends Throwable>> dropOn() {
        List<String> names = value((p) -> p.getAdaptive().getDropOn());
        if (names == null) {
            return List.of();
        }
        String property = source(ADAPTIVE + "drop-on", (p) -> p.getAdaptive().getDropOn());
        String fix = "Update " + property + ": " + FIXES.get(ADAPTIVE + "drop-on") + ".";
        List<Class<? extends Throwable>> classes = new ArrayList<>();
        for (String entry : names) {
            String className = (entry != null) ? entry.trim() : "";
            Class<?> type;
            try {
                type = ClassUtils.forName(className, this.classLoader);
            }
            catch (ClassNotFoundException | IllegalArgumentException ex) {
                throw new PoolConfigurationException(property, entry,
                        className.isEmpty() ? "an entry is empty" : "there is no class named '" + className + "'",
                        fix);
            }
            catch (LinkageError ex) {
                throw new PoolConfigurationException(property, entry,
                        "class '" + className + "' could not be loaded: " + ex, fix);
            }
            if (!Throwable.class.isAssignableFrom(type)) {
                throw new PoolConfigurationException(property, entry, type.getName() + " is not an exception class",
                        fix);
            }
            classes.add(type.asSubclass(Throwable.class));
        }
        return List.copyOf(classes);
    }

    /** The adaptive algorithms, by their property values. */
    static final List<String> ALGORITHMS = List.of("gradient2", "aimd", "vegas");

    /**
     * A pool's adaptive capacity options, after inheritance and defaults.
     * @param enabled whether it sizes itself
     * @param minCapacity least capacity
     * @param maxCapacity most capacity
     * @param algorithm gradient2, aimd or vegas
     * @param dropOn the failures that mean overload: a task failure matches if it, or an exception
     *        in its chain of causes, is an instance of one
     * @param enabledProperty the property enabled came from, for messages
     * @param algorithmProperty the property the algorithm came from, for messages
     */
    record AdaptiveSettings(boolean enabled, int minCapacity, int maxCapacity, String algorithm,
            List<Class<? extends Throwable>> dropOn, String enabledProperty, String algorithmProperty) {

        /**
         * Whether these differ from another's in anything but {@code enabled}. drop-on counts by
         * class names, as a set: the order of the list, or a class loaded again, is no change.
         */
        boolean sameLimiter(AdaptiveSettings other) {
            return this.minCapacity == other.minCapacity && this.maxCapacity == other.maxCapacity
                    && this.algorithm.equals(other.algorithm)
                    && Set.copyOf(dropOnNames()).equals(Set.copyOf(other.dropOnNames()));
        }

        /** These settings, switched on or off. */
        AdaptiveSettings withEnabled(boolean on) {
            return new AdaptiveSettings(on, this.minCapacity, this.maxCapacity, this.algorithm, this.dropOn,
                    this.enabledProperty, this.algorithmProperty);
        }

        /** The classes of {@link #dropOn} by name, in order: for the endpoint, the log and comparing. */
        List<String> dropOnNames() {
            return this.dropOn.stream().map(Class::getName).toList();
        }

        /** Whether the failure, or one of its causes, is of a class in {@link #dropOn}. */
        boolean isDrop(Throwable failure) {
            // A cycle of causes cannot loop: a chain is followed at most this far.
            int depth = 0;
            for (Throwable t = failure; t != null && depth < MAX_CAUSES; t = t.getCause(), depth++) {
                for (Class<? extends Throwable> type : this.dropOn) {
                    if (type.isInstance(t)) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** How far isDrop follows a chain of causes. */
        static final int MAX_CAUSES = 32;
    }

    /**
     * Whether a pre-allocated idle-worker ring of this capacity can be allocated without taking
     * more than half the heap: the pool would otherwise fail with an OutOfMemoryError when its bean
     * is made (or, beyond the largest array a JVM allows, with "Requested array size exceeds VM
     * limit"), a report that names no property.
     */
    private static boolean ringFits(int capacity) {
        return capacity <= Integer.MAX_VALUE - 8 && ringBytes(capacity) <= Runtime.getRuntime().maxMemory() / 2;
    }

    /** The ring's size, counting 8 bytes a slot (an uncompressed reference) to be safe. */
    private static long ringBytes(int capacity) {
        return 8L * capacity;
    }

    /**
     * Checks each option of {@code pools.defaults} on its own, so that a bad default fails startup
     * even when every pool sets that option itself (or there is no pool yet).
     * @throws PoolConfigurationException if a default is invalid
     */
    static void checkDefaults(PoolsProperties.Pool defaults, ClassLoader classLoader) {
        PoolSettings settings = new PoolSettings(null, null, defaults, classLoader);
        settings.options(WorkerPool.builder());
        settings.awaitTerminationPeriod();
        settings.adaptive();
    }

    /** Applies every single-valued option; combinations are checked by the caller. */
    private void options(WorkerPool.Builder builder) {
        for (PoolOption option : PoolOption.values()) {
            Object value = value(option::get);
            if (value == null) {
                continue;
            }
            try {
                option.applyTo(builder, value);
            }
            catch (IllegalArgumentException | IllegalStateException ex) {
                String property = source(option.property(), option::get);
                throw new PoolConfigurationException(property, value, reason(ex, value),
                        "Update " + property + ": " + option.fix() + ".");
            }
        }
    }

    /**
     * The options these settings give a running pool: every live option as configured (an option
     * left out takes the pool's default), the others as the pool has them.
     * @param current the pool's options now
     * @param restartOnly receives the properties whose new value only a restart applies (an option
     *        fixed at build, or a queue of another kind)
     * @return the new options; {@code current} itself if nothing live changes
     * @throws PoolConfigurationException naming the property if a value is invalid
     */
    PoolConfig liveConfig(PoolConfig current, List<String> restartOnly) {
        return liveConfig(current, restartOnly, false, null, false);
    }

    /**
     * Each option's value as configured (the pool's own, else pools.defaults), null where neither
     * sets it: what a refresh compares to tell which options the configuration changed.
     */
    Map<PoolOption, Object> configured() {
        Map<PoolOption, Object> values = new EnumMap<>(PoolOption.class);
        for (PoolOption option : PoolOption.values()) {
            values.put(option, value(option::get));
        }
        return values;
    }

    /**
     * As {@link #liveConfig(PoolConfig, java.util.List)}; with {@code adaptiveCapacity}, the pool's
     * capacity is left as it is (adaptive sizing owns it; the configured capacity is handed to it
     * apart, see {@link #capacity()}). With {@code before} (the {@link #configured()} values last
     * applied), only the options whose configured value changed since are looked at: the others
     * keep the pool's value, whether a tune, the code or a customizer set it.
     * {@code virtualByDefault} is what a pool that leaves virtual-threads unset gets at startup
     * (spring.threads.virtual.enabled on Java 21+), the value an unset virtual-threads means.
     */
    PoolConfig liveConfig(PoolConfig current, List<String> restartOnly, boolean adaptiveCapacity,
            Map<PoolOption, Object> before, boolean virtualByDefault) {
        PoolConfig next = current;
        for (PoolOption option : PoolOption.values()) {
            Object value = value(option::get);
            if (before != null && Objects.equals(value, before.get(option))) {
                continue;
            }
            if (adaptiveCapacity && option == PoolOption.CAPACITY) {
                if (value != null) {
                    check(option, value, current); // handed to adaptive sizing apart, but refused here if bad
                }
                continue;
            }
            if (value == null && option == PoolOption.VIRTUAL_THREADS) {
                value = virtualByDefault; // unset: a restart follows spring.threads.virtual.enabled
            }
            if (value == null) {
                value = (option == PoolOption.CAPACITY) ? current.capacity() : option.defaultValue();
            }
            if (Objects.equals(value, option.read(current))) {
                continue;
            }
            String property = source(option.property(), option::get);
            if (!option.live() || (option == PoolOption.QUEUE_CAPACITY && !sameKind((Integer) value, current))) {
                if (option.live()) {
                    check(option, value, current); // a bad value (-1) is refused, not left to a restart
                }
                restartOnly.add(property + "=" + PoolConfigurationException.shown(value) + " (the pool has "
                        + PoolConfigurationException.shown(option.read(current)) + ")");
                continue;
            }
            next = check(option, value, next);
        }
        if (next.preAlloc() && next.capacity() != current.capacity()) {
            String property = source(PoolOption.CAPACITY.property(), PoolsProperties.Pool::getCapacity);
            restartOnly.add(property + "=" + next.capacity() + " (a pre-alloc pool keeps its capacity "
                    + current.capacity() + ")");
            next = next.withCapacity(current.capacity());
        }
        return next;
    }

    /** The options with one option changed; a PoolConfigurationException naming its property if the value is bad. */
    private PoolConfig check(PoolOption option, Object value, PoolConfig config) {
        try {
            return option.applyTo(config, value);
        }
        catch (IllegalArgumentException | IllegalStateException ex) {
            String property = source(option.property(), option::get);
            throw new PoolConfigurationException(property, value, reason(ex, value),
                    "Update " + property + ": " + option.fix() + ".");
        }
    }

    /** The pool's reason for refusing a value, the value as the properties write it ("-1s", not "PT-1S"). */
    private static String reason(RuntimeException ex, Object value) {
        return PoolConfigurationException.withDurationsShown(String.valueOf(ex.getMessage()),
                Collections.singletonList(value));
    }

    /** The configured capacity, or null if neither the pool nor pools.defaults sets it. */
    Integer capacity() {
        return value(PoolsProperties.Pool::getCapacity);
    }

    private static boolean sameKind(int queueCapacity, PoolConfig current) {
        int now = current.queueCapacity();
        return (queueCapacity == 0) == (now == 0)
                && (queueCapacity == Integer.MAX_VALUE) == (now == Integer.MAX_VALUE);
    }

    /** How long context close waits for the pool's tasks. */
    Duration awaitTerminationPeriod() {
        Duration period = value((p) -> p.getShutdown().getAwaitTerminationPeriod());
        if (period == null) {
            return DEFAULT_AWAIT_TERMINATION_PERIOD;
        }
        if (period.isNegative()) {
            String property = awaitTerminationPeriodProperty();
            throw new PoolConfigurationException(property, period, "the await period must not be negative",
                    "Update " + property + ": " + FIXES.get(AWAIT_TERMINATION_PERIOD) + ".");
        }
        return period;
    }

    /** The property the await period comes from: the pool's own, or pools.defaults' if only that is set. */
    String awaitTerminationPeriodProperty() {
        return source(AWAIT_TERMINATION_PERIOD, (p) -> p.getShutdown().getAwaitTerminationPeriod());
    }

    private <T> T value(Function<PoolsProperties.Pool, T> getter) {
        T own = getter.apply(this.instance);
        return (own != null) ? own : getter.apply(this.defaults);
    }

    /** The property a value of this pool was read from: its own, or the inherited default. */
    private String property(String option) {
        return property(this.name, option);
    }

    /**
     * The name of a pool's property as a user writes it: {@code pools.defaults.<option>} for a
     * null pool, else {@code pools.instances.<pool>.<option>}, the pool in brackets when its name
     * has characters a property name cannot hold ({@code pools.instances.[mail.eu].capacity}).
     */
    static String property(String pool, String option) {
        if (pool == null) {
            return "pools.defaults." + option;
        }
        return instance(pool) + "." + option;
    }

    /** A pool's entry as a user writes it: {@code pools.instances.mail}, {@code pools.instances.[mail.eu]}. */
    static String instance(String pool) {
        return "pools.instances." + (PLAIN_NAME.matcher(pool).matches() ? pool : "[" + pool + "]");
    }

    private String source(String option, Function<PoolsProperties.Pool, ?> getter) {
        return (getter.apply(this.instance) == null && getter.apply(this.defaults) != null)
                ? "pools.defaults." + option : property(option);
    }

}
