package io.github.workerpool.spring.boot.autoconfigure;

import io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsProperties;
import io.github.workerpool.spring.boot.autoconfigure.web.WebServerPoolProperties;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * Binding hints for the {@code pools.*} properties, for a native image. They are bound where they
 * are read, not registered as {@code @ConfigurationProperties} beans (see PoolsAutoConfiguration),
 * so Spring Boot's ahead-of-time processing does not find them by itself.
 */
class PoolsPropertiesRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        BindableRuntimeHintsRegistrar.forTypes(PoolsProperties.class, PoolEventsProperties.class,
                WebServerPoolProperties.class).registerHints(hints, classLoader);
    }

}
