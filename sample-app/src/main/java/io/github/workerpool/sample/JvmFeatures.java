package io.github.workerpool.sample;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Publishes what the running JVM can do as properties, so that application.yml can say
 * "virtual threads when the JVM allows": {@code sample.jvm.virtual-threads} is {@code true} on
 * Java 21 and later. Added last, so any property source can override it.
 */
class JvmFeatures implements EnvironmentPostProcessor {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        boolean virtualThreads = Runtime.version().feature() >= 21;
        environment.getPropertySources().addLast(new MapPropertySource("sampleJvmFeatures",
                Map.of("sample.jvm.virtual-threads", virtualThreads)));
    }
}
