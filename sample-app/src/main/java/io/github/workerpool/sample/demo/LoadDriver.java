package io.github.workerpool.sample.demo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Puts load on a pool from several caller threads at once, so that a person watching the
 * dashboard sees callers wait ({@code waiting}) and get rejected, not only tasks queue.
 */
@Component
class LoadDriver implements SmartLifecycle {

    private static final int KEPT_RUNS = 20;

    /** Caller threads of all runs at once: more runs are refused until some end (each may have 64). */
    static final int MAX_CALLERS = 256;

    /** The callers still going, whether their run is still listed or not. */
    private final Set<Thread> callers = ConcurrentHashMap.newKeySet();

    private volatile boolean running = true;

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
        LoadRun run;
        List<Thread> threads = new ArrayList<>();
        synchronized (this.runs) {
            if (!this.running) {
                throw new Busy("the application is stopping: no new load runs");
            }
            int going = this.callers.size();
            if (going + callers > MAX_CALLERS) {
                throw new Busy(going + " callers of earlier runs are still going and " + callers + " more would pass "
                        + MAX_CALLERS + "; wait for a run to end (GET /demo/runs), or ask for fewer callers");
            }
            run = new LoadRun(this.ids.incrementAndGet(), pool, count, callers);
            this.runs.addFirst(run);
            while (this.runs.size() > KEPT_RUNS) {
                this.runs.removeLast();
            }
            AtomicInteger next = new AtomicInteger();
            for (int c = 1; c <= callers; c++) {
                Thread caller = new Thread(() -> {
                    try {
                        callUntilDone(run, next, call);
                    }
                    finally {
                        this.callers.remove(Thread.currentThread());
                    }
                }, "load-" + pool + "-" + run.id + "-" + c);
                caller.setDaemon(true);
                threads.add(caller);
            }
            this.callers.addAll(threads); // counted before they start: the next run's check sees them
        }
        for (Thread caller : threads) {
            try {
                caller.start(); // one that a stop interrupted before its start sees it stopped
            }
            catch (RuntimeException | Error ex) { // out of memory for a native thread: not counted
                threads.stream().filter((t) -> t.getState() == Thread.State.NEW).forEach(this.callers::remove);
                throw ex;
            }
        }
        return run;
    }

    private void callUntilDone(LoadRun run, AtomicInteger next, Call call) {
        for (int n = next.incrementAndGet(); n <= run.count && this.running; n = next.incrementAndGet()) {
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
    }

    /** Caller threads still going, of all runs. */
    int callers() {
        return this.callers.size();
    }

    /** Accepts runs again (a context started again after a stop). */
    @Override
    public void start() {
        this.running = true;
    }

    /**
     * Ends every run's callers as the application stops, before the pools do (the default phase
     * stops first): they would go on calling closed pools for minutes, each call refused.
     */
    @Override
    public void stop() {
        synchronized (this.runs) {
            this.running = false;
        }
        this.callers.forEach(Thread::interrupt);
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /** A run refused: too many callers going, or the application stopping. */
    static final class Busy extends RuntimeException {
        Busy(String message) {
            super(message);
        }
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
