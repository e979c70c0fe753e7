package io.github.workerpool.sample.demo;

import io.github.workerpool.FunctionPool;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Pools the application builds itself, as beans: the starter finds every {@code Pool} bean, so
 * they show in {@code /actuator/pools}, the meters, health and the dashboard next to the pools
 * from {@code pools.instances}.
 */
@Configuration(proxyBeanMethods = false)
class DemoPools {

    /** The thumbnail service's {@link FunctionPool}; the service closes it. */
    @Bean(destroyMethod = "")
    FunctionPool<Integer> thumbnails(ThumbnailService service) {
        return service.pool();
    }

}
