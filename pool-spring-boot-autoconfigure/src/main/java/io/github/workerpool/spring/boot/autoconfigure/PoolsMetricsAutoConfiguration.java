package io.github.workerpool.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} for
 * the pools' Micrometer meters, when Micrometer is on the classpath.
 */
@AutoConfiguration(after = PoolsAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration")
@ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
public final class PoolsMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    static PoolsMeterBinder poolsMeterBinder() {
        return new PoolsMeterBinder();
    }

}
