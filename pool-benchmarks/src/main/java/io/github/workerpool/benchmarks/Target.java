package io.github.workerpool.benchmarks;

import io.github.workerpool.WorkerPool;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;

/** One executor under test, seen the same way by every benchmark. */
interface Target extends AutoCloseable {

    /** Submits a task; may block (hand-off and Semaphore peers). */
    void submit(Runnable task) throws Exception;

    /** Changes the concurrency limit while running; for the tune benchmark. */
    default void resize(int capacity) {
        throw new UnsupportedOperationException("this peer cannot be resized");
    }

    /** Shuts down and waits for the running tasks. */
    @Override
    void close();

    static Target of(ExecutorService executor) {
        return new Target() {
            @Override
            public void submit(Runnable task) {
                executor.execute(task);
            }

            @Override
            public void resize(int capacity) {
                if (executor instanceof WorkerPool) {
                    ((WorkerPool) executor).tune(capacity);
                } else {
                    Target.super.resize(capacity);
                }
            }

            @Override
            public void close() {
                Peer.shutdownAndWait(executor);
            }
        };
    }

    static Target ofTpe(ThreadPoolExecutor tpe) {
        return new Target() {
            @Override
            public void submit(Runnable task) {
                tpe.execute(task);
            }

            @Override
            public void resize(int capacity) {
                if (capacity > tpe.getMaximumPoolSize()) {
                    tpe.setMaximumPoolSize(capacity);
                    tpe.setCorePoolSize(capacity);
                } else {
                    tpe.setCorePoolSize(capacity);
                    tpe.setMaximumPoolSize(capacity);
                }
            }

            @Override
            public void close() {
                Peer.shutdownAndWait(tpe);
            }
        };
    }
}
