package io.github.workerpool.spring.boot.autoconfigure;

import java.util.function.UnaryOperator;

import org.springframework.core.task.TaskDecorator;

/**
 * The task decorator of a pool made by the starter: applies the application's
 * {@link TaskDecorator}s, and wraps each task so that it knows its pool while it runs (for
 * logging). Wait and run times reach the meters through the pool's listener, not through here.
 */
final class PoolTaskDecorator implements UnaryOperator<Runnable> {

    private static final ThreadLocal<String> CURRENT_POOL = new ThreadLocal<>();

    /**
     * Set by SpringPool.submitCompletable around its submit (the pool decorates a task on the
     * submitting thread): what to tell if the task's wrapper fails without running the task, whose
     * CompletableFuture only the task completes (it waited for ever).
     */
    static final ThreadLocal<Submitting> SUBMITTING = new ThreadLocal<>();

    /**
     * A submit under way: the pool it is for (a decorator set by a customizer in this pool's
     * place may submit to another pool, whose PoolTaskDecorator must not take it), and what to tell.
     */
    record Submitting(String pool, WrapperFailure onWrapperFailure) {
    }

    /** Told that a task's wrapper threw; a no-op if the task had started. */
    @FunctionalInterface
    interface WrapperFailure {

        void failed(Throwable failure);

    }

    private final String poolName;

    private final TaskDecorator decorator;


    PoolTaskDecorator(String poolName, TaskDecorator decorator) {
        this.poolName = poolName;
        this.decorator = decorator;
    }

    /** Returns the name of the pool whose task the current thread is running, or null. */
    static String currentPool() {
        return CURRENT_POOL.get();
    }

    @Override
    public Runnable apply(Runnable task) {
        Submitting submitting = SUBMITTING.get();
        SUBMITTING.remove(); // read before the decorators run: a submit they make is another task's
        WrapperFailure onWrapperFailure = (submitting != null && submitting.pool().equals(this.poolName))
                ? submitting.onWrapperFailure() : null;
        Runnable decorated = (this.decorator != null) ? this.decorator.decorate(task) : task;
        if (decorated == null) {
            // Refused at submit, naming the decorator: wrapped as it was, the task failed only
            // when it ran, where nobody could tell why.
            throw new NullPointerException("TaskDecorator " + this.decorator + " returned null for a task of pool '"
                    + this.poolName + "'");
        }
        return new PoolTask(decorated, onWrapperFailure);
    }

    private final class PoolTask implements Runnable {

        private final Runnable task;

        private final WrapperFailure onWrapperFailure;

        PoolTask(Runnable task, WrapperFailure onWrapperFailure) {
            this.task = task;
            this.onWrapperFailure = onWrapperFailure;
        }

        @Override
        public void run() {
            String outer = CURRENT_POOL.get();
            CURRENT_POOL.set(PoolTaskDecorator.this.poolName);
            try {
                this.task.run();
            }
            catch (Throwable ex) {
                if (this.onWrapperFailure != null) {
                    this.onWrapperFailure.failed(ex);
                }
                throw ex;
            }
            finally {
                if (outer != null) {
                    CURRENT_POOL.set(outer);
                }
                else {
                    CURRENT_POOL.remove();
                }
            }
        }

    }

}
