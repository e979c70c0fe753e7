package io.github.workerpool.benchmarks;

import java.util.concurrent.TimeUnit;
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
 * Benchmark 1, tiny-task throughput: batches of no-op (work = 0) or about 1 us ({@code -p work=512}:
 * {@code Blackhole.consumeCPU(512)}, 0.96 us on the 2-vCPU machine of BENCHMARKS.md)
 * tasks from 1 or 2 producer threads; the score is tasks per second. Each peer gets the same
 * concurrency limit n.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class TinyTaskBenchmark {

    /** Tasks per benchmark invocation (and per reported operation count). */
    static final int BATCH = 10_000;

    @Param({"WorkerPool-queue", "WorkerPool-handoff", "WorkerPool-virtual-queue", "WorkerPool-virtual-handoff",
            "TPE-LBQ", "TPE-sync-blockingput", "TPE-sync-callerruns", "Spring-TPTE", "FJP-common", "FJP",
            "VT-unbounded", "VT-semaphore", "Reactor-boundedElastic", "MultiPool", "FunctionPool"})
    public String peer;

    @Param({"2", "256"})
    public int n;

    @Param({"1", "2"})
    public int producers;

    @Param({"0"})
    public long work;

    int batchSize = BATCH;
    private Target target;
    private Batch batch;

    @Setup(Level.Trial)
    public void setUp() {
        target = Peer.of(peer).create(n);
        batch = new Batch(target, producers, work);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        batch.close();
        target.close();
    }

    /** Runs BATCH tasks; the score is tasks/s. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void tasks() throws Exception {
        batch.run(batchSize);
    }
}
