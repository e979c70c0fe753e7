package io.github.workerpool.benchmarks;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 6, the physical limit for virtual workers (Java 21+), with no pool in between: what one
 * no-op task costs a virtual thread that is <em>reused</em> ({@code reuse}: it parks after each
 * task and the producer unparks it for the next, which is all a pool of virtual workers can do)
 * against one that is <em>new</em> ({@code start}: started per task and ended after it, which is
 * what a virtual-thread-per-task executor behind a semaphore does). One platform producer, batches
 * of BATCH tasks on BATCH virtual threads; the score is tasks per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class VirtualThreadBenchmark {

    static final int BATCH = 10_000;

    @Param({"reuse", "start"})
    public String mode;

    int batchSize = BATCH;
    private final AtomicInteger remaining = new AtomicInteger();
    private volatile Thread producer;
    private volatile long generation;
    private volatile boolean running;
    private ThreadFactory factory;
    private Thread[] reused;
    private Runnable task;

    @Setup(Level.Trial)
    public void setUp() {
        Peer.requireVirtualThreads();
        factory = virtualThreadFactory();
        task = this::taskDone;
        running = true;
        if (mode.equals("reuse")) {
            reused = new Thread[batchSize];
            for (int i = 0; i < reused.length; i++) {
                reused[i] = factory.newThread(this::reusedLoop);
                reused[i].start();
            }
        } else if (!mode.equals("start")) {
            throw new IllegalArgumentException("mode must be reuse or start, but was " + mode);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        running = false;
        if (reused != null) {
            for (Thread t : reused) {
                LockSupport.unpark(t);
            }
            for (Thread t : reused) {
                t.join();
            }
        }
    }

    /** Runs one task on each of BATCH virtual threads and returns once all have run. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void tasks() {
        producer = Thread.currentThread();
        remaining.set(batchSize);
        if (reused != null) {
            generation++;
            for (Thread t : reused) {
                LockSupport.unpark(t);
            }
        } else {
            for (int i = 0; i < batchSize; i++) {
                factory.newThread(task).start();
            }
        }
        while (remaining.get() != 0) {
            LockSupport.park(this);
        }
    }

    private void reusedLoop() {
        long seen = 0L; // not `generation`: this thread may first run after the first batch began
        while (running) {
            long g = generation;
            if (g == seen) {
                LockSupport.park(this);
                continue;
            }
            seen = g;
            taskDone();
        }
    }

    private void taskDone() {
        if (remaining.decrementAndGet() == 0) {
            LockSupport.unpark(producer);
        }
    }

    /** Java 21's Thread.ofVirtual().factory(), reached reflectively so the module compiles for 17. */
    static ThreadFactory virtualThreadFactory() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
