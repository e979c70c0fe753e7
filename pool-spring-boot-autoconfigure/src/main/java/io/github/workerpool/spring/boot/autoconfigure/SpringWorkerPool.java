package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.workerpool.WorkerPool;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;

/**
 * A pool made from {@code pools.instances.<name>}: one object that is both a {@link WorkerPool}
 * and a Spring {@link AsyncTaskExecutor}, so that {@code @Async("mail")} and
 * {@code @Qualifier("mail")} injection of either type find the same bean.
 */
final class SpringWorkerPool extends WorkerPool implements AsyncTaskExecutor, DisposableBean {

    /*
     * Context close (destroy): shutdown() stops intake (callers blocked in submit get
     * PoolClosedException) and lets queued and running tasks finish; after the await period
     * shutdownNow() interrupts running tasks and returns those that never started. Those are
     * counted by the pool (stats().cancelled()), cancelled if they are futures (so nobody waits on
     * them forever), and reported in one log line with the pool's name.
     */

    private static final Log logger = LogFactory.getLog(SpringWorkerPool.class);

    private final PoolTaskDecorator taskDecorator;

    private final Duration awaitTerminationPeriod;

    private SpringWorkerPool(Builder builder, PoolTaskDecorator taskDecorator, Duration awaitTerminationPeriod) {
        super(builder.taskDecorator(taskDecorator));
        this.taskDecorator = taskDecorator;
        this.awaitTerminationPeriod = awaitTerminationPeriod;
    }

    /** Builds the pool described by the settings, applying the given decorator to every task. */
    static SpringWorkerPool create(PoolSettings settings, TaskDecorator decorator) {
        String name = settings.name();
        Builder builder = settings.builder()
            .panicHandler((ex) -> logger.error("Task on pool '" + name + "' threw an exception", ex));
        return new SpringWorkerPool(builder, new PoolTaskDecorator(name, decorator),
                settings.awaitTerminationPeriod());
    }

    PoolTaskDecorator taskDecorator() {
        return this.taskDecorator;
    }

    Duration awaitTerminationPeriod() {
        return this.awaitTerminationPeriod;
    }

    @Override
    public void destroy() {
        shutdown();
        boolean interrupted = false;
        boolean terminated;
        try {
            terminated = awaitTermination(saturatedNanos(this.awaitTerminationPeriod), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            interrupted = true;
            terminated = false;
        }
        if (!terminated) {
            int running = running();
            List<Runnable> neverRan = shutdownNow();
            for (Runnable task : neverRan) {
                if (task instanceof Future<?> future) {
                    future.cancel(false);
                }
            }
            logger.warn("Pool '" + name() + "' did not finish within " + this.awaitTerminationPeriod
                    + " of context close: interrupted " + running + " running task(s); " + neverRan.size()
                    + " queued task(s) never ran and were cancelled");
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The period in nanoseconds; a period beyond about 292 years waits as long as it takes. */
    private static long saturatedNanos(Duration period) {
        try {
            return period.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE;
        }
    }

}
