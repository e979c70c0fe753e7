package io.github.workerpool.benchmarks;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Submits a batch of identical tiny tasks to a {@link Target} from {@code producers} threads (the
 * calling thread plus producers - 1 helpers) and waits until every task has run. The task object
 * is allocated once, so allocation measured per task is the executor's own.
 */
final class Batch implements AutoCloseable {

    /** Name prefix of the helper producer threads (CpuTimeProfiler counts their CPU). */
    static final String PRODUCER_THREAD_PREFIX = "producer-";

    private final Target target;
    private final int producers;
    private final long workTokens;
    private final AtomicInteger remaining = new AtomicInteger();
    private final Thread[] helpers;
    private final BlockingQueue<Integer>[] rounds;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile Thread waiter;
    private final Runnable task;
    private final boolean countRejections;
    private final LongAdder rejected = new LongAdder();

    Batch(Target target, int producers, long workTokens) {
        this(target, producers, workTokens, false);
    }

    /**
     * @param countRejections whether a rejected task is counted ({@link #takeRejected()}) and the
     *        batch goes on, instead of failing it (for executors that reject when full)
     */
    @SuppressWarnings("unchecked")
    Batch(Target target, int producers, long workTokens, boolean countRejections) {
        if (producers < 1) {
            throw new IllegalArgumentException("producers must be at least 1, but was " + producers);
        }
        this.target = target;
        this.producers = producers;
        this.workTokens = workTokens;
        this.countRejections = countRejections;
        this.task = () -> {
            if (this.workTokens > 0) {
                Blackhole.consumeCPU(this.workTokens);
            }
            if (remaining.decrementAndGet() == 0) {
                LockSupport.unpark(waiter);
            }
        };
        this.helpers = new Thread[producers - 1];
        this.rounds = new BlockingQueue[producers - 1];
        for (int i = 0; i < helpers.length; i++) {
            BlockingQueue<Integer> round = new ArrayBlockingQueue<>(1);
            rounds[i] = round;
            helpers[i] = new Thread(() -> {
                try {
                    for (int n; (n = round.take()) >= 0; ) {
                        submit(n);
                    }
                } catch (InterruptedException e) {
                    // closing
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                    LockSupport.unpark(waiter);
                }
            }, PRODUCER_THREAD_PREFIX + (i + 1));
            helpers[i].setDaemon(true);
            helpers[i].start();
        }
    }

    /** Runs {@code tasks} tasks, split evenly among the producers, and returns once all have run. */
    void run(int tasks) throws Exception {
        waiter = Thread.currentThread();
        remaining.set(tasks);
        int share = tasks / producers;
        for (BlockingQueue<Integer> round : rounds) {
            round.put(share);
        }
        submit(tasks - share * helpers.length);
        while (remaining.get() != 0) {
            LockSupport.park(this);
            Throwable t = failure.get();
            if (t != null) {
                throw new IllegalStateException("a producer failed", t);
            }
        }
    }

    private void submit(int n) throws Exception {
        if (countRejections) {
            submitCountingRejections(n);
            return;
        }
        Runnable t = task;
        Target target = this.target;
        for (int i = 0; i < n; i++) {
            target.submit(t);
        }
    }

    /** Like submit, but a rejected task is counted as done and counted in {@link #takeRejected()}. */
    private void submitCountingRejections(int n) throws Exception {
        Runnable t = task;
        Target target = this.target;
        int refused = 0;
        for (int i = 0; i < n; i++) {
            try {
                target.submit(t);
            } catch (RejectedExecutionException e) {
                refused++;
            }
        }
        if (refused > 0) {
            rejected.add(refused);
            if (remaining.addAndGet(-refused) == 0) {
                LockSupport.unpark(waiter);
            }
        }
    }

    /** Tasks rejected so far (with countRejections), and resets the count. */
    long takeRejected() {
        return rejected.sumThenReset();
    }

    @Override
    public void close() {
        for (int i = 0; i < helpers.length; i++) {
            rounds[i].offer(-1);
            helpers[i].interrupt();
        }
    }
}
