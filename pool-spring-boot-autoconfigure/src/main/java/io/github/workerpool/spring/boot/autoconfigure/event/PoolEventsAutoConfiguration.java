package io.github.workerpool.spring.boot.autoconfigure.event;

import io.github.workerpool.spring.boot.autoconfigure.PoolsAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} for
 * the pools' application events ({@link PoolEvent}) and, with Micrometer, their
 * {@code pool.events} counter. Off with {@code pools.events.enabled=false}.
 */
@AutoConfiguration(after = PoolsAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration")
@ConditionalOnBooleanProperty(name = "pools.events.enabled", matchIfMissing = true)
@Import(PoolEventsAutoConfiguration.MetricsConfiguration.class)
public final class PoolEventsAutoConfiguration {

    /*
     * The publisher is a bean post-processor (it sees pool beans come and go), so its bean method
     * is static and binds pools.events itself: a post-processor that took the properties bean
     * would have it made before the other post-processors exist. And pools.events is no
     * @ConfigurationProperties bean at all: Spring Cloud rebinds every such bean on a refresh and
     * rethrows the first failure, so one bad value failed the whole refresh.
     */

    /** The name of the bean that publishes the pools' events: defined where the events are on. */
    public static final String PUBLISHER_BEAN_NAME = "poolEventPublisher";

    @Bean(PUBLISHER_BEAN_NAME)
    @ConditionalOnMissingBean
    static PoolEventPublisher poolEventPublisher(Environment environment) {
        return new PoolEventPublisher(
                Binder.get(environment).bindOrCreate("pools.events", PoolEventsProperties.class));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
    static class MetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        static PoolEventsMeterBinder poolEventsMeterBinder() {
            return new PoolEventsMeterBinder();
        }

    }

}
