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
 * Benchmark 4, contention: 2, 4 or 8 producer threads submitting no-op tasks to one pool of n
 * workers; tasks per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class ContentionBenchmark {

    @Param({"WorkerPool-queue", "WorkerPool-handoff", "TPE-LBQ", "TPE-sync-blockingput", "FJP", "MultiPool", "MultiPool-least"})
    public String peer;

    @Param({"16"})
    public int n;

    @Param({"2", "4", "8"})
    public int producers;

    int batchSize = TinyTaskBenchmark.BATCH;
    private Target target;
    private Batch batch;

    @Setup(Level.Trial)
    public void setUp() {
        target = Peer.of(peer).create(n);
        batch = new Batch(target, producers, 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        batch.close();
        target.close();
    }

    /** Runs a batch of tasks split among the producers; the score is tasks/s. */
    @Benchmark
    @OperationsPerInvocation(TinyTaskBenchmark.BATCH)
    public void tasks() throws Exception {
        batch.run(batchSize);
    }
}
