package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

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

    private static final ConfigurationPropertyName POOLS = ConfigurationPropertyName.of("pools");

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
        rejectEmptyOptions(environment);
        try {
            return Binder.get(environment).bind("pools", PoolsProperties.class).orElseGet(PoolsProperties::new);
        }
        catch (BindException ex) {
            throw translate(ex, environment);
        }
    }

    private static void rejectEmptyOptions(Environment environment) {
        Set<ConfigurationPropertyName> names = new TreeSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.stream().filter(POOLS::isAncestorOf).forEach(names::add);
            }
        }
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

    private static RuntimeException translate(BindException ex, Environment environment) {
        ConfigurationPropertyName name = ex.getName();
        if (!POOLS.isAncestorOf(name)) {
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
        String group = name.getElement(1, Form.UNIFORM);
        int first = switch (group) {
            case "defaults" -> 2;
            case "instances" -> 3;
            default -> 1;
        };
        if (elements <= first) {
            return null;
        }
        StringBuilder uniform = new StringBuilder();
        for (int i = first; i < elements; i++) {
            uniform.append((i > first) ? "." : "").append(name.getElement(i, Form.UNIFORM));
        }
        Map<String, String> options = (first == 1) ? TOP_LEVEL_FIXES : PoolSettings.FIXES;
        for (String option : options.keySet()) {
            if (option.replace("-", "").equals(uniform.toString())) {
                return option;
            }
        }
        return null;
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
        return switch (last) {
            case "pools", "instances" -> "pools.instances.mail.capacity";
            case "defaults" -> "pools.defaults.expiry";
            case "shutdown" -> name + ".await-termination-period";
            default -> name + ".capacity";
        };
    }

}
