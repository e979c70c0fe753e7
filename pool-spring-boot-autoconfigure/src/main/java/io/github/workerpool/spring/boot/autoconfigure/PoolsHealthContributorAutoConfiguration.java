package io.github.workerpool.spring.boot.autoconfigure;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} for
 * the {@code pools} health contributor, when Spring Boot's health module is on the classpath.
 */
@AutoConfiguration(after = PoolsAutoConfiguration.class,
        beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass(name = { "org.springframework.boot.health.contributor.HealthIndicator",
        "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator" })
public final class PoolsHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "poolsHealthContributor")
    @ConditionalOnEnabledHealthIndicator("pools")
    PoolsHealthContributor poolsHealthContributor(ListableBeanFactory beanFactory) {
        return new PoolsHealthContributor(() -> Pools.in(beanFactory));
    }

}
