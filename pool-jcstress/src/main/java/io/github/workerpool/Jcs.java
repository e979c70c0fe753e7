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

    /**
     * After termination: 1 if the pool's structure is sound (idle count, waiters, searchers, queue
     * counter, worker count) and its totals add up
     * ({@code submitted == completed + failed + rejected + cancelled + running + queued}), else 0.
     */
    static int soundAndAddsUp(WorkerPool pool) {
        PoolStats s = pool.stats();
        boolean addsUp = s.submitted() == s.completed() + s.failed() + s.rejected() + s.cancelled() + s.running()
                + s.queued();
        return addsUp && pool.quietStructureProblems().isEmpty() ? 1 : 0;
    }

    /** A task that spins until {@code release} is true, or {@code limitNanos} after it was made (so that a stuck sample still ends). */
    static Runnable blockUntil(java.util.function.BooleanSupplier release, long limitNanos) {
        long deadline = System.nanoTime() + limitNanos;
        return () -> {
            while (!release.getAsBoolean() && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
        };
    }

    /** Spins until the condition holds or 10 s pass; false if it never held. */
    static boolean spinUntil(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    /**
     * Runs n tasks at once (each waits for the others, so each gets its own worker) and waits until
     * all n workers are parked on the idle structure (not spinning), so the pool starts with n idle workers.
     */
    static void warmIdleWorkers(WorkerPool pool, int n) {
        java.util.concurrent.CountDownLatch all = new java.util.concurrent.CountDownLatch(n);
        java.util.List<java.util.concurrent.Future<?>> fs = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            fs.add(pool.submit(() -> {
                all.countDown();
                all.await(10, TimeUnit.SECONDS);
                return null;
            }));
        }
        try {
            for (java.util.concurrent.Future<?> f : fs) {
                f.get(10, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        if (!spinUntil(() -> pool.idleInStructure() == n)) {
            throw new IllegalStateException("workers did not go idle: " + pool);
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
