package io.github.workerpool.benchmarks;

import java.util.concurrent.TimeUnit;
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
 * Benchmark 3, latency: submit-to-start of a probe task while a background generator keeps
 * {@code load} percent of the pool's n workers busy with tasks that sleep about {@code serviceUs}
 * (open loop, evenly spaced arrivals). JMH's sample mode gives p50/p99/p99.9 of the probe's
 * submit-to-start time (plus a few ns to notice the start).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class LatencyBenchmark {

    @Param({"WorkerPool-queue", "WorkerPool-handoff", "TPE-LBQ", "TPE-sync-blockingput", "FJP", "VT-semaphore"})
    public String peer;

    @Param({"50", "90"})
    public int load;

    @Param({"8"})
    public int n;

    @Param({"1000"})
    public int serviceUs;

    private Target target;
    private Thread generator;
    private volatile boolean generating;
    private volatile boolean started;
    private Runnable probe;

    @Setup(Level.Trial)
    public void setUp() {
        target = Peer.of(peer).create(n);
        probe = () -> started = true;
        long service = measuredParkNanos(TimeUnit.MICROSECONDS.toNanos(serviceUs));
        long interval = service * 100 / ((long) n * load);
        Runnable sleeper = () -> LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(serviceUs));
        generating = true;
        generator = new Thread(() -> {
            long next = System.nanoTime();
            try {
                while (generating) {
                    long now = System.nanoTime();
                    if (now - next < 0) {
                        LockSupport.parkNanos(next - now);
                        continue;
                    }
                    target.submit(sleeper);
                    next += interval;
                    if (System.nanoTime() - next > 20 * interval) {
                        next = System.nanoTime(); // fell far behind (blocking peer): do not burst
                    }
                }
            } catch (Exception e) {
                if (generating) {
                    throw new IllegalStateException(e);
                }
            }
        }, "load-generator");
        generator.setDaemon(true);
        generator.start();
    }

    /** How long parkNanos(nanos) really takes here, so the offered load is what it says. */
    private static long measuredParkNanos(long nanos) {
        long start = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            LockSupport.parkNanos(nanos);
        }
        return (System.nanoTime() - start) / 20;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        generating = false;
        generator.join();
        target.close();
    }

    /** Submits one probe and returns when it has started: its submit-to-start time. */
    @Benchmark
    public boolean submitToStart() throws Exception {
        started = false;
        target.submit(probe);
        while (!started) {
            Thread.onSpinWait();
        }
        return true;
    }
}
