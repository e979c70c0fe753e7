package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.beans.BeanUtils;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertyResolver;

import io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsProperties;
import io.github.workerpool.spring.boot.autoconfigure.web.WebServerPoolProperties;

/**
 * Binds {@code pools.*} for the registrar, which runs before any bean exists, and reports a value
 * that cannot be bound as a {@link PoolConfigurationException}: the property, the value and the
 * fix for that option (Spring Boot's own report says only "Update your application's
 * configuration").
 */
final class PoolsPropertiesBinding {

    /*
     * An option given with an empty value (capacity=, or "expiry:" with nothing after it in YAML)
     * binds as if it were absent: the option silently falls back to its default, and an instance
     * whose only option is empty is not created at all. So an empty option is refused before
     * binding, except adaptive.drop-on, a list, whose empty value means none (it clears what
     * pools.defaults lists). An empty group (pools.instances.mail: with nothing under it) stays
     * allowed: it declares a pool that takes everything from pools.defaults.
     */

    /*
     * An option that no pool has (queue-capcity, max-queue) is refused too: bound leniently, as
     * Spring Boot binds by default, a misspelt option would leave its default in place without a
     * word, and a pool meant to have a queue would have none. Spring's NoUnboundElementsBindHandler
     * finds them; pools.events and pools.web-server are bound by their own classes, so they are
     * left out of this binding.
     */

    private static final ConfigurationPropertyName POOLS = ConfigurationPropertyName.of("pools");

    /** The groups under {@code pools} that other classes bind, and those classes. */
    private static final Map<ConfigurationPropertyName, Class<?>> BOUND_ELSEWHERE_TYPES = Map.of(
            ConfigurationPropertyName.of("pools.events"), PoolEventsProperties.class,
            ConfigurationPropertyName.of("pools.web-server"), WebServerPoolProperties.class);

    private static final List<ConfigurationPropertyName> BOUND_ELSEWHERE = List.copyOf(BOUND_ELSEWHERE_TYPES.keySet());

    /** Every group under {@code pools}, by its last name element. */
    private static final List<String> GROUPS = Stream.concat(Stream.of("defaults", "instances"),
            BOUND_ELSEWHERE.stream().map((group) -> group.getLastElement(Form.DASHED))).toList();

    /** The options directly under {@code pools}, with their fixes. */
    private static final Map<String, String> TOP_LEVEL_FIXES = Map.of("default-pool",
            "set it to the name of one of pools.instances, or remove it to keep Spring Boot's executor for plain @Async",
            "propagate-context", "set true or false");

    /** The one option whose empty value means something: none (it clears what pools.defaults lists). */
    private static final String EMPTY_MEANS_NONE = "adaptive.drop-on";

    private PoolsPropertiesBinding() {
    }

    /**
     * Binds {@code pools.*} from the environment.
     * @throws PoolConfigurationException if a value cannot be bound
     */
    static PoolsProperties bind(Environment environment) {
        Set<ConfigurationPropertyName> names = namesUnderPools(environment);
        rejectEmptyOptions(names, environment);
        List<ConfigurationPropertySource> sources = new ArrayList<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            sources.add(source.filter((name) -> BOUND_ELSEWHERE.stream()
                .noneMatch((group) -> group.equals(name) || group.isAncestorOf(name))
                    && !emptyGroup(source, name, names, environment)));
        }
        Binder binder = new Binder(sources, new PropertySourcesPlaceholdersResolver(environment));
        try {
            return binder.bind("pools", Bindable.of(PoolsProperties.class),
                    new NoUnboundElementsBindHandler(BindHandler.DEFAULT))
                .orElseGet(PoolsProperties::new);
        }
        catch (BindException ex) {
            UnboundConfigurationPropertiesException unbound = unbound(ex);
            throw (unbound != null) ? unknownOption(unbound, ex) : translate(ex, environment);
        }
    }

    /**
     * Refuses a key that no option of {@code pools.events} or {@code pools.web-server} has, as
     * {@link #bind} does for the rest of {@code pools}: the classes that read those groups bind
     * them leniently, as Spring Boot does, where a misspelt key (reserved-thread) would leave its
     * default in place without a word. It stops startup; a refresh runs it after the pools'
     * own changes are applied, only to warn that a restart would fail (these groups take a
     * restart, and a typo there must not hold back the pools' own changes).
     * @throws PoolConfigurationException naming the first unknown key and the option it most likely meant
     */
    static void checkGroupsBoundElsewhere(Environment environment) {
        Binder binder = Binder.get(environment);
        for (Map.Entry<ConfigurationPropertyName, Class<?>> group : BOUND_ELSEWHERE_TYPES.entrySet()) {
            ConfigurationProperty own = find(group.getKey(), environment);
            if (own != null) {
                // The group's key with a value of its own (YAML's "events:" with every option
                // commented out): empty, it is no group to check; else it is no value.
                if (blank(own.getValue(), environment)) {
                    continue;
                }
                String where = where(own);
                throw new PoolConfigurationException(group.getKey().toString(), own.getValue(),
                        group.getKey() + " is a group of options, not a value" + where,
                        "Remove the value of " + group.getKey() + " and set the options under it.");
            }
            try {
                binder.bind(group.getKey(), Bindable.of(group.getValue()),
                        new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
            }
            catch (BindException ex) {
                UnboundConfigurationPropertiesException unbound = unbound(ex);
                if (unbound == null) {
                    // Where the group is read, it fails on this value with Boot's "Update your
                    // configuration": say which value and what it takes. Where it is not (events
                    // off, no web server pool), the value did nothing, as before; but
                    // pools.events.enabled is read by the condition that turns events off (empty,
                    // it is off to Boot, and fine).
                    if (inUse(group.getKey(), environment) || (ENABLED.equals(ex.getName())
                            && !blank((ex.getProperty() != null) ? ex.getProperty().getValue() : null, environment))) {
                        throw badValue(ex, environment);
                    }
                    continue;
                }
                // An empty value (after its placeholders, such as ${EVENTS_CHECK:}) is no value: the
                // group's own binding keeps the default. The first other one is a misspelt key.
                ConfigurationProperty property = unbound.getUnboundProperties().stream()
                    .filter((p) -> !blank(p.getValue(), environment))
                    .findFirst()
                    .orElse(null);
                if (property == null) {
                    continue;
                }
                String prefix = group.getKey().toString();
                String typed = property.getName().toString().substring(prefix.length() + 1);
                String meant = closest(typed, options(group.getValue())::iterator);
                String where = where(property);
                throw new PoolConfigurationException(property.getName().toString(), property.getValue(),
                        "no option of " + prefix + " has this name" + where,
                        ((meant != null) ? "Did you mean " + prefix + "." + meant + "? Rename it, or remove it."
                                : "Remove it.") + " The options of " + prefix + " are " + options(group.getValue())
                                    .map((option) -> prefix + "." + option).toList() + ".",
                        ex);
            }
        }
    }

    /** The options a properties class binds, dashed: its writable JavaBean properties. */
    private static Stream<String> options(Class<?> type) {
        return Stream.of(BeanUtils.getPropertyDescriptors(type))
            .filter((descriptor) -> descriptor.getWriteMethod() != null)
            .map((descriptor) -> DataObjectPropertyName.toDashedForm(descriptor.getName()))
            .sorted();
    }

    private static UnboundConfigurationPropertiesException unbound(Throwable ex) {
        for (Throwable t = ex; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof UnboundConfigurationPropertiesException unbound) {
                return unbound;
            }
        }
        return null;
    }

    /** The first property no pool option took, with the option it most likely meant. */
    private static PoolConfigurationException unknownOption(UnboundConfigurationPropertiesException unbound,
            BindException ex) {
        ConfigurationProperty property = unbound.getUnboundProperties().iterator().next();
        ConfigurationPropertyName name = property.getName();
        String where = where(property);
        String others = (unbound.getUnboundProperties().size() > 1)
                ? " Also unknown: " + unbound.getUnboundProperties().stream().skip(1)
                    .map((p) -> p.getName().toString()).toList() + "."
                : "";
        String meant = closestOption(name);
        return new PoolConfigurationException(name.toString(), property.getValue(),
                "no pool option has this name" + where,
                ((meant != null) ? "Did you mean " + meant + "? Rename it, or remove it." : "Remove it.")
                        + " The options are listed in the README and in your IDE's completion for pools.*;"
                        + " an unknown one is refused, as a misspelt one would leave its default in place." + others,
                ex);
    }

    /** The known property nearest to an unknown one, by edit distance; null if none is close. */
    static String closestOption(ConfigurationPropertyName name) {
        int first = firstOptionElement(name);
        if (name.getNumberOfElements() <= first) {
            return null;
        }
        String typed = optionPath(name, first, Form.DASHED);
        Stream<String> candidates = (first == 1)
                ? Stream.concat(TOP_LEVEL_FIXES.keySet().stream(), GROUPS.stream())
                : PoolSettings.FIXES.keySet().stream();
        String best = closest(typed, candidates::iterator);
        if (best == null) {
            return null;
        }
        return switch (first) {
            case 2 -> PoolSettings.property(null, best);
            case 3 -> PoolSettings.property(name.getElement(2, Form.ORIGINAL), best);
            default -> "pools." + best;
        };
    }

    /**
     * The candidate nearest to a mistyped name by edit distance, if it is close: at most a third
     * of the name mistyped, as for a typo or a near synonym; else null.
     */
    static String closest(String typed, Iterable<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = editDistance(typed, candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return (best == null || bestDistance > Math.max(2, best.length() / 3)) ? null : best;
    }

    /** Levenshtein distance: insertions, deletions and substitutions. */
    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /**
     * Whether a source's key is a group of options with an empty value that binding must not see:
     * an empty pools, pools.defaults, pools.instances or adaptive / shutdown group means nothing,
     * and an empty pool (pools.instances.mail) declares it only when no source sets an option under
     * it. A config engine gives such keys (ZooKeeper: a node with no data and no children, as one
     * is left when its last option node is deleted, or made before them); ranked above
     * application.yml, an empty pools.instances.mail bound as the whole entry, and the options
     * that application.yml sets under it read as unknown.
     */
    private static boolean emptyGroup(ConfigurationPropertySource source, ConfigurationPropertyName name,
            Set<ConfigurationPropertyName> names, Environment environment) {
        if (!POOLS.equals(name) && !POOLS.isAncestorOf(name) || option(name) != null) {
            return false;
        }
        ConfigurationProperty property = source.getConfigurationProperty(name);
        if (property == null || !blank(property.getValue(), environment)) {
            return false;
        }
        boolean pool = name.getNumberOfElements() == 3 && name.getElement(1, Form.UNIFORM).equals("instances");
        return !pool || names.stream().anyMatch(name::isAncestorOf);
    }

    /** Every name under pools in the environment's iterable sources. */
    private static Set<ConfigurationPropertyName> namesUnderPools(Environment environment) {
        Set<ConfigurationPropertyName> names = new TreeSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.stream().filter(POOLS::isAncestorOf).forEach(names::add);
            }
        }
        return names;
    }

    /**
     * The properties under {@code prefix}, each as the environment resolves it (the first source
     * that has it, its placeholders resolved, as text), by name in any form
     * ({@code POOLS_WEBSERVER_RESERVEDTHREADS} and {@code pools.web-server.reserved-threads} are one
     * name): what the options bound from them are, to compare one refresh's with another's.
     */
    static Map<ConfigurationPropertyName, String> values(ConfigurationPropertyName prefix, Environment environment) {
        PropertySourcesPlaceholdersResolver resolver = new PropertySourcesPlaceholdersResolver(environment);
        Map<ConfigurationPropertyName, String> values = new HashMap<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.stream().filter(prefix::isAncestorOf).forEach((name) -> {
                    if (!values.containsKey(name)) {
                        ConfigurationProperty property = source.getConfigurationProperty(name);
                        values.put(name, String.valueOf((property != null) ? resolver.resolvePlaceholders(property.getValue()) : null));
                    }
                });
            }
        }
        return values;
    }

    /** Refuses an option with an empty value. */
    private static void rejectEmptyOptions(Set<ConfigurationPropertyName> names, Environment environment) {
        for (ConfigurationPropertyName name : names) {
            String option = option(name);
            if (EMPTY_MEANS_NONE.equals(option)) {
                continue;
            }
            ConfigurationProperty property = (option != null) ? find(name, environment) : null;
            if (property != null && property.getValue() instanceof CharSequence text && text.toString().isBlank()) {
                String display = display(name, option);
                throw new PoolConfigurationException(display, "", "the value is empty",
                        "Update " + display + ": " + fix(option) + "; or remove it"
                                + (option.equals("capacity") ? " and set pools.defaults.capacity." : "."));
            }
        }
    }

    /**
     * Whether the group's own binding reads it: pools.events unless pools.events.enabled is set
     * to anything but true (Boot's condition on it), pools.web-server when pools.web-server.pool
     * is set.
     */
    private static boolean inUse(ConfigurationPropertyName group, Environment environment) {
        if (group.toString().equals("pools.events")) {
            return eventsEnabled(environment);
        }
        return webServerPool(environment) != null;
    }

    /** pools.events.enabled as Boot's condition on it reads it: on unless set to something other than true. */
    static boolean eventsEnabled(Environment environment) {
        String enabled;
        try {
            enabled = environment.getProperty(ENABLED.toString());
        }
        catch (IllegalArgumentException ex) {
            return true; // a placeholder that cannot be resolved: judged, so its binding error is told (helper-176)
        }
        return enabled == null || "true".equalsIgnoreCase(enabled);
    }

    /**
     * pools.web-server.pool as Boot's {@code @ConditionalOnProperty} on it reads it: null if unset
     * or false (no web server pool), else its value, even empty (the configuration is on then, and
     * names no pool). Every reader of the property goes through here, so that false is off for all.
     */
    static @Nullable String webServerPool(PropertyResolver environment) {
        String pool = environment.getProperty("pools.web-server.pool");
        return (pool == null || "false".equalsIgnoreCase(pool)) ? null : pool;
    }

    private static final ConfigurationPropertyName ENABLED = ConfigurationPropertyName.of("pools.events.enabled");

    /** Where the property was set, as " (origin)" to append to a message; empty if unknown. */
    private static String where(ConfigurationProperty property) {
        return (property != null && property.getOrigin() != null) ? " (" + property.getOrigin() + ")" : "";
    }

    /** Whether a property's value is empty once its placeholders are resolved (${X:} with no X). */
    private static boolean blank(Object value, Environment environment) {
        return value instanceof CharSequence text && environment.resolvePlaceholders(text.toString()).isBlank();
    }

    /** A value of pools.events.* or pools.web-server.* that does not convert: the property, the value, what it takes. */
    private static RuntimeException badValue(BindException ex, Environment environment) {
        ConfigurationPropertyName name = ex.getName();
        ConfigurationProperty property = (ex.getProperty() != null) ? ex.getProperty() : find(name, environment);
        Object value = (property != null) ? property.getValue() : null;
        String where = where(property);
        return new PoolConfigurationException(name.toString(), value, reason(ex, value) + where,
                "Update " + name + " to such a value, or remove it to keep its default.", ex);
    }

    private static RuntimeException translate(BindException ex, Environment environment) {
        ConfigurationPropertyName name = ex.getName();
        if (!POOLS.equals(name) && !POOLS.isAncestorOf(name)) {
            return ex;
        }
        String option = option(name);
        ConfigurationProperty property = (ex.getProperty() != null) ? ex.getProperty() : find(name, environment);
        Object value = (property != null) ? property.getValue() : null;
        String display = display(name, option);
        if (option == null) {
            // A value where a group of options belongs, such as pools.instances.mail=5.
            return new PoolConfigurationException(display, value, display + " is a group of options, not a value",
                    "Remove the value of " + display + " and set the options under it, such as "
                            + example(name) + ".",
                    ex);
        }
        return new PoolConfigurationException(display, value, reason(ex, value),
                "Update " + display + ": " + fix(option) + ".", ex);
    }

    /**
     * The option a property sets ({@code capacity}, {@code shutdown.await-termination-period},
     * {@code default-pool}...), or null if the name is not an option of {@code pools}.
     */
    static String option(ConfigurationPropertyName name) {
        int elements = name.getNumberOfElements();
        if (elements < 2 || !POOLS.isAncestorOf(name)) {
            return null;
        }
        int first = firstOptionElement(name);
        if (elements <= first) {
            return null;
        }
        String uniform = optionPath(name, first, Form.UNIFORM);
        Map<String, String> options = (first == 1) ? TOP_LEVEL_FIXES : PoolSettings.FIXES;
        for (String option : options.keySet()) {
            if (option.replace("-", "").equals(uniform)) {
                return option;
            }
        }
        return null;
    }

    /** Where a pool option starts in a name under pools: 2 under defaults, 3 under instances.NAME, else 1. */
    private static int firstOptionElement(ConfigurationPropertyName name) {
        String group = (name.getNumberOfElements() > 1) ? name.getElement(1, Form.UNIFORM) : "";
        return switch (group) {
            case "defaults" -> 2;
            case "instances" -> 3;
            default -> 1;
        };
    }

    /** The name's elements from {@code first} on, joined by dots, in the given form. */
    private static String optionPath(ConfigurationPropertyName name, int first, Form form) {
        StringBuilder path = new StringBuilder();
        for (int i = first; i < name.getNumberOfElements(); i++) {
            path.append((i > first) ? "." : "").append(name.getElement(i, form));
        }
        return path.toString();
    }

    /** The fix for an option, as a phrase that follows "Update property: ". */
    static String fix(String option) {
        return TOP_LEVEL_FIXES.containsKey(option) ? TOP_LEVEL_FIXES.get(option) : PoolSettings.FIXES.get(option);
    }

    /** A property's name as the user writes it, with the option in its canonical form. */
    static String display(ConfigurationPropertyName name, String option) {
        if (option == null) {
            return name.toString();
        }
        String group = name.getElement(1, Form.UNIFORM);
        return switch (group) {
            case "defaults" -> PoolSettings.property(null, option);
            case "instances" -> PoolSettings.property(name.getElement(2, Form.ORIGINAL), option);
            default -> "pools." + option;
        };
    }

    /** The property's value in the highest-priority source that has it. */
    static ConfigurationProperty find(ConfigurationPropertyName name, Environment environment) {
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                return property;
            }
        }
        return null;
    }

    private static String reason(BindException ex, Object value) {
        Class<?> type = ex.getTarget().getType().resolve(Object.class);
        Throwable root = ex;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = String.valueOf(value).trim();
        if (type == Integer.class || type == int.class) {
            return text.matches("[-+]?\\d+") ? "the number is outside the range of an int (-2147483648 to 2147483647)"
                    : "expected a whole number";
        }
        if (type == Duration.class) {
            return (root instanceof ArithmeticException) ? "the duration is too long"
                    : "expected a duration such as 500ms, 30s, 5m, 2h, 1d or PT30S";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "expected true or false";
        }
        return String.valueOf(root.getMessage());
    }

    private static String example(ConfigurationPropertyName name) {
        String last = name.getLastElement(Form.UNIFORM);
        // pools.instances.<pool> is a pool whatever its name (one may be called adaptive); a group
        // inside a pool or the defaults is one element deeper.
        boolean pool = name.getNumberOfElements() == 3 && name.getElement(1, Form.UNIFORM).equals("instances");
        if (pool) {
            return name + ".capacity";
        }
        return switch (last) {
            case "pools", "instances" -> "pools.instances.mail.capacity";
            case "defaults" -> "pools.defaults.expiry";
            case "shutdown" -> name + ".await-termination-period";
            // adaptive: true reads as a switch (the endpoint takes {"adaptive": true}): name its switch.
            case "adaptive" -> name + ".enabled";
            default -> name + ".capacity";
        };
    }

}
