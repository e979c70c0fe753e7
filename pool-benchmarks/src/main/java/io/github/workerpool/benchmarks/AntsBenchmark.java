package io.github.workerpool.benchmarks;

import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 2, the ants workload scaled to two cores: {@code tasks} tasks that each sleep
 * {@code sleepMs}, at most {@code capacity} at once. The score is the wall time of one run (ideal:
 * tasks x sleepMs / capacity = 1.0 s with the defaults). Every case runs in its own fork; add
 * {@code -prof io.github.workerpool.benchmarks.PeakRssProfiler} for its peak RSS and
 * {@code -prof gc} for allocation (gc.alloc.rate.norm / tasks = bytes per task).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(1)
@State(Scope.Benchmark)
public class AntsBenchmark {

    @Param({"WorkerPool-handoff", "WorkerPool-queue", "WorkerPool-queue-n", "WorkerPool-virtual-handoff", "WorkerPool-virtual-queue", "TPE-LBQ", "TPE-LBQ-virtual", "TPE-sync-blockingput",
            "VT-semaphore", "VT-unbounded", "FunctionPool"})
    public String peer;

    @Param({"1000000"})
    public int tasks;

    @Param({"10000"})
    public int capacity;

    @Param({"10"})
    public int sleepMs;

    private Target target;
    private final AtomicInteger remaining = new AtomicInteger();
    private volatile Thread waiter;
    private Runnable task;

    @Setup(Level.Iteration)
    public void setUp() {
        target = Peer.of(peer).create(capacity);
        long sleep = sleepMs;
        task = () -> {
            try {
                Thread.sleep(sleep);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (remaining.decrementAndGet() == 0) {
                LockSupport.unpark(waiter);
            }
        };
    }

    @TearDown(Level.Iteration)
    public void tearDown() {
        target.close();
        PeakRssProfiler.print(peer);
    }

    /** Submits every task from one thread and waits until all have run. */
    @Benchmark
    public void run() throws Exception {
        waiter = Thread.currentThread();
        remaining.set(tasks);
        Runnable t = task;
        for (int i = 0; i < tasks; i++) {
            target.submit(t);
        }
        while (remaining.get() != 0) {
            LockSupport.park(this);
        }
    }
}
