package io.github.workerpool.sample.demo;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * Puts load on a pool from several caller threads at once, so that a person watching the
 * dashboard sees callers wait ({@code waiting}) and get rejected, not only tasks queue.
 */
@Component
class LoadDriver {

    private static final int KEPT_RUNS = 20;

    private static final long REJECTED_BACKOFF_MILLIS = 50;

    private final Deque<LoadRun> runs = new ArrayDeque<>();

    private final AtomicInteger ids = new AtomicInteger();

    /** One call of the load: submit task number {@code n} to the pool. */
    @FunctionalInterface
    interface Call {
        void submit(int n) throws Exception;
    }

    /**
     * Starts {@code callers} threads that together make {@code count} calls; returns at once.
     * @return the run, whose counts grow as the callers go
     */
    LoadRun start(String pool, int count, int callers, Call call) {
        LoadRun run = new LoadRun(this.ids.incrementAndGet(), pool, count, callers);
        synchronized (this.runs) {
            this.runs.addFirst(run);
            while (this.runs.size() > KEPT_RUNS) {
                this.runs.removeLast();
            }
        }
        AtomicInteger next = new AtomicInteger();
        for (int c = 1; c <= callers; c++) {
            Thread caller = new Thread(() -> {
                for (int n = next.incrementAndGet(); n <= count; n = next.incrementAndGet()) {
                    try {
                        call.submit(n);
                        run.accepted.incrementAndGet();
                    }
                    catch (RejectedExecutionException ex) { // Spring's TaskRejectedException too
                        run.rejected.incrementAndGet();
                        try {
                            Thread.sleep(REJECTED_BACKOFF_MILLIS); // as a polite client would, before trying again
                        }
                        catch (InterruptedException ie) {
                            return;
                        }
                    }
                    catch (InterruptedException ex) {
                        return;
                    }
                    catch (Exception ex) {
                        run.failed.incrementAndGet();
                    }
                }
            }, "load-" + pool + "-" + run.id + "-" + c);
            caller.setDaemon(true);
            caller.start();
        }
        return run;
    }

    /** Returns the most recent runs, newest first. */
    List<LoadRun> runs() {
        synchronized (this.runs) {
            return List.copyOf(this.runs);
        }
    }

    /** One load run and its counts so far. */
    static final class LoadRun {
        final int id;
        final String pool;
        final int count;
        final int callers;
        final AtomicInteger accepted = new AtomicInteger();
        final AtomicInteger rejected = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();

        LoadRun(int id, String pool, int count, int callers) {
            this.id = id;
            this.pool = pool;
            this.count = count;
            this.callers = callers;
        }

        /** Returns the run as JSON-friendly values. */
        RunView view() {
            return new RunView(this.id, this.pool, this.count, this.callers, this.accepted.get(), this.rejected.get(),
                    this.failed.get());
        }
    }

    /**
     * A load run's counts.
     * @param id       the run's number
     * @param pool     the pool it loads
     * @param count    calls it makes
     * @param callers  threads making them
     * @param accepted calls the pool took
     * @param rejected calls the pool refused
     * @param failed   calls that failed otherwise
     */
    record RunView(int id, String pool, int count, int callers, int accepted, int rejected, int failed) {
    }
}
