package io.github.workerpool.spring.boot.autoconfigure;

import java.util.function.UnaryOperator;

import org.springframework.core.task.TaskDecorator;

/**
 * The task decorator of a pool made by the starter: applies the application's
 * {@link TaskDecorator}s, and wraps each task so that it knows its pool while it runs (for
 * logging) and so that its wait and run times reach the pool's {@link TaskObserver}, when one is
 * set (by the metrics binder).
 */
final class PoolTaskDecorator implements UnaryOperator<Runnable> {

    private static final ThreadLocal<String> CURRENT_POOL = new ThreadLocal<>();

    private final String poolName;

    private final TaskDecorator decorator;

    private volatile TaskObserver observer;

    PoolTaskDecorator(String poolName, TaskDecorator decorator) {
        this.poolName = poolName;
        this.decorator = decorator;
    }

    /** Returns the name of the pool whose task the current thread is running, or null. */
    static String currentPool() {
        return CURRENT_POOL.get();
    }

    void setObserver(TaskObserver observer) {
        this.observer = observer;
    }

    TaskObserver getObserver() {
        return this.observer;
    }

    @Override
    public Runnable apply(Runnable task) {
        Runnable decorated = (this.decorator != null) ? this.decorator.decorate(task) : task;
        return new PoolTask(decorated, this.observer, System.nanoTime());
    }

    /** Receives how long each task waited for a worker and how long it ran. */
    interface TaskObserver {

        void taskRan(long waitNanos, long runNanos);

    }

    private final class PoolTask implements Runnable {

        private final Runnable task;

        private final TaskObserver observer;

        private final long submitted;

        PoolTask(Runnable task, TaskObserver observer, long submitted) {
            this.task = task;
            this.observer = observer;
            this.submitted = submitted;
        }

        @Override
        public void run() {
            String outer = CURRENT_POOL.get();
            CURRENT_POOL.set(PoolTaskDecorator.this.poolName);
            long start = System.nanoTime();
            try {
                this.task.run();
            }
            finally {
                if (this.observer != null) {
                    this.observer.taskRan(start - this.submitted, System.nanoTime() - start);
                }
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
