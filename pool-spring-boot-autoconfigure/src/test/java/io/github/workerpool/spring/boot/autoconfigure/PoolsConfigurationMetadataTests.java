package io.github.workerpool.spring.boot.autoconfigure;

import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads the configuration metadata that the build generates (annotation processor output merged
 * with additional-spring-configuration-metadata.json) and checks that IDEs get every
 * {@code pools.*} key, each with a description.
 */
class PoolsConfigurationMetadataTests {

    @Test
    void everyPoolsPropertyIsDescribed() throws Exception {
        Map<String, Map<String, Object>> properties = properties();
        Set<String> expected = new TreeSet<>(List.of("pools.default-pool", "pools.propagate-context",
                "pools.instances", "management.endpoint.pools.access", "management.health.pools.enabled"));
        for (String option : options(PoolsProperties.Pool.class)) {
            expected.add("pools.defaults." + option);
        }
        expected.add("pools.defaults.shutdown.await-termination-period");
        assertThat(properties).containsKeys(expected.toArray(String[]::new));
        properties.forEach((name, property) -> {
            if (name.startsWith("pools.") || name.contains(".pools.")) {
                assertThat((String) property.get("description")).as("description of %s", name).isNotBlank();
            }
        });
    }

    @Test
    void inheritedDefaultsCarryTheirDefaultValues() throws Exception {
        Map<String, Map<String, Object>> properties = properties();
        assertThat(properties.get("pools.defaults.expiry")).containsEntry("defaultValue", "60s");
        assertThat(properties.get("pools.defaults.shutdown.await-termination-period"))
            .containsEntry("defaultValue", "30s");
        assertThat(properties.get("pools.defaults.queue-capacity")).containsEntry("defaultValue", 0);
    }

    @Test
    void theOptionsTableAndThePropertiesAndTheirMetadataAgree() throws Exception {
        Map<String, Map<String, Object>> properties = properties();
        Set<String> fromTable = new TreeSet<>();
        for (PoolOption option : PoolOption.values()) {
            fromTable.add(option.property());
            Map<String, Object> metadata = properties.get("pools.defaults." + option.property());
            assertThat(metadata).as("metadata of %s", option.property()).isNotNull();
            Object expected = option.defaultValue();
            if (expected instanceof java.time.Duration duration) {
                expected = duration.toSeconds() + "s";
            }
            if (expected != null) {
                assertThat(metadata).as("default of %s", option.property()).containsEntry("defaultValue", expected);
            }
            else {
                assertThat(metadata).as("%s has no default", option.property()).doesNotContainKey("defaultValue");
            }
            String type = switch (option.type()) {
                case INT -> "java.lang.Integer";
                case BOOLEAN -> "java.lang.Boolean";
                case DURATION -> "java.time.Duration";
            };
            assertThat(metadata).as("type of %s", option.property()).containsEntry("type", type);
        }
        assertThat(options(PoolsProperties.Pool.class)).as("every bound option is in the table").isEqualTo(fromTable);
    }

    /** Kebab-case names of the bean properties of a properties class, nested groups left out. */
    private static Set<String> options(Class<?> type) throws Exception {
        Set<String> names = new TreeSet<>();
        for (PropertyDescriptor descriptor : Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
            if (descriptor.getWriteMethod() != null) {
                names.add(descriptor.getName().replaceAll("([A-Z])", "-$1").toLowerCase());
            }
        }
        return names;
    }

    private static Map<String, Map<String, Object>> properties() throws Exception {
        // The module's own file, next to PoolsProperties: other jars on the class path have one too.
        java.net.URL classes = PoolsProperties.class.getProtectionDomain().getCodeSource().getLocation();
        java.net.URL metadata = classes.toURI().resolve("META-INF/spring-configuration-metadata.json").toURL();
        try (InputStream in = metadata.openStream()) {
            List<Map<String, Object>> list = JsonPath.read(in, "$.properties");
            Map<String, Map<String, Object>> byName = new HashMap<>();
            list.forEach((p) -> byName.put((String) p.get("name"), p));
            return byName;
        }
    }

}
