package io.github.workerpool;

import java.lang.ref.WeakReference;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread, shared by every pool, that stops workers idle longer than their
 * pool's expiry. Pools are held weakly, so a pool that is dropped without being shut down
 * does not stay reachable through its purge schedule.
 */
final class Purger {

    private static final ScheduledThreadPoolExecutor EXECUTOR;

    static {
        EXECUTOR = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "workerpool-purger");
            t.setDaemon(true);
            return t;
        });
        EXECUTOR.setRemoveOnCancelPolicy(true);
    }

    private Purger() {
    }

    /** Runs the pool's expiry check every {@code periodNanos} until cancelled or the pool is collected. */
    static ScheduledFuture<?> schedule(WorkerPool pool, long periodNanos) {
        WeakReference<WorkerPool> ref = new WeakReference<>(pool);
        return EXECUTOR.scheduleWithFixedDelay(() -> {
            WorkerPool p = ref.get();
            if (p == null) {
                // Throwing ends a periodic task: the pool is gone, so is its schedule.
                throw new IllegalStateException("pool collected");
            }
            p.purgeExpired();
        }, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }
}
