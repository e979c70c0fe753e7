package io.github.workerpool.spring.boot.autoconfigure;

import java.lang.reflect.Method;
import java.util.concurrent.Executor;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.interceptor.AsyncUncaughtExceptionHandler;
import org.springframework.beans.factory.BeanFactory;
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

    @Override
    public Executor getAsyncExecutor() {
        return (this.defaultPool != null) ? this.beanFactory.getBean(this.defaultPool, Executor.class) : null;
    }

    @Override
    public AsyncUncaughtExceptionHandler getAsyncUncaughtExceptionHandler() {
        return new PoolAsyncUncaughtExceptionHandler();
    }

    /** Logs what a {@code void @Async} method threw, naming the pool that ran it. */
    static final class PoolAsyncUncaughtExceptionHandler implements AsyncUncaughtExceptionHandler {

        private static final Log logger = LogFactory.getLog(PoolAsyncUncaughtExceptionHandler.class);

        @Override
        public void handleUncaughtException(Throwable ex, Method method, Object... params) {
            String pool = PoolTaskDecorator.currentPool();
            String where = (pool != null) ? "on pool '" + pool + "'"
                    : "on thread '" + Thread.currentThread().getName() + "'";
            logger.error("Unexpected exception from @Async method " + method.toGenericString() + " " + where, ex);
        }

    }

}
