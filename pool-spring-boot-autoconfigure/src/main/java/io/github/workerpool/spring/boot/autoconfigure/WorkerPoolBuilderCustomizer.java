package io.github.workerpool.spring.boot.autoconfigure;

import io.github.workerpool.WorkerPool;

/**
 * Callback that customizes the {@link WorkerPool.Builder} of each pool made from
 * {@code pools.instances}, as Spring Boot's {@code ThreadPoolTaskExecutorCustomizer} does for its
 * executor: a thread factory, a panic handler, a listener, or any option the properties do not
 * cover.
 *
 * <p>Every bean of this type is applied, in {@link org.springframework.core.Ordered order}, to
 * every such pool, after the pool's properties and the starter's own settings; what a customizer
 * sets wins. The starter's settings are a panic handler that logs with the pool's name and a task
 * decorator that applies the {@code TaskDecorator} beans and lets {@code @Async} error logs name
 * the pool: a customizer that sets {@code taskDecorator} replaces both. Pools that the
 * application builds itself are not customized.
 */
@FunctionalInterface
public interface WorkerPoolBuilderCustomizer {

    /**
     * Customizes the builder of one pool before it is built.
     * @param poolName the pool's name, also its bean name
     * @param builder the builder, with the pool's properties applied
     */
    void customize(String poolName, WorkerPool.Builder builder);

}
