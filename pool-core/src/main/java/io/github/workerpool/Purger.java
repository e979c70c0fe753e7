package io.github.workerpool;

import java.lang.ref.WeakReference;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread, shared by every pool, that stops workers idle longer than their
 * pool's expiry. Pools are held weakly, so a pool that is dropped without being shut down
 * does not stay reachable through its purge schedule. The thread ends 30 seconds after the last
 * schedule is cancelled, and takes neither the inheritable thread locals nor the context class
 * loader of the thread that built the first pool: a thread alive for ever with a web
 * application's loader kept that application from being unloaded after an undeploy.
 */
final class Purger {

    private static final ScheduledThreadPoolExecutor EXECUTOR;

    static {
        EXECUTOR = new ScheduledThreadPoolExecutor(1, r -> Threads.libraryDaemon(r, "workerpool-purger",
                Purger.class.getClassLoader()));
        EXECUTOR.setRemoveOnCancelPolicy(true);
        // Its last thread stays while a schedule is pending (a periodic task is always in its queue).
        EXECUTOR.setKeepAliveTime(30, TimeUnit.SECONDS);
        EXECUTOR.allowCoreThreadTimeOut(true);
    }

    private Purger() {
    }

    /** The executor (tests: whether its thread can end). */
    static ScheduledThreadPoolExecutor executor() {
        return EXECUTOR;
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
            p.purgeExpiredUnlessBusy();
        }, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }
}
