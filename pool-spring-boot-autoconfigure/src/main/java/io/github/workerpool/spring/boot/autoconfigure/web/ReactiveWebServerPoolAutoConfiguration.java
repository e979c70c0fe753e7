package io.github.workerpool.spring.boot.autoconfigure.web;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;
import io.github.workerpool.spring.boot.autoconfigure.PoolsAutoConfiguration;

import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} that
 * fails the startup of a reactive web application that sets {@code pools.web-server.pool}: a
 * reactive server's event loops must not block on a pool, so the property would do nothing there,
 * and a setting that silently does nothing is worse than a failed start.
 */
@AutoConfiguration(after = PoolsAutoConfiguration.class)
@ConditionalOnWebApplication(type = Type.REACTIVE)
@ConditionalOnProperty("pools.web-server.pool")
public final class ReactiveWebServerPoolAutoConfiguration {

    /** Made even with lazy initialization, which would never make a bean that nothing asks for. */
    @Bean
    static LazyInitializationExcludeFilter poolsReactiveWebServerPoolRefusalNotLazy() {
        return (name, definition, type) -> "poolsReactiveWebServerPoolRefusal".equals(name);
    }

    @Bean
    Object poolsReactiveWebServerPoolRefusal(Environment environment) {
        throw new PoolConfigurationException(WebServerPool.POOL_PROPERTY,
                environment.getProperty(WebServerPool.POOL_PROPERTY),
                "the request threads can be put on a pool in a servlet web application on Tomcat or Jetty, and this "
                        + "is a reactive web application, whose server runs requests on its event loops",
                "Remove " + WebServerPool.POOL_PROPERTY + ", or run the application on Spring MVC "
                        + "(spring-boot-starter-webmvc) with Tomcat or Jetty.");
    }

}
