package io.github.workerpool;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/** Helpers shared by the jcstress tests. They live in pool-core's package to reach its test seams. */
final class Jcs {

    private Jcs() {
    }

    /** Tries to execute; 1 if accepted, 0 if rejected. */
    static int tryExecute(WorkerPool pool, Runnable task) {
        try {
            pool.execute(task);
            return 1;
        } catch (RejectedExecutionException e) {
            return 0;
        }
    }

    /** Shuts the pool down and waits; false means it hung (reported as an outcome, not a test crash). */
    static boolean terminate(WorkerPool pool) {
        pool.shutdown();
        try {
            return pool.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs one task and waits until its worker is idle again, so the pool starts with one idle worker. */
    static void warmOneIdleWorker(WorkerPool pool) {
        try {
            pool.submit(() -> { }).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pool.idle() != 1) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("worker did not go idle: " + pool);
            }
            Thread.onSpinWait();
        }
    }
}
