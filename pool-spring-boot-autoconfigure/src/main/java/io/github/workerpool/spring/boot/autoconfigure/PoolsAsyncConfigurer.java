package io.github.workerpool.spring.boot.autoconfigure;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collection;
import java.util.concurrent.Executor;

import io.github.workerpool.Pool;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.interceptor.AsyncExecutionAspectSupport;
import org.springframework.aop.interceptor.AsyncUncaughtExceptionHandler;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.annotation.AsyncConfigurer;

/**
 * The application's {@link AsyncConfigurer}: plain {@code @Async} runs on {@code pools.default-pool}
 * when it is set (otherwise Spring Boot's wrapper falls back to its applicationTaskExecutor), and
 * exceptions from {@code void @Async} methods are logged with the name of the pool that ran them.
 */
class PoolsAsyncConfigurer implements AsyncConfigurer {

    private final BeanFactory beanFactory;

    private final String defaultPool;

    PoolsAsyncConfigurer(BeanFactory beanFactory, String defaultPool) {
        this.beanFactory = beanFactory;
        this.defaultPool = defaultPool;
    }

    /**
     * Checks at startup that {@code pools.default-pool} names an executor: plain {@code @Async}
     * asks for it only at its first call, and a pool that cannot run tasks would fail each one.
     * (Also where ahead-of-time processing skips the registrar's check of the name.) A bean of
     * its own: Spring Boot wraps this configurer in one of its own.
     */
    static void checkDefaultPool(ListableBeanFactory beanFactory, String defaultPool) {
        if (defaultPool == null) {
            return;
        }
        Object bean;
        try {
            if (!beanFactory.isSingleton(defaultPool)) {
                // Made for the check, or for @Async's first call, it would be a pool nobody closes,
                // and one the meters, events, endpoint and health do not show (singletons only).
                throw new PoolConfigurationException("pools.default-pool", defaultPool,
                        "'" + defaultPool + "' is a prototype or scoped bean: @Async would run on an instance"
                                + " that nobody closes and nothing meters",
                        "Declare '" + defaultPool + "' as a singleton bean, or set pools.default-pool to a pool of"
                                + " pools.instances.");
            }
            bean = beanFactory.getBean(defaultPool);
        }
        catch (NoSuchBeanDefinitionException ex) {
            throw noSuchPool(defaultPool, Arrays.asList(beanFactory.getBeanNamesForType(Pool.class, false, false)));
        }
        if (!(bean instanceof Executor) || !(bean instanceof Pool)) {
            // Another executor would run plain @Async where the meters, events, endpoint and health
            // do not look; Spring Boot's own executor is what plain @Async uses without the property.
            throw new PoolConfigurationException("pools.default-pool", defaultPool,
                    "'" + defaultPool + "' is a " + bean.getClass().getSimpleName()
                            + ((bean instanceof Executor) ? ", not a pool: plain @Async would run where the pools'"
                                    + " meters and endpoint do not look" : ", which cannot run @Async methods"),
                    "Set pools.default-pool to a pool of pools.instances or a Pool bean that runs Runnables"
                            + " (WorkerPool, MultiPool), or remove it to keep Spring Boot's executor for plain @Async.");
        }
    }

    /** pools.default-pool names no pool: the pools there are, and how to make the one it names. */
    static PoolConfigurationException noSuchPool(String defaultPool, Collection<String> pools) {
        return new PoolConfigurationException("pools.default-pool", defaultPool,
                "there is no pool named '" + defaultPool + "'; configured pools: " + pools,
                "Set pools.default-pool to one of " + pools + ", or add pools.instances." + defaultPool
                        + ".capacity to create it.");
    }

    @Override
    public Executor getAsyncExecutor() {
        return (this.defaultPool != null) ? this.beanFactory.getBean(this.defaultPool, Executor.class) : springsDefault();
    }

    /**
     * Plain {@code @Async}'s executor without pools.default-pool: the bean applicationTaskExecutor
     * (Spring Boot's, or one the application defines in its place, as Boot's wrapper of this
     * configurer would answer, if it is there: with an Executor of the application's own Boot makes
     * neither), else Spring's own
     * choice (a unique TaskExecutor, else the bean named taskExecutor, else a
     * SimpleAsyncTaskExecutor), skipping the starter's pools. Left to Spring when Boot made no
     * executor (the application has one of its own that is no TaskExecutor), its lookup of a
     * unique TaskExecutor took a lone pool, a non-default candidate: every plain @Async ran there.
     */
    private Executor springsDefault() {
        if (!(this.beanFactory instanceof ListableBeanFactory factory)) {
            return null;
        }
        String boots = TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME;
        if (factory.containsBean(boots)) {
            return factory.getBean(boots, Executor.class);
        }
        TaskExecutor unique = factory.getBeanProvider(TaskExecutor.class).getIfUnique();
        if (unique != null && !(unique instanceof SpringPool)) {
            return unique;
        }
        String named = AsyncExecutionAspectSupport.DEFAULT_TASK_EXECUTOR_BEAN_NAME;
        if (factory.containsBean(named) && !factory.isTypeMatch(named, SpringPool.class)) {
            return factory.getBean(named, Executor.class);
        }
        return new SimpleAsyncTaskExecutor();
    }

    @Override
    public AsyncUncaughtExceptionHandler getAsyncUncaughtExceptionHandler() {
        return new PoolAsyncUncaughtExceptionHandler();
    }

    /**
     * Logs what a {@code void @Async} method threw, naming the pool that ran it; on a pool of
     * {@code pools.instances}, the task then fails with it, so that the pool counts it failed
     * ({@code pool.tasks.failed}, its listeners, {@code adaptive.drop-on}). (Throwing it from here
     * would not do: Spring catches what the handler throws and logs it as the handler's fault.)
     * Spring drops a void method's future, so it is logged here alone.
     */
    static final class PoolAsyncUncaughtExceptionHandler implements AsyncUncaughtExceptionHandler {

        private static final Log logger = LogFactory.getLog(PoolAsyncUncaughtExceptionHandler.class);

        @Override
        public void handleUncaughtException(Throwable ex, Method method, Object... params) {
            String pool = PoolTaskDecorator.currentPool();
            String where = (pool != null) ? "on pool '" + pool + "'"
                    : "on thread '" + Thread.currentThread().getName() + "'";
            logger.error("Unexpected exception from @Async method " + method.toGenericString() + " " + where, ex);
            SpringPool.asyncSwallowed(ex); // the pool task's, if one of a pool's submit(Callable) runs it
        }

    }

}
