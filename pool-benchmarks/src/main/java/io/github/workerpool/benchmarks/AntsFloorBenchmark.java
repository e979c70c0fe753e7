package io.github.workerpool.benchmarks;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The no-pool baseline of benchmark 2 (the ants workload): the same {@code tasks} sleeps of
 * {@code sleepMs}, run by {@code capacity} threads that each just loop over their share, with no
 * pool, no queue, no hand-off and no thread created per task. What is left is what the JVM and the
 * machine charge for the sleeps themselves (a platform thread's timed wait and wake-up; a virtual
 * thread's unmount, timer and remount) and for {@code capacity} threads: the floor that any pool
 * or executor running this workload stands on.
 *
 * <p>With {@code backlog=array} the tasks are first put in one array, and the threads take them
 * in turn through an atomic cursor: the backlog a queue holds, in the least memory any queue
 * could hold it (4 bytes a task, nothing allocated per task, no lock), so what an executor that
 * queues the backlog, as WorkerPool's queue mode does, cannot go below.
 *
 * <p>With {@code backlog=linked} the tasks are first put in one {@link ConcurrentLinkedQueue},
 * and the threads poll it: the same backlog held in a linked queue's nodes (one per task), as a
 * queue-mode pool's queue holds it, so that the gap between {@code array} and {@code linked} is
 * what holding a backlog in nodes costs, with nothing of a pool in it.
 *
 * <p>With {@code backlog=queue} the threads start first and the benchmark thread then offers
 * every task to one {@link ConcurrentLinkedQueue} while they take from it, as it submits to a
 * pool in {@link AntsBenchmark}; a thread that finds the queue empty naps 50 us and looks again,
 * and returns once the benchmark thread is done and the queue is empty. That is the shape of a
 * queue-mode pool (long-lived threads fed through a queue by a producer that runs at the same
 * time) with nothing of a pool in it: no idle list, no wake-up, no counters, no bookkeeping.
 * With platform threads it takes at most 1,000 of them: more, napping, starve the feeding thread.
 * Its naps cost CPU while the queue is still empty at the start, and its threads just end at the
 * end, where a pool's go idle: the first errs towards a slower floor, the second a faster one.
 * Measured the same way as {@link AntsBenchmark}:
 * one run per fork, wall time, {@code -prof io.github.workerpool.benchmarks.PeakRssProfiler} for
 * peak RSS.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(1)
@State(Scope.Benchmark)
public class AntsFloorBenchmark {

    /** {@code platform}: {@code new Thread(...)}; {@code virtual}: a virtual thread each (Java 21+). */
    @Param({"platform", "virtual"})
    public String threads;

    /**
     * {@code none}: each thread sleeps its share; {@code array}: the threads take the tasks from a
     * full array; {@code linked}: from a full {@link ConcurrentLinkedQueue}; {@code queue}: from
     * one the benchmark thread fills meanwhile. {@code queue} is not among the defaults: with
     * platform threads it takes at most 1,000 of them (see {@link #run()}), so a default run
     * ({@code pool-benchmarks/run.sh}, capacity 10,000) would end in an error row; pass
     * {@code -p backlog=queue} with {@code -p threads=virtual}, as matrix17.sh does.
     */
    @Param({"none", "array", "linked"})
    public String backlog;

    @Param({"1000000"})
    public int tasks;

    @Param({"10000"})
    public int capacity;

    @Param({"10"})
    public int sleepMs;

    @TearDown(Level.Iteration)
    public void tearDown() {
        PeakRssProfiler.print("no-pool " + threads + ", backlog " + backlog);
    }

    /**
     * Starts {@code capacity} threads that sleep {@code tasks / capacity} times each, or take
     * sleeps from the array or the queue (then fed); waits for all. The array or queue is filled
     * inside the clock on purpose: every executor this floor stands for takes its 10^6 tasks
     * inside AntsBenchmark's clock too, the producer's submits being part of its run.
     */
    @Benchmark
    public void run() throws Exception {
        if (tasks % capacity != 0) {
            throw new IllegalArgumentException("tasks (" + tasks + ") must be a multiple of capacity (" + capacity + ")");
        }
        long sleep = sleepMs;
        Runnable sleepOnce = () -> {
            try {
                Thread.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        CountDownLatch done = new CountDownLatch(capacity);
        Runnable loop;
        Runnable feed = () -> { };
        if ("none".equals(backlog)) {
            int each = tasks / capacity;
            loop = () -> {
                try {
                    for (int i = 0; i < each; i++) {
                        sleepOnce.run();
                    }
                } finally {
                    done.countDown();
                }
            };
        } else if ("array".equals(backlog)) {
            Runnable[] queued = new Runnable[tasks];
            Arrays.fill(queued, sleepOnce);
            AtomicInteger cursor = new AtomicInteger();
            loop = () -> {
                try {
                    for (int i; (i = cursor.getAndIncrement()) < queued.length; ) {
                        queued[i].run();
                    }
                } finally {
                    done.countDown();
                }
            };
        } else if ("linked".equals(backlog)) {
            ConcurrentLinkedQueue<Runnable> queued = new ConcurrentLinkedQueue<>();
            for (int i = 0; i < tasks; i++) {
                queued.offer(sleepOnce);
            }
            loop = () -> {
                try {
                    for (Runnable t; (t = queued.poll()) != null; ) {
                        t.run();
                    }
                } finally {
                    done.countDown();
                }
            };
        } else if ("queue".equals(backlog)) {
            if ("platform".equals(threads) && capacity > 1000) {
                // Thousands of platform threads that nap and look again starve the feeding thread
                // of its CPU (a run at 10,000 went on for over 15 minutes, with backoff too).
                throw new IllegalArgumentException("backlog=queue with platform threads takes at most 1000 threads"
                        + " (capacity " + capacity + "): use -p threads=virtual, or -p capacity=1000");
            }
            ConcurrentLinkedQueue<Runnable> queued = new ConcurrentLinkedQueue<>();
            AtomicBoolean fed = new AtomicBoolean();
            loop = () -> {
                try {
                    for (;;) {
                        Runnable t = queued.poll();
                        if (t != null) {
                            t.run();
                        } else if (fed.get() && queued.isEmpty()) {
                            return; // every task was offered before fed was set
                        } else {
                            LockSupport.parkNanos(50_000);
                        }
                    }
                } finally {
                    done.countDown();
                }
            };
            feed = () -> {
                for (int i = 0; i < tasks; i++) {
                    queued.offer(sleepOnce);
                }
                fed.set(true);
            };
        } else {
            throw new IllegalArgumentException("backlog must be none, array, linked or queue, not '" + backlog + "'");
        }
        if ("virtual".equals(threads)) {
            ExecutorService vt = Peer.newVirtualThreadPerTaskExecutor();
            for (int i = 0; i < capacity; i++) {
                vt.execute(loop);
            }
            feed.run();
            done.await();
            vt.shutdown();
        } else if ("platform".equals(threads)) {
            for (int i = 0; i < capacity; i++) {
                new Thread(loop, "floor-" + i).start();
            }
            feed.run();
            done.await();
        } else {
            throw new IllegalArgumentException("threads must be platform or virtual, not '" + threads + "'");
        }
    }
}
