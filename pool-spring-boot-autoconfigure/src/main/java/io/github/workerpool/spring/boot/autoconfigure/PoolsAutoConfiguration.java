package io.github.workerpool.spring.boot.autoconfigure;

import java.util.Arrays;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.AsyncConfigurer;
import org.springframework.scheduling.config.TaskManagementConfigUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} for
 * named worker pools: one bean per {@code pools.instances} entry, usable with {@code @Async}.
 */
@AutoConfiguration(before = TaskExecutionAutoConfiguration.class)
@ImportRuntimeHints(PoolsPropertiesRuntimeHints.class)
@Import({ PoolsRegistrar.class, PoolsAutoConfiguration.AsyncConfiguration.class,
        PoolsAutoConfiguration.RefreshConfiguration.class })
public final class PoolsAutoConfiguration {

    private static final String ASYNC_CONFIGURER_BEAN_NAME = "poolsAsyncConfigurer";

    private static final Log logger = LogFactory.getLog(PoolsAutoConfiguration.class);

    /*
     * Spring allows one AsyncConfigurer. This one is registered before Spring Boot's task
     * execution auto-configuration, which then wraps it instead of adding its own: when
     * getAsyncExecutor() returns null (no pools.default-pool), Boot's wrapper answers with
     * applicationTaskExecutor, exactly as without this starter. An application's own
     * AsyncConfigurer wins over this one.
     *
     * PoolsProperties is bound where it is read (PoolsPropertiesBinding), never registered as a
     * @ConfigurationProperties bean: Spring Cloud rebinds every such bean on a refresh and
     * rethrows the first failure, so a pools.* value that cannot be bound failed the whole
     * refresh (a 500 from /actuator/refresh, other beans not rebound) instead of one WARN.
     */

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(AsyncConfigurer.class)
    static class AsyncConfiguration {

        @Bean(ASYNC_CONFIGURER_BEAN_NAME)
        PoolsAsyncConfigurer poolsAsyncConfigurer(BeanFactory beanFactory, Environment environment) {
            return new PoolsAsyncConfigurer(beanFactory, PoolsPropertiesBinding.bind(environment).getDefaultPool());
        }

    }

    /**
     * Checks pools.default-pool at startup, also where the application's own AsyncConfigurer
     * replaced the starter's: then it does not apply, and a WARN says so (a configurer written
     * only for its exception handler quietly moved plain @Async off the pool).
     */
    @Bean
    static SmartInitializingSingleton poolsDefaultPoolCheck(ListableBeanFactory beanFactory, Environment environment) {
        String defaultPool = PoolsPropertiesBinding.bind(environment).getDefaultPool();
        return () -> {
            PoolsAsyncConfigurer.checkDefaultPool(beanFactory, defaultPool);
            warnIfAsyncIsOff(beanFactory);
            if (defaultPool != null && !beanFactory.containsBean(ASYNC_CONFIGURER_BEAN_NAME)) {
                logger.warn("pools.default-pool=" + defaultPool + " is not what chooses plain @Async's executor: the "
                        + "application's AsyncConfigurer "
                        + Arrays.toString(beanFactory.getBeanNamesForType(AsyncConfigurer.class, false, false))
                        + " does. To run plain @Async on the pool, return it from its getAsyncExecutor() "
                        + "(@Qualifier(\"" + defaultPool + "\") Executor); else remove the property.");
            }
        };
    }

    /**
     * Without @EnableAsync (Spring Boot does not turn it on) an @Async method runs on the calling
     * thread, silently: the pools stay idle. Says so, naming the first bean with such methods;
     * only then are the beans' classes looked through, once.
     */
    private static void warnIfAsyncIsOff(ListableBeanFactory beanFactory) {
        if (beanFactory.containsBean(TaskManagementConfigUtils.ASYNC_ANNOTATION_PROCESSOR_BEAN_NAME)
                || beanFactory.containsBean(TaskManagementConfigUtils.ASYNC_EXECUTION_ASPECT_BEAN_NAME)) {
            return; // proxies, or AspectJ weaving (@EnableAsync(mode = ASPECTJ): helper-174)
        }
        for (String name : beanFactory.getBeanNamesForType(Object.class, false, false)) {
            Class<?> type = beanFactory.getType(name, false);
            if (type != null && hasAsyncMethods(ClassUtils.getUserClass(type))) {
                logger.warn("@Async methods of bean '" + name + "' (" + ClassUtils.getUserClass(type).getName()
                        + ") run on the calling thread: @EnableAsync is missing. Add @EnableAsync to a "
                        + "@Configuration class to run them on their pools.");
                return;
            }
        }
    }

    private static boolean hasAsyncMethods(Class<?> type) {
        if (!AnnotationUtils.isCandidateClass(type, Async.class)) {
            return false;
        }
        if (AnnotatedElementUtils.hasAnnotation(type, Async.class)) {
            return true;
        }
        boolean[] found = new boolean[1];
        ReflectionUtils.doWithMethods(type, (method) -> found[0] = true,
                (method) -> !found[0] && AnnotatedElementUtils.hasAnnotation(method, Async.class));
        return found[0];
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
    static class RefreshConfiguration {

        @Bean
        static PoolsRefresher poolsRefresher(Environment environment, ListableBeanFactory beanFactory) {
            return new PoolsRefresher(environment, beanFactory);
        }

        /**
         * The refresher is made at startup even with lazy initialization: it records the settings
         * the pools were built with, and made at the first refresh it would record the refreshed
         * ones instead, and apply nothing.
         */
        @Bean
        static LazyInitializationExcludeFilter poolsRefresherNotLazy() {
            return LazyInitializationExcludeFilter.forBeanTypes(PoolsRefresher.class);
        }

    }

}
