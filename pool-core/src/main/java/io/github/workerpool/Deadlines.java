package io.github.workerpool;

import java.lang.ref.WeakReference;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The deadlines of every {@link TaskGroup}: one daemon timer thread that only hands each expiry to
 * a thread of its own. An expiry cancels tasks, and a cancel completes their futures, whose
 * callbacks (the user's, on {@code toCompletableFuture()}) run on the cancelling thread: run on a
 * shared timer thread (the JDK's {@code CompletableFuture} delay thread did so), one callback that
 * blocked would hold up every deadline, and every {@code orTimeout}, of the JVM. Groups are held
 * weakly: a group dropped with tasks pending does not stay reachable through its deadline.
 */
final class Deadlines {

    private static final ScheduledThreadPoolExecutor TIMER;

    /** Where expiries run: a thread each while they run, reused for a minute, none when idle. */
    private static final ThreadPoolExecutor EXPIRIES;

    static {
        TIMER = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "workerpool-task-group-deadlines"));
        TIMER.setRemoveOnCancelPolicy(true); // a group that finishes early leaves no entry behind
        // No thread while no deadline is pending: a thread of its own, alive for ever, would keep
        // the class loader of an undeployed web application that has this library.
        TIMER.setKeepAliveTime(30, TimeUnit.SECONDS);
        TIMER.allowCoreThreadTimeOut(true);
        AtomicLong seq = new AtomicLong();
        EXPIRIES = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> daemon(r, "workerpool-task-group-expiry-" + seq.incrementAndGet()));
    }

    private Deadlines() {
    }

    private static Thread daemon(Runnable r, String name) {
        return Threads.libraryDaemon(r, name, Deadlines.class.getClassLoader());
    }

    /** The timer (tests: occupy it to play a late timer). */
    static ScheduledThreadPoolExecutor timer() {
        return TIMER;
    }

    /** Calls {@code group.expire()} on an expiry thread in {@code delayNanos}, unless cancelled first. */
    static ScheduledFuture<?> schedule(TaskGroup<?> group, long delayNanos) {
        WeakReference<TaskGroup<?>> ref = new WeakReference<>(group);
        return TIMER.schedule(() -> {
            TaskGroup<?> g = ref.get();
            if (g != null) {
                try {
                    EXPIRIES.execute(g::expire);
                } catch (RejectedExecutionException | OutOfMemoryError e) {
                    g.expire(); // no thread to be had: late is better than never
                }
            }
        }, delayNanos, TimeUnit.NANOSECONDS);
    }
}
