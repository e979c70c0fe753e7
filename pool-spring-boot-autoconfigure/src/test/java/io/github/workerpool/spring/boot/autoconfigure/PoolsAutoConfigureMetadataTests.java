package io.github.workerpool.spring.boot.autoconfigure;

import java.io.InputStream;
import java.net.URL;
import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads the auto-configuration metadata that spring-boot-autoconfigure-processor writes at build
 * time: Spring Boot evaluates these conditions and ordering before it loads a class.
 */
class PoolsAutoConfigureMetadataTests {

    private static final String PACKAGE = "io.github.workerpool.spring.boot.autoconfigure.";

    @Test
    void autoConfigureMetadataIsGeneratedAndNamesPoolsAutoConfiguration() throws Exception {
        Properties metadata = metadata();
        assertThat(metadata).containsKey(PACKAGE + "PoolsAutoConfiguration");
        assertThat(metadata.getProperty(PACKAGE + "PoolsAutoConfiguration.AutoConfigureBefore"))
            .isEqualTo("org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration");
    }

    @Test
    void autoConfigureMetadataCarriesTheClassConditionsOfTheOptionalParts() throws Exception {
        Properties metadata = metadata();
        assertThat(metadata.getProperty(PACKAGE + "PoolsMetricsAutoConfiguration.ConditionalOnClass"))
            .isEqualTo("io.micrometer.core.instrument.binder.MeterBinder");
        assertThat(metadata.getProperty(PACKAGE + "PoolsEndpointAutoConfiguration.ConditionalOnClass"))
            .contains("org.springframework.boot.actuate.endpoint.annotation.Endpoint");
        assertThat(metadata.getProperty(PACKAGE + "PoolsHealthContributorAutoConfiguration.ConditionalOnClass"))
            .contains("org.springframework.boot.health.contributor.HealthIndicator");
    }

    /** The module's own file, next to its classes: other jars on the class path have one too. */
    private static Properties metadata() throws Exception {
        URL classes = PoolsAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation();
        URL file = classes.toURI().resolve("META-INF/spring-autoconfigure-metadata.properties").toURL();
        Properties properties = new Properties();
        try (InputStream in = file.openStream()) {
            properties.load(in);
        }
        return properties;
    }

}
